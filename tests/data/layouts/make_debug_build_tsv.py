"""Re-reads every (type, member) row of a layout table from another build's debug info.

usage (GDB's Python, Debian's debug build and its _asyncio module):
  PYU_RELEASE_TSV=../shared/fixtures/layouts/3.11.2.tsv PYU_OUT_TSV=tests/data/layouts/3.11.2d.tsv \
    gdb -nx -batch /usr/bin/python3.11d \
      -ex 'add-symbol-file /usr/lib/python3.11/lib-dynload/_asyncio.cpython-311d-x86_64-linux-gnu.so' \
      -x tests/data/layouts/make_debug_build_tsv.py

Same format as ../shared/fixtures/layouts/*.tsv (type, member, offset, size; a member inside an
array of structs gives its offset inside one element; a bit-field, that of the struct holding it).
Rows GDB cannot address (a function-pointer array) are left out. Prints how many rows differ from the release table.
"""
import os

import gdb


def offset_and_size(type_name, member):
    base = f"(({type_name}*)0)"
    parts = member.split(".")
    # A member of an array of structs: its offset inside element 0 of the first array on the path.
    # GDB also accepts `array.member` (as element 0's): try the array readings first.
    for i in list(range(1, len(parts))) + [0]:
        if i == 0:
            expr = f"{base}->{member}"
            element = None
        else:
            head = ".".join(parts[:i])
            rest = ".".join(parts[i:])
            element = f"{base}->{head}[0]"
            expr = f"{element}.{rest}"
        try:
            address = int(gdb.parse_and_eval(f"(long)&({expr})"))
            size = int(gdb.parse_and_eval(f"(long)sizeof({expr})"))
            if element is not None:
                address -= int(gdb.parse_and_eval(f"(long)&({element})"))
            return address, size
        except gdb.error:
            continue
    # The bit-fields of a struct (`state.1` ...: the table numbers them): the struct holding them.
    if len(parts) > 1 and parts[-1].isdigit():
        return offset_and_size(type_name, ".".join(parts[:-1]))
    return None


rows = [line.rstrip("\n").split("\t") for line in open(os.environ["PYU_RELEASE_TSV"])][1:]
same = differ = left_out = 0
with open(os.environ["PYU_OUT_TSV"], "w") as out:
    out.write("type\tmember\toffset\tsize\n")
    for type_name, member, offset, size in rows:
        got = offset_and_size(type_name, member)
        if got is None:
            left_out += 1
            continue
        out.write(f"{type_name}\t{member}\t{got[0]}\t{got[1]}\n")
        if got == (int(offset), int(size)):
            same += 1
        else:
            differ += 1
            print(f"differs: {type_name} {member}: release {offset}/{size}, this build {got[0]}/{got[1]}")
print(f"{same} rows the same, {differ} differ, {left_out} left out")
