// Decoding of co_linetable, the location table of PEP 626/657 (3.11+):
// which source line each bytecode instruction belongs to.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pyunwind {

// One run of instructions [start, end) (in code units) on one line.
struct LineRange {
  int32_t start = 0;
  int32_t end = 0;
  int32_t line = -1;  // -1: the instructions have no line (a "no location" entry)
};

// Decodes a whole table once; malformed input ends the decoding early.
std::vector<LineRange> DecodeLocationTable(std::string_view table, int first_line);

// The line of the instruction at `instruction_index` (code units from the
// start of co_code_adaptive), or nullopt when it has none.
std::optional<int> LineForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index);

}  // namespace pyunwind
