"""Dumps every member of the CPython structures pyunwind reads, from a build's DWARF debug info.

usage (GDB 13's Python; the libpython of a build with debug info, optionally its _asyncio module):
  PYU_OUT_TSV=tests/data/layouts/3.9.18.tsv \
  PYU_ASYNCIO_SO=/root/.pyenv/versions/3.9.18/lib/python3.9/lib-dynload/_asyncio.cpython-39-x86_64-linux-gnu.so \
    PATH=/usr/bin:/bin gdb -nx -batch /root/.pyenv/versions/3.9.18/lib/libpython3.9.so.1.0 \
      -x tests/data/layouts/make_layout_tsv.py

  PYU_OUT_TSV   where to write the table (default: stdout).
  PYU_ASYNCIO_SO  the _asyncio extension module: loaded with add-symbol-file after the libpython
                types are dumped, then its TaskObj and FutureObj are dumped (optional).
  PYU_TYPES     a comma-separated list of type names to dump instead of the default list (optional).

Same format as ../shared/fixtures/layouts/*.tsv and 3.11.2d.tsv: a header `type\tmember\toffset\tsize`,
then one row per member, recursively through nested structs and unions (dotted paths such as
`ceval.gil.locked`; the members of an anonymous struct or union are named as if they were the
parent's, as in C). Unlike those files, a struct, union or array member has its own row too
(`ceval.gil` and `ceval.gil.locked`). A member inside an array of structs gives its offset inside
element 0 of the first array on its path (the array's own row gives where the array starts); the
elements after the first are not repeated. A bit-field gives the offset and size of the storage
unit holding it, and a second row `NAME:bits` gives its bit offset inside that unit (offset
column) and its width in bits (size column). Each type ends with a row `sizeof\t0\tSIZE`.

A type is named by the first of its names (see TYPES) the debug info defines; a type no name of
which is defined (PyIntObject in 3.x, struct pyruntimestate before 3.7 ...) is skipped, and the
skipped ones are listed on stderr. Symbols (which globals a build defines, static or not) are not
read here: see make_symbols_tsv.sh.
"""
import os
import sys

import gdb

# Each entry: the names one type may have, the one the table uses first.
TYPES = [
    ["struct pyruntimestate", "_PyRuntimeState", "struct _PyRuntimeState"],
    ["struct _is", "PyInterpreterState"],
    ["struct _ts", "PyThreadState"],
    ["PyFrameObject", "struct _frame"],
    ["PyTryBlock"],
    ["PyCodeObject"],
    ["PyTypeObject", "struct _typeobject"],
    ["PyHeapTypeObject"],
    ["PyUnicodeObject"],
    ["PyASCIIObject"],
    ["PyCompactUnicodeObject"],
    ["PyBytesObject"],
    ["PyStringObject"],
    ["PyIntObject"],
    ["PyInstanceObject"],
    ["PyClassObject"],
    ["struct _longobject", "PyLongObject"],
    ["PyFloatObject"],
    ["PyTupleObject"],
    ["PyListObject"],
    ["PyDictObject"],
    ["struct _dictkeysobject", "PyDictKeysObject"],
    ["PyDictKeyEntry"],
    ["PyDictEntry"],
    ["PySetObject"],
    ["setentry"],
    ["PyGenObject"],
    ["PyCoroObject"],
    ["PyAsyncGenObject"],
    ["PyCellObject"],
    ["PyFunctionObject"],
    ["PyMethodObject"],
    ["PyCFunctionObject"],
    ["PyMethodDef"],
    ["PyMethodDescrObject"],
    ["PyWrapperDescrObject"],
    ["PyDescrObject"],
    ["PyModuleObject"],
    ["PyBaseExceptionObject"],
    ["PyWeakReference"],
    ["struct _err_stackitem", "_PyErr_StackItem"],
    ["struct _gil_runtime_state"],
    ["struct _ceval_runtime_state"],
    ["struct _gc_runtime_state"],
    ["PyVarObject"],
    ["PyObject"],
]
ASYNCIO_TYPES = [["TaskObj"], ["FutureObj"]]

AGGREGATES = (gdb.TYPE_CODE_STRUCT, gdb.TYPE_CODE_UNION)


def lookup(names):
    """The first of names the debug info defines completely, as (name, type), or None."""
    for name in names:
        try:
            t = gdb.lookup_type(name).strip_typedefs()
        except gdb.error:
            continue
        if t.code in AGGREGATES and t.fields():
            return name, t
    return None


def walk(t, prefix, base_bits, in_array, rows):
    """Appends (member, offset, size) for every member of struct/union t placed at base_bits."""
    for f in t.fields():
        if not hasattr(f, "bitpos"):  # a static member (not in C)
            continue
        bits = base_bits + f.bitpos
        ft = f.type.strip_typedefs()
        if not f.name:  # an anonymous struct or union: its members are the parent's
            walk(ft, prefix, bits, in_array, rows)
            continue
        name = prefix + f.name
        if f.bitsize:
            unit = ft.sizeof
            unit_offset = (bits // (8 * unit)) * unit
            rows.append((name, unit_offset, unit))
            rows.append((name + ":bits", bits - 8 * unit_offset, f.bitsize))
            continue
        rows.append((name, bits // 8, ft.sizeof))
        if ft.code in AGGREGATES:
            walk(ft, name + ".", bits, in_array, rows)
        elif ft.code == gdb.TYPE_CODE_ARRAY:
            element = ft.target().strip_typedefs()
            while element.code == gdb.TYPE_CODE_ARRAY:
                element = element.target().strip_typedefs()
            if element.code in AGGREGATES:
                # Offsets inside element 0 of the first array on the path.
                walk(element, name + ".", bits if in_array else 0, True, rows)


def dump(groups, out, skipped):
    for names in groups:
        found = lookup(names)
        if found is None:
            skipped.append(" / ".join(names))
            continue
        type_name, t = found
        rows = []
        walk(t, "", 0, False, rows)
        for member, offset, size in rows:
            out.write(f"{type_name}\t{member}\t{offset}\t{size}\n")
        out.write(f"{type_name}\tsizeof\t0\t{t.sizeof}\n")


def main():
    groups = TYPES
    if os.environ.get("PYU_TYPES"):
        groups = [[n.strip()] for n in os.environ["PYU_TYPES"].split(",") if n.strip()]
    path = os.environ.get("PYU_OUT_TSV")
    out = open(path, "w") if path else sys.stdout
    skipped = []
    out.write("type\tmember\toffset\tsize\n")
    dump(groups, out, skipped)
    so = os.environ.get("PYU_ASYNCIO_SO")
    if so and not os.environ.get("PYU_TYPES"):
        gdb.execute(f"add-symbol-file {so}", to_string=True)
        dump(ASYNCIO_TYPES, out, skipped)
    if path:
        out.close()
    if skipped:
        sys.stderr.write("skipped (not defined by this build): " + ", ".join(skipped) + "\n")


main()
