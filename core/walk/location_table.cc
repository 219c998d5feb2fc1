#include "core/walk/location_table.h"

#include <algorithm>
#include <limits>

namespace pyunwind {
namespace {

// Location entry codes (Objects/locations.md in CPython).
enum Code : int {
  kShortFormLast = 9,      // 0-9: same line, short column form
  kOneLineFirst = 10,      // 10-12: line delta 0, 1 or 2 with columns
  kOneLineLast = 12,
  kNoColumns = 13,         // signed varint line delta
  kLongForm = 14,          // signed varint line delta, end line, columns
  kNoLocation = 15,
};

class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  bool AtEnd() const { return pos_ >= bytes_.size(); }
  bool Peek(uint8_t& out) const {
    if (AtEnd()) return false;
    out = static_cast<uint8_t>(bytes_[pos_]);
    return true;
  }
  bool Next(uint8_t& out) {
    if (!Peek(out)) return false;
    ++pos_;
    return true;
  }
  // Unsigned varint: 6 bits a byte, bit 6 means more follow.
  bool Varint(uint32_t& out) {
    out = 0;
    for (int shift = 0; shift < 32; shift += 6) {
      uint8_t byte;
      if (!Next(byte)) return false;
      out |= static_cast<uint32_t>(byte & 63) << shift;
      if (!(byte & 64)) return true;
    }
    return false;
  }
  bool SignedVarint(int32_t& out) {
    uint32_t raw;
    if (!Varint(raw)) return false;
    out = (raw & 1) ? -static_cast<int32_t>(raw >> 1) : static_cast<int32_t>(raw >> 1);
    return true;
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace

LineTable DecodeLocationTableOnce(std::string_view table) {
  LineTable out;
  out.kind = LineTable::Kind::kLocations;
  std::vector<RelativeRange>& ranges = out.ranges;
  Reader reader(table);
  // Wide: the deltas come from the target, up to 2^31 each over up to a million entries.
  int64_t line = 0;
  int32_t address = 0;
  uint8_t first;
  while (reader.Next(first)) {
    if (!(first & 0x80)) break;  // every entry starts with the high bit set
    const int code = (first >> 3) & 15;
    const int32_t length = (first & 7) + 1;
    RelativeRange range;
    range.start = address;
    range.end = address + length;
    bool ok = true;
    if (code == kNoLocation) {
      range.has_line = false;
    } else if (code == kLongForm || code == kNoColumns) {
      int32_t delta;
      ok = reader.SignedVarint(delta);
      line += delta;
      range.has_line = true;
      range.line = line;
      if (ok && code == kLongForm) {
        // End line delta, then column + 1 and end column + 1 (0: none).
        uint32_t end_delta = 0, col = 0, end_col = 0;
        ok = reader.Varint(end_delta) && reader.Varint(col) && reader.Varint(end_col);
        range.end_line_delta = end_delta;
        range.column = static_cast<int32_t>(col) - 1;
        range.end_column = static_cast<int32_t>(end_col) - 1;
      }
    } else if (code >= kOneLineFirst && code <= kOneLineLast) {
      line += code - kOneLineFirst;
      range.has_line = true;
      range.line = line;
      uint8_t col = 0, end_col = 0;
      ok = reader.Next(col) && reader.Next(end_col);
      range.column = col;
      range.end_column = end_col;
    } else {  // short form: the column's high bits in the code, low 3 bits and length in one byte
      uint8_t byte = 0;
      ok = reader.Next(byte);
      range.has_line = true;
      range.line = line;
      range.column = code * 8 + ((byte >> 4) & 7);
      range.end_column = range.column + (byte & 15);
    }
    if (!ok) break;
    ranges.push_back(range);
    address += length;
  }
  return out;
}

LineRange LineTable::Resolve(const RelativeRange& range, int first_line) const {
  LineRange out;
  out.start = range.start;
  out.end = range.end;
  if (!range.has_line) {
    out.column = range.column;
    out.end_column = range.end_column;
    return out;  // no line, no end line
  }
  // Wide: co_firstlineno comes from the target too; a line outside int's range is shown as no
  // line rather than overflowing.
  int64_t line = int64_t{first_line} + range.line;
  if (kind == Kind::kLegacy) {
    out.line = line < 0 || line > std::numeric_limits<int32_t>::max() ? -1 : static_cast<int32_t>(line);
    return out;  // lines only
  }
  int64_t end_line = line + range.end_line_delta;
  if (line < std::numeric_limits<int>::min() || line > std::numeric_limits<int>::max()) line = -1;
  if (line < 0 || end_line < line || end_line > std::numeric_limits<int>::max()) end_line = -1;
  out.line = static_cast<int32_t>(line);
  out.end_line = static_cast<int32_t>(end_line);
  out.column = range.column;
  out.end_column = range.end_column;
  return out;
}

std::vector<LineRange> LineTable::Resolved(int first_line) const {
  std::vector<LineRange> out;
  out.reserve(ranges.size());
  for (const RelativeRange& range : ranges) out.push_back(Resolve(range, first_line));
  return out;
}

std::vector<LineRange> DecodeLocationTable(std::string_view table, int first_line) {
  return DecodeLocationTableOnce(table).Resolved(first_line);
}

namespace {

// The range holding `instruction_index`, or null.
template <typename Range>
const Range* FindRange(const std::vector<Range>& ranges, int64_t instruction_index) {
  auto found = std::upper_bound(
      ranges.begin(), ranges.end(), instruction_index,
      [](int64_t index, const Range& range) { return index < range.end; });
  if (found == ranges.end() || instruction_index < found->start) return nullptr;
  return &*found;
}

// Before the first instruction (a frame that has not started): CPython reports the first line,
// as PyCode_Addr2Line does for negative offsets. `range` holds the instruction, or is null.
SourcePosition PositionIn(const LineRange* range, int first_line, int64_t instruction_index) {
  SourcePosition position;
  if (instruction_index < 0) {
    position.line = first_line;
    return position;
  }
  if (range == nullptr || range->line < 0) return position;
  auto known = [](int32_t value) { return value < 0 ? std::nullopt : std::optional<int>(value); };
  position.line = range->line;
  position.end_line = known(range->end_line);
  position.column = known(range->column);
  position.end_column = known(range->end_column);
  return position;
}

}  // namespace

std::optional<int> LineForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index) {
  return PositionForInstruction(ranges, first_line, instruction_index).line;
}

SourcePosition PositionForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index) {
  return PositionIn(FindRange(ranges, instruction_index), first_line, instruction_index);
}

std::optional<int> LineForInstruction(const LineTable& table, int first_line,
                                      int64_t instruction_index) {
  return PositionForInstruction(table, first_line, instruction_index).line;
}

SourcePosition PositionForInstruction(const LineTable& table, int first_line,
                                      int64_t instruction_index) {
  const RelativeRange* found = FindRange(table.ranges, instruction_index);
  if (found == nullptr) return PositionIn(nullptr, first_line, instruction_index);
  const LineRange range = table.Resolve(*found, first_line);
  return PositionIn(&range, first_line, instruction_index);
}

}  // namespace pyunwind
