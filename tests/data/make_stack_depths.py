#!/usr/bin/env python3
"""Writes the stack-depth test data for tests/stack_depth_test.cc.

    /usr/bin/python3.11 tests/data/make_stack_depths.py tests/data/stack_depths_311.json

Also under pyenv's 3.6.15, 3.7.16, 3.8.18, 3.9.18 and 3.10.13 (no exception
table: "", no specialized bytecode), with what the interpreter's own opcode and
dis modules say of each opcode ("opcodes": number, jump kind, dis.stack_effect
of opargs 0..17 and 272 without and with the jump; 3.6, 3.7: one effect, their
dis takes no `jump`), which core/layout/opcodes_3NN.inc must agree with.

For every code object, recursively, of a few modules of this interpreter's own
library and of the source below: co_code (hex), co_exceptiontable (hex) and
co_stacksize, the depth the compiler computed, which the analysis must find
as its largest depth. The functions of the source below are also run until
the interpreter specializes them, and their co_code_adaptive recorded too
("adaptive": specialized opcodes, read as their base).
"""
import dis
import importlib.util
import json
import opcode
import sys
import types

MODULES = ["threading", "queue", "json.decoder", "asyncio.tasks", "contextlib"]

SOURCE = '''
import time
def calls(a, b, *args, **kwargs):
    x = len(a) + len(b)
    sorted(a, key=lambda v: -v)
    "".join(str(v) for v in b)
    a.append(x)
    isinstance(x, int)
    print(*args, sep="", end="", file=None) if x < 0 else None
    return max(a, default=0), dict(**kwargs)
def handlers(a):
    try:
        with open("/nonexistent") as f:
            return f.read()
    except (OSError, ValueError) as e:
        try:
            raise RuntimeError(str(e)) from e
        except RuntimeError:
            pass
    finally:
        a.append(1)
    return [v * 2 for v in a if v] + [x for x in range(3)]
def wide(a):
    t = (''' + ", ".join(f"a[{i % 3}]" for i in range(300)) + ''')
    return len(t) + len([''' + ", ".join(str(i) for i in range(270)) + '''])
async def coroutine(q):
    async with q:
        async for item in q:
            await item
def generator(n):
    for i in range(n):
        yield from range(i)
'''


def code_objects(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from code_objects(const)


def entry(name, code, bytecode):
    table = getattr(code, "co_exceptiontable", b"")  # 3.11+
    return {"name": name, "code": bytecode.hex(), "exception_table": table.hex(),
            "stack_size": code.co_stacksize}


def qualname(code):
    return getattr(code, "co_qualname", code.co_name)  # 3.11+


EFFECT_OPARGS = list(range(18)) + [272]


def stack_effect(number, oparg, jump):
    """None: refused; 3.6, 3.7 (no `jump`): the one effect their dis gives, for jump=None."""
    if sys.version_info < (3, 8):
        if jump is not None:
            return None
        kwargs = {}
    else:
        kwargs = {"jump": jump}
    try:
        if number < opcode.HAVE_ARGUMENT:
            return dis.stack_effect(number, **kwargs)
        return dis.stack_effect(number, oparg, **kwargs)
    except ValueError:
        return None


def opcodes():
    """3.8-3.10: every opcode as this interpreter's opcode and dis modules describe it."""
    out = []
    for name, number in sorted(opcode.opmap.items(), key=lambda item: item[1]):
        jump = "absolute" if number in opcode.hasjabs else "relative" if number in opcode.hasjrel else ""
        out.append({"name": name, "number": number, "jump": jump,
                    "effect": [stack_effect(number, arg, False) for arg in EFFECT_OPARGS],
                    "jump_effect": [stack_effect(number, arg, True) for arg in EFFECT_OPARGS]})
        if sys.version_info < (3, 8):
            out[-1]["effect"] = [stack_effect(number, arg, None) for arg in EFFECT_OPARGS]
            del out[-1]["jump_effect"]
    return out


def main():
    out = {"version": ".".join(map(str, sys.version_info[:3])), "code_objects": []}
    if sys.version_info < (3, 11):
        out["extended_arg"] = opcode.EXTENDED_ARG
        out["opcodes"] = opcodes()
    for module in MODULES:
        spec = importlib.util.find_spec(module)
        source = spec.loader.get_source(module)
        for code in code_objects(compile(source, spec.origin, "exec")):
            out["code_objects"].append(entry(f"{module}:{qualname(code)}", code, code.co_code))
    namespace = {}
    exec(compile(SOURCE, "<stack_depths>", "exec"), namespace)
    for _ in range(200):
        namespace["calls"]([3, 1], "ab", 1, k=2)
        namespace["handlers"]([1, 0])
        namespace["wide"]([1, 2, 3])
        list(namespace["generator"](4))
    for code in code_objects(compile(SOURCE, "<stack_depths>", "exec")):
        out["code_objects"].append(entry(f"source:{qualname(code)}", code, code.co_code))
    for name in ("calls", "handlers", "wide", "generator"):
        code = namespace[name].__code__
        if not hasattr(code, "_co_code_adaptive"):
            continue
        adaptive = entry(f"adaptive:{name}", code, code._co_code_adaptive)
        adaptive["adaptive"] = True
        out["code_objects"].append(adaptive)
    with open(sys.argv[1], "w") as f:
        json.dump(out, f, indent=0)
        f.write("\n")


main()
