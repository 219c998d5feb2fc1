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

std::vector<LineRange> DecodeLocationTable(std::string_view table, int first_line) {
  std::vector<LineRange> ranges;
  Reader reader(table);
  // Wide: the deltas and co_firstlineno come from the target, and a line
  // outside int's range is shown as no line rather than overflowing.
  int64_t line = first_line;
  int32_t address = 0;
  uint8_t first;
  while (reader.Next(first)) {
    if (!(first & 0x80)) break;  // every entry starts with the high bit set
    const int code = (first >> 3) & 15;
    const int32_t length = (first & 7) + 1;
    int64_t entry_line = line;
    int64_t end_line = -1;
    int32_t column = -1, end_column = -1;
    bool ok = true;
    if (code == kNoLocation) {
      entry_line = -1;
    } else if (code == kLongForm || code == kNoColumns) {
      int32_t delta;
      ok = reader.SignedVarint(delta);
      line += delta;
      entry_line = line;
      end_line = line;
      if (ok && code == kLongForm) {
        // End line delta, then column + 1 and end column + 1 (0: none).
        uint32_t end_delta = 0, col = 0, end_col = 0;
        ok = reader.Varint(end_delta) && reader.Varint(col) && reader.Varint(end_col);
        end_line = line + end_delta;
        column = static_cast<int32_t>(col) - 1;
        end_column = static_cast<int32_t>(end_col) - 1;
      }
    } else if (code >= kOneLineFirst && code <= kOneLineLast) {
      line += code - kOneLineFirst;
      entry_line = line;
      end_line = line;
      uint8_t col = 0, end_col = 0;
      ok = reader.Next(col) && reader.Next(end_col);
      column = col;
      end_column = end_col;
    } else {  // short form: the column's high bits in the code, low 3 bits and length in one byte
      uint8_t byte = 0;
      ok = reader.Next(byte);
      column = code * 8 + ((byte >> 4) & 7);
      end_column = column + (byte & 15);
      end_line = line;
    }
    if (!ok) break;
    if (entry_line < std::numeric_limits<int>::min() || entry_line > std::numeric_limits<int>::max()) {
      entry_line = -1;
    }
    if (entry_line < 0 || end_line < entry_line || end_line > std::numeric_limits<int>::max()) {
      end_line = -1;
    }
    ranges.push_back({address, address + length, static_cast<int>(entry_line),
                      static_cast<int>(end_line), column, end_column});
    address += length;
  }
  return ranges;
}

std::optional<int> LineForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index) {
  // Before the first instruction (a frame that has not started): CPython
  // reports the first line, as PyCode_Addr2Line does for negative offsets.
  if (instruction_index < 0) return first_line;
  auto found = std::upper_bound(
      ranges.begin(), ranges.end(), instruction_index,
      [](int64_t index, const LineRange& range) { return index < range.end; });
  if (found == ranges.end() || instruction_index < found->start || found->line < 0) {
    return std::nullopt;
  }
  return found->line;
}

SourcePosition PositionForInstruction(const std::vector<LineRange>& ranges, int first_line,
                                      int64_t instruction_index) {
  SourcePosition position;
  position.line = LineForInstruction(ranges, first_line, instruction_index);
  if (instruction_index < 0 || !position.line) return position;
  auto found = std::upper_bound(
      ranges.begin(), ranges.end(), instruction_index,
      [](int64_t index, const LineRange& range) { return index < range.end; });
  auto known = [](int32_t value) { return value < 0 ? std::nullopt : std::optional<int>(value); };
  position.end_line = known(found->end_line);
  position.column = known(found->column);
  position.end_column = known(found->end_column);
  return position;
}

}  // namespace pyunwind
