"""Writes tests/data/stack_depths_27.json for tests/stack_depth_test.cc under CPython 2.7,
whose dis has no stack_effect (core/layout/make_opcode_table_27.py):

    python2.7 tests/data/make_stack_depths_27.py tests/data/stack_depths_27.json

For every code object, recursively, of a few modules of 2.7's own library and of the source
below: co_code (hex), co_stacksize (the depth 2.7's compiler computed) and whether it has a
handler (SETUP_EXCEPT, SETUP_FINALLY, SETUP_WITH: the compiler counts more there than the eval
loop makes).
"""
import json
import opcode
import sys
import types

MODULES = ["threading", "Queue", "json.decoder", "contextlib", "collections", "functools"]

SOURCE = '''
import time
def calls(a, b, *args, **kwargs):
    x = len(a) + len(b)
    sorted(a, key=lambda v: -v)
    "".join(str(v) for v in b)
    a.append(x)
    isinstance(x, int)
    f(*args) if x < 0 else None
    g(1, 2, k=3, *args, **kwargs)
    h(x, **kwargs)
    print x, a[1:2], a[::2]
    return max(a), dict(**kwargs)
def handlers(a):
    try:
        with open("/nonexistent") as f:
            return f.read()
    except (IOError, OSError) as e:
        time.sleep(len(str(e)))
    finally:
        a.append([x for x in range(3) if x])
    for i in range(3):
        while i:
            i -= 1
            if i == 5:
                break
    return {k: v for k, v in a}, {x for x in a}
'''

HANDLERS = {opcode.opmap[name] for name in ("SETUP_EXCEPT", "SETUP_FINALLY", "SETUP_WITH")}


def has_handler(code):
    raw = bytearray(code.co_code)
    i = 0
    while i < len(raw):
        if raw[i] in HANDLERS:
            return True
        i += 3 if raw[i] >= opcode.HAVE_ARGUMENT else 1
    return False


def walk(code, name, out):
    out.append({"name": name, "code": code.co_code.encode("hex"), "stack_size": code.co_stacksize,
                "has_handler": has_handler(code)})
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            walk(const, name + "." + const.co_name, out)


def main():
    out = []
    for module in MODULES:
        __import__(module)
        path = sys.modules[module].__file__
        if path.endswith(".pyc"):
            path = path[:-1]
        with open(path) as f:
            walk(compile(f.read(), path, "exec"), module, out)
    walk(compile(SOURCE, "<source>", "exec"), "source", out)
    with open(sys.argv[1], "w") as f:
        json.dump({"python": sys.version.split()[0], "extended_arg": opcode.EXTENDED_ARG,
                   "have_argument": opcode.HAVE_ARGUMENT, "code_objects": out}, f, indent=0,
                  sort_keys=True)
        f.write("\n")


main()
