"""What the opcode-table generators share (make_opcode_table.py for 3.6+, run by each
interpreter; make_opcode_table_27.py, run by 2.7: this module is both 2 and 3): the opargs
listed one by one, and the one form an opcode's stack effect is fitted to past them, which
core/walk/stack_depth.cc evaluates (OpcodeFacts::large)."""

SMALL = 16  # opargs 0..SMALL-1 are listed one by one


def large_form(at):
    """(constant, low, high, odd) if the effect at(oparg) of every oparg from SMALL is
    constant + low*(oparg & 255) + high*(oparg >> 8) + odd*(oparg & 1); else None."""
    if None in (at(SMALL), at(SMALL + 1), at(SMALL + 2), at(256 + SMALL)):
        return None
    if (at(SMALL + 2) - at(SMALL)) % 2:
        return None
    low = (at(SMALL + 2) - at(SMALL)) // 2
    odd = at(SMALL + 1) - at(SMALL) - low
    high = at(256 + SMALL) - at(SMALL)
    constant = at(SMALL) - SMALL * low
    for arg in list(range(SMALL, 1024)) + list(range(1024, 65536, 251)) + [65535]:
        if at(arg) != constant + low * (arg & 0xFF) + high * (arg >> 8) + odd * (arg & 1):
            return None
    return constant, low, high, odd
