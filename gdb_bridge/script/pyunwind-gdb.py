# pyunwind for GDB: the Python stacks of a CPython process or core file.
#
#   (gdb) source /path/to/pyunwind-gdb.py
#   (gdb) py-bt --all
#
# Imports the package pyunwind_gdb beside this file, which loads libpyunwind_gdb.so from
# here too (gdb_bridge/README.md). Sourced again, it undoes what the last source set up and
# imports the package afresh (from this directory, whichever was imported before).
import os
import sys


def _pyunwind_load():
    here = os.path.dirname(os.path.realpath(__file__))
    old = sys.modules.get("pyunwind_gdb")
    if old is not None:
        old.uninstall()
    for name in [n for n in sys.modules if n == "pyunwind_gdb" or n.startswith("pyunwind_gdb.")]:
        del sys.modules[name]
    # No __pycache__ beside an installed script: a package manager would not remove it.
    sys.path.insert(0, here)
    dont_write_bytecode, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        import pyunwind_gdb
    finally:
        sys.dont_write_bytecode = dont_write_bytecode
        sys.path.remove(here)
    try:
        pyunwind_gdb.install(here)
    except pyunwind_gdb.LoadError as e:
        import gdb
        gdb.write("%s\n" % e, gdb.STDERR)


_pyunwind_load()
