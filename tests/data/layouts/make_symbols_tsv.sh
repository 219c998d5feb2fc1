#!/bin/sh
# Which of the globals pyunwind may look up each pyenv CPython build defines, from the ELF symbol
# tables (readelf -sW, not the debug info), and the static objects of its _asyncio module.
#
# usage: tests/data/layouts/make_symbols_tsv.sh [PYENV_ROOT] > tests/data/layouts/symbols.tsv
#
# Columns: version, file (libpython or _asyncio), symbol, bind (GLOBAL, LOCAL = a C static, WEAK,
# or absent when neither .dynsym nor .symtab has it), dynsym (yes when .dynsym exports it, so it
# is found without .symtab), value (the st_value: offset from the file's load base, hex) and size.
# The _asyncio rows are every OBJECT symbol _asynciomodule.c defines except the compiler's and
# linker's own, docstrings, method/getset tables and the argument-parser and identifier tables
# (_parser.N, _keywords.N, PyId_*): the module's state variables and type objects.
set -eu
root=${1:-$(pyenv root 2>/dev/null || echo /root/.pyenv)}
symbols="_PyRuntime interp_head _PyThreadState_Current _PyGILState_Current autoTLSkey
autoInterpreterState gil_locked gil_last_holder gil_mutex interpreter_lock collecting
Py_Version _Py_ctype_table PyCode_Type PyFrame_Type"

# readelf -sW FILE | rows: table(dynsym|symtab) name bind type value size ndx
table() {
  readelf -sW "$1" | awk '
    /^Symbol table/ { t = ($3 ~ /dynsym/) ? "dynsym" : "symtab"; next }
    NF >= 8 && $1 ~ /:$/ { print t, $8, $5, $4, $2, $3, $7 }'
}

# one row per symbol: from .symtab when there is one, dynsym says whether .dynsym has it too.
row() {  # version file symbol rows-file
  awk -v v="$1" -v f="$2" -v s="$3" '
    $2 == s { if ($1 == "dynsym") dyn = "yes"; if (!bind || $1 == "symtab") { bind = $3; val = $5; size = $6 } }
    END {
      if (!bind) { bind = "absent"; val = "-"; size = "-" }
      printf "%s\t%s\t%s\t%s\t%s\t0x%s\t%s\n", v, f, s, bind, dyn ? dyn : "no", val, size
    }' "$4" | sed 's/\t0x-\t/\t-\t/'
}

printf 'version\tfile\tsymbol\tbind\tdynsym\tvalue\tsize\n'
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
for v in 2.7.18 3.6.15 3.7.16 3.8.18 3.9.18 3.10.13; do
  table "$root"/versions/$v/lib/libpython*.so.1.0 > "$tmp"
  for s in $symbols; do row $v libpython $s "$tmp"; done
  for so in "$root"/versions/$v/lib/python*/lib-dynload/_asyncio.*so; do
    [ -e "$so" ] || continue
    table "$so" > "$tmp"
    awk '$4 == "OBJECT" && $7 != "UND" && $2 !~ /^(_parser|_keywords|PyId_|completed\.|_DYNAMIC|_GLOBAL_OFFSET_TABLE_|__)/ &&
         $2 !~ /(__doc__|_doc|_methods|_getsetlist|_as_async)$/ { print $2 }' "$tmp" |
      sort -u | while read -r s; do row $v _asyncio "$s" "$tmp"; done
  done
done
