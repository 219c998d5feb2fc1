#!/usr/bin/env python3
"""Writes the line-table test data of tests/legacy_line_tables_test.cc.

Run with each of pyenv's interpreters whose tables the test covers:

    for v in 3.7.16 3.8.18 3.9.18 3.10.13; do
      m=${v%.*}
      /root/.pyenv/versions/$v/bin/python$m tests/data/make_legacy_line_tables.py \\
          tests/data/legacy_line_tables_3${m#3.}.json
    done
    /root/.pyenv/versions/2.7.18/bin/python2.7 tests/data/make_legacy_line_tables.py \\
        tests/data/legacy_line_tables_27.json

2.7 compiles the same source with what it has no syntax for (async, yield from, a
generator's return value) blanked line for line, so every other line keeps its number.
Its bytecode is not wordcode: its code units are bytes, and "before_start" is at byte
offset -1 (its f_lasti of -1).

The source below is compiled (never run). For every code object in it,
recursively through co_consts, the output holds co_firstlineno, the raw line
table in hex (co_lnotab before 3.10, co_linetable in 3.10), and for each code
unit i of co_code the line the interpreter itself gives the byte offset 2*i:
PyCode_Addr2Line, called through ctypes, which is what PyFrame_GetLineNumber
uses for a frame that is not traced (-1: no line, 3.10 only). "before_start"
is PyCode_Addr2Line at byte offset -2, a frame that has not started (3.10's
f_lasti of -1 code units). Cross-checks: dis.findlinestarts (3.7-3.9) and
co_lines() (3.10) must agree with PyCode_Addr2Line.
"""
import binascii
import ctypes
import dis
import json
import sys

PYTHON2 = sys.version_info[0] == 2
# Bytes of one code unit: 3.6+ wordcode; 2.7's 1- and 3-byte instructions.
UNIT = 1 if PYTHON2 else 2

# Varied shapes of line table: multi-line expressions, loops, try/except/
# finally, comprehensions, lambdas, decorators, nested functions, generators,
# async defs, backward line deltas, and (below) line jumps of more than 127
# and 255 lines and single lines of more than 255 bytes of bytecode.
SOURCE_HEAD = '''
import functools

def simple(a, b):
    c = a + b
    return c * 2

def multi_line_expression(x):
    value = (x +
             x *
             2)
    return foo(
        value,
        x,
    )

def loops(items):
    total = 0
    for item in items:
        if item % 2:
            total += item
        else:
            continue
    while total > 10:
        total -= 3
        if total == 5:
            break
    else:
        total = -1
    return total

def exceptions(f):
    try:
        f()
    except ValueError as error:
        return str(error)
    except (KeyError, TypeError):
        pass
    else:
        f(1)
    finally:
        print("done")
    with open(f) as handle:
        return handle.read()

def nested_try(f):
    for i in range(3):
        try:
            try:
                f(i)
            finally:
                f(-i)
        except Exception:
            continue
        finally:
            f(0)
    return f

def comprehensions(xs):
    squares = [x * x for x in xs if x]
    pairs = {x: [y for y in range(x)] for x in xs}
    gen = (x + 1
           for x in xs)
    return squares, pairs, set(gen), {
        x
        for x in xs
    }

lambda_at_module = lambda q: (q,
                              q + 1)

def decorator(fn):
    return fn

@decorator
@functools.lru_cache(maxsize=None)
def decorated(n):
    return n + 1

class Klass:
    attr = [i for i in range(3)]

    @staticmethod
    def method(self, z):
        def inner(w):
            return lambda: w + z
        return inner

    @property
    def prop(self):
        return (self.
                attr)

def backwards(a, b, c):
    return call(
        a,
        b,
    ), call2(c)[
        a
    ]

def generator(n):
    for i in range(n):
        yield i
    yield from range(n)
    x = yield
    return x

async def coroutine(x):
    await x
    async with x as y:
        await y
    async for z in x:
        pass
    return [w async for w in x]

async def async_generator(x):
    async for z in x:
        yield z
    yield await x

def closures(a):
    b = a + 1
    def middle(c):
        def innermost(d):
            return a + b + c + d
        return innermost
    return middle

def conditional(a, b):
    if a and (b or
              not a):
        return 1
    elif a > b:
        return 2
    return a if b else (
        b)

def assert_and_raise(x):
    assert x, (
        "message")
    del x
    raise ValueError(
        "bad")
'''

# A long line: one statement whose bytecode spans more than 255 (and 510)
# bytes, then code after it.
LONG_LINE = (
    "def long_line(a):\n"
    "    t = [" + ", ".join("a + %d" % i for i in range(100)) + "]\n"
    "    return t\n"
    "\n"
    "def long_multi_line_call(a):\n"
    "    return f(\n"
    + "".join("        a%d,\n" % i for i in range(160))
    + "    )\n"
)

