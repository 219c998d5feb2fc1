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

// One run of a table decoded without its code object's first line (co_firstlineno): `line`
// counts from it. Code objects that share one table share one decoding of it, whatever their
// first lines (CodeCache): a target cannot make one table decoded again per code object.
struct RelativeRange {
  int32_t start = 0;
  int32_t end = 0;
  int64_t line = 0;              // from the first line; nothing without has_line
  uint32_t end_line_delta = 0;   // end line minus line
  int32_t column = -1;
  int32_t end_column = -1;
  bool has_line = false;         // false: a "no location" entry (3.10: a -128 delta)
};

// A whole table, decoded once: LineRanges once a first line is given (Resolve).
struct LineTable {
  // Each format's own rules for lines outside int's range (DecodeLocationTable keeps a
  // negative line, the older tables make it none): the same ranges as the decoders below.
  enum class Kind : uint8_t { kLocations, kLegacy };
  Kind kind = Kind::kLocations;
  std::vector<RelativeRange> ranges;

  LineRange Resolve(const RelativeRange& range, int first_line) const;
  // Every range, resolved.
  std::vector<LineRange> Resolved(int first_line) const;
};

// Decodes a whole table once, without the first line; malformed input ends the decoding early.
LineTable DecodeLocationTableOnce(std::string_view table);
// The same, resolved against `first_line`.
std::vector<LineRange> DecodeLocationTable(std::string_view table, int first_line);

// The line of the instruction at `instruction_index` (code units from the
// start of co_code_adaptive), or nullopt when it has none.
std::optional<int> LineForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index);

// The whole position of that instruction; before the first instruction only
// the first line, as LineForInstruction.
SourcePosition PositionForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index);

// The same on a table decoded once: only the range found is resolved.
std::optional<int> LineForInstruction(const LineTable& table, int first_line,
                                      int64_t instruction_index);
SourcePosition PositionForInstruction(const LineTable& table, int first_line,
                                      int64_t instruction_index);

}  // namespace pyunwind
