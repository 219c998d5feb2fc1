// The line tables of CPython 2.7 and 3.6-3.10, decoded into the ranges of
// location_table.h (in code units, lines only: those versions record no
// columns). Both tables are runs of (bytecode bytes, line delta) byte pairs.
#pragma once

#include <string_view>
#include <vector>

#include "core/walk/location_table.h"

namespace pyunwind {

// 3.6-3.9 co_lnotab: an instruction's line is co_firstlineno plus the
// (signed) line deltas of every pair whose bytes end at or before it
// (PyCode_Addr2Line, Objects/lnotab_notes.txt).
std::vector<LineRange> DecodeLnotab(std::string_view table, int first_line);

// 2.7's co_lnotab: the same pairs with unsigned line deltas (a backward jump
// in lines is not recorded), over bytecode of 1- and 3-byte instructions: the
// ranges count bytes.
std::vector<LineRange> DecodeLnotab27(std::string_view table, int first_line);

// 3.10 co_linetable (PEP 626): each pair whose byte delta is not 0 is a range
// of that many bytes on the line reached by its line delta; a delta of -128
// marks a range without a line (PyLineTable_NextAddressRange).
std::vector<LineRange> DecodeLineTable310(std::string_view table, int first_line);

// Each of them decoded once, without the first line (location_table.h, LineTable): what
// CodeCache keeps for every code object that shares the table.
LineTable DecodeLnotabOnce(std::string_view table);
LineTable DecodeLnotab27Once(std::string_view table);
LineTable DecodeLineTable310Once(std::string_view table);

}  // namespace pyunwind