# A function whose body jumps forward by 100, 200 and 300 lines (more than
# 127 and 255 lines), by ~3000 lines, and back again through a loop.
LONG_JUMPS = (
    "def long_jumps(x):\n"
    "    a = 1\n"
    + "\n" * 100
    + "    b = 2\n"
    + "\n" * 200
    + "    c = 3\n"
    + "\n" * 300
    + "    d = 4\n"
    + "    # gap\n" * 3000
    + "    for i in x:\n"
    + "        a += i\n"
    + "\n" * 140
    + "        b -= i\n"
    + "\n" * 270
    + "        c -= i\n"
    + "    return (a,\n"
    + "\n" * 130
    + "            b, c, d)\n"
)

# 3.10 only: the match statement, and parenthesized context managers.
SOURCE_310 = '''
def matching(command):
    match command.split():
        case [action]:
            return action
        case [action, obj] if obj:
            return (action,
                    obj)
        case {"x": x, **rest}:
            return x
        case _:
            pass
    with (open("a") as a,
          open("b") as b):
        return a, b
'''

# 3.8+: assignment expressions and positional-only parameters.
SOURCE_38 = '''
def walrus(xs, /, y):
    if (n := len(xs)) > 10:
        return [z for x in xs
                if (z := x + y)]
    return n
'''

# What 2.7 cannot compile, each replaced by as many lines it can.
PYTHON3_ONLY = [
    ("    yield from range(n)\n    x = yield\n    return x\n",
     "    for i in range(n): yield i\n    x = yield\n    del x\n"),
]
if PYTHON2:
    start = SOURCE_HEAD.index("async def coroutine")
    end = SOURCE_HEAD.index("def closures")
    SOURCE_HEAD = (SOURCE_HEAD[:start] + "\n" * SOURCE_HEAD[start:end].count("\n") +
                   SOURCE_HEAD[end:])
    for python3, python2 in PYTHON3_ONLY:
        assert python3 in SOURCE_HEAD and python3.count("\n") == python2.count("\n")
        SOURCE_HEAD = SOURCE_HEAD.replace(python3, python2)

HEAD = SOURCE_HEAD + LONG_LINE + LONG_JUMPS
if sys.version_info >= (3, 8):
    HEAD += SOURCE_38
if sys.version_info >= (3, 10):
    HEAD += SOURCE_310
# A function late in the file (line 5000+).
FILL = "\n" * max(0, 5000 - HEAD.count("\n"))
LATE = (
    "def late_if(x):\n"
    "    if x:\n"
    "        return 1\n"
    "    return 2\n"
)
SOURCE = HEAD + FILL + LATE

_ADDR2LINE = ctypes.pythonapi.PyCode_Addr2Line
_ADDR2LINE.argtypes = [ctypes.py_object, ctypes.c_int]
_ADDR2LINE.restype = ctypes.c_int


def code_objects(code, path=""):
    name = path + "." + code.co_name if path else code.co_name
    yield name, code
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            for inner in code_objects(const, name):
                yield inner


def table_of(code):
    return code.co_linetable if sys.version_info >= (3, 10) else code.co_lnotab


def lines_per_code_unit(name, code):
    size = len(code.co_code)
    lines = [_ADDR2LINE(code, offset) for offset in range(0, size, UNIT)]
    if sys.version_info >= (3, 10):
        from_co_lines = [-1] * (size // 2)
        for start, end, line in code.co_lines():
            for offset in range(start, end, 2):
                from_co_lines[offset // 2] = -1 if line is None else line
        assert from_co_lines == lines, name
    else:
        from_starts = []
        line = code.co_firstlineno
        starts = dict(dis.findlinestarts(code))
        for offset in range(0, size, UNIT):
            line = starts.get(offset, line)
            from_starts.append(line)
        assert from_starts == lines, name
    return lines


def main():
    out_path = sys.argv[1]
    module = compile(SOURCE, "<legacy-line-table-test>", "exec")
    entries = []
    for name, code in code_objects(module):
        entries.append({
            "name": name,
            "firstlineno": code.co_firstlineno,
            "table": binascii.hexlify(table_of(code)).decode("ascii"),
            "lines": lines_per_code_unit(name, code),
            "before_start": _ADDR2LINE(code, -UNIT),
        })
    document = {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "table": "co_linetable" if sys.version_info >= (3, 10) else "co_lnotab",
        "code_objects": entries,
    }
    with open(out_path, "w") as out:
        json.dump(document, out, separators=(",", ":"))
        out.write("\n")


if __name__ == "__main__":
    main()
