// Decoding of co_linetable, the location table of PEP 626/657 (3.11+):
// which source line, and which columns of it, each bytecode instruction
// belongs to (what code.co_positions() gives).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace pyunwind {

// One run of instructions [start, end) (in code units) with one position.
// Columns are 0-based UTF-8 byte offsets into the line, as co_positions()
// gives them; -1 where the entry has none.
struct LineRange {
  int32_t start = 0;
  int32_t end = 0;
  int32_t line = -1;  // -1: the instructions have no line (a "no location" entry)
  int32_t end_line = -1;
  int32_t column = -1;
  int32_t end_column = -1;
};

// Where one instruction is: co_positions() for it (line, end line, column,
// end column), each nullopt where Python gives None.
struct SourcePosition {
  std::optional<int> line;
  std::optional<int> end_line;
  std::optional<int> column;
  std::optional<int> end_column;

  auto operator<=>(const SourcePosition&) const = default;
};

// Decodes a whole table once; malformed input ends the decoding early.
std::vector<LineRange> DecodeLocationTable(std::string_view table, int first_line);

// The line of the instruction at `instruction_index` (code units from the
// start of co_code_adaptive), or nullopt when it has none.
std::optional<int> LineForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index);

// The whole position of that instruction; before the first instruction only
// the first line, as LineForInstruction.
SourcePosition PositionForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index);

}  // namespace pyunwind
