#!/usr/bin/env python3
"""Writes the location-table test data for tests/location_table_test.cc.

Run with each interpreter whose tables the test should cover, e.g.

    /usr/bin/python3.11 tests/data/make_location_tables.py tests/data/location_tables_311.json

(3.14 and 3.15: Debian unstable's python3.14 3.14.10 and python3.15 3.15.2,
unpacked and run with their own loader as ../shared/notes/machine.md says.)

The source below is compiled (never run); for every code object in it,
recursively, the output holds co_firstlineno, co_linetable in hex, and for
each code unit i of co_code the line Python itself reports for byte offset
2*i (from co_positions(); None becomes -1). co_lines() is checked to agree.
"positions" holds co_positions() itself ([line, end line, column, end
column], -1 for None). "source" is the compiled text, and "carets" what this
interpreter's traceback module prints under a frame at each distinct
position (StackSummary.format_frame_summary, the source line and the caret
line, without their 4-space indent).
"""
import json
import os
import sys
import tempfile
import traceback

# Varied shapes of location table: multi-line expressions, loops, try/except,
# comprehensions, lambdas, decorators, line jumps of more than 64 and more
# than 2048 lines, backward line deltas, wide columns and code at line 1000+.
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
    return total

def exceptions(f):
    try:
        f()
    except ValueError as error:
        return str(error)
    except (KeyError, TypeError):
        pass
    finally:
        print("done")
    with open(f) as handle:
        return handle.read()

def comprehensions(xs):
    squares = [x * x for x in xs if x]
    pairs = {x: [y for y in range(x)] for x in xs}
    gen = (x + 1
           for x in xs)
    return squares, pairs, set(gen)

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

async def coroutine(x):
    await x
    async with x as y:
        await y
    async for z in x:
        pass

def caret_shapes(a, b, table, key):
    x = (a) + b * 2 - (b)
    y = a ** -b ** (a)
    z = table[key] + table[(key)][a:b][1, 2]
    w = a.attr[key + 1]  	
    v = f(a)(b) // (a, b)[0] | -a % b @ c
    u = "s[1]" + 'q"' + f"{a}" + b"x\\\\" + r"\\d"
    t = [1, 2][0] if a < b else {1: 2}[1]
    s = (g(a) +
         h(b))
    r = ünïcode_名前(a) + λx[a]
    return a+b, a  +b, a>>b<<1, -a, ~b, not a, (yield a)


    return some_function_with_a_rather_long_name(argument_number_one, argument_number_two, argument_number_three, argument_four)
'''

# A function whose body jumps forward by ~100 lines and by ~3000 lines, and
# back again through a loop.
LONG_JUMPS = (
    "def long_jumps(x):\n"
    "    a = 1\n"
    + "\n" * 100
    + "    b = 2\n"
    + "    # gap\n" * 3000
    + "    for i in x:\n"
    + "        a += i\n"
    + "\n" * 70
    + "        b -= i\n"
    + "    return a, b\n"
)

HEAD_LINES = SOURCE_HEAD.count("\n") + LONG_JUMPS.count("\n")
# Fill to line 1000-something after the long jumps for the late function.
FILL = "\n" * max(0, 4200 - HEAD_LINES)
LATE = (
    "def late_pass():\n"
    "    pass\n"
    "\n"
    "def late_if(x):\n"
    "    if x:\n"
    "        return 1\n"
    "    return 2\n"
)
SOURCE = SOURCE_HEAD + LONG_JUMPS + FILL + LATE


def code_objects(code):
    yield code
    for const in code.co_consts:
        if hasattr(const, "co_linetable"):
            yield from code_objects(const)


def lines_per_code_unit(code):
    units = len(code.co_code) // 2
    lines = [-1 if pos[0] is None else pos[0] for pos in code.co_positions()]
    assert len(lines) == units, (code.co_name, len(lines), units)
    from_co_lines = [-1] * units
    for start, end, line in code.co_lines():
        for offset in range(start, end, 2):
            from_co_lines[offset // 2] = -1 if line is None else line
    assert from_co_lines == lines, code.co_qualname
    return lines


def positions(code):
    return [[-1 if v is None else v for v in pos] for pos in code.co_positions()]


def caret_lines(path, pos):
    line, end_line, col, end_col = pos
    summary = traceback.FrameSummary(path, line, "f", end_lineno=end_line, colno=col,
                                     end_colno=end_col)
    text = traceback.StackSummary().format_frame_summary(summary)
    rows = text.split("\n")[1:-1]  # after the File line; the text ends with "\n"
    assert all(r.startswith("    ") for r in rows), rows
    return [r[4:] for r in rows]


def main():
    out_path = sys.argv[1]
    module = compile(SOURCE, "<location-table-test>", "exec")
    entries = []
    seen = set()
    carets = []
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as source_file:
        source_file.write(SOURCE)
    try:
        for code in code_objects(module):
            entries.append({
                "qualname": code.co_qualname,
                "firstlineno": code.co_firstlineno,
                "linetable": code.co_linetable.hex(),
                "lines": lines_per_code_unit(code),
                "positions": positions(code),
            })
            for pos in code.co_positions():
                if pos[0] is None or pos in seen:
                    continue
                seen.add(pos)
                carets.append({"position": [-1 if v is None else v for v in pos],
                               "printed": caret_lines(source_file.name, pos)})
    finally:
        os.unlink(source_file.name)
    document = {
        "python": "%d.%d.%d" % sys.version_info[:3],
        "code_objects": entries,
        "source": SOURCE,
        "carets": carets,
    }
    with open(out_path, "w") as out:
        json.dump(document, out, separators=(",", ":"))
        out.write("\n")


if __name__ == "__main__":
    main()
