#include "core/walk/legacy_line_tables.h"

#include <cstdint>
#include <limits>

namespace pyunwind {
namespace {

// Ranges are kept in code units, as the 3.11+ table's: 2 bytes since 3.6's wordcode, 1 in 2.7.
constexpr int kBytesPerCodeUnit = 2;

void AddRange(std::vector<LineRange>& ranges, int64_t start_byte, int64_t end_byte, int64_t line,
              int bytes_per_unit = kBytesPerCodeUnit) {
  LineRange range;
  range.start = static_cast<int32_t>(start_byte / bytes_per_unit);
  range.end = static_cast<int32_t>(end_byte / bytes_per_unit);
  if (range.end <= range.start) return;
  range.line = line < 0 || line > std::numeric_limits<int32_t>::max() ? -1 : static_cast<int32_t>(line);
  ranges.push_back(range);
}

}  // namespace

// Both co_lnotabs: pairs of (bytes, line delta); a pair's line holds from the
// address the bytes reach on.
std::vector<LineRange> DecodeLnotabOf(std::string_view table, int first_line, bool signed_deltas,
                                      int bytes_per_unit) {
  std::vector<LineRange> ranges;
  int64_t start = 0;
  int64_t address = 0;
  int64_t line = first_line;
  for (size_t i = 0; i + 1 < table.size(); i += 2) {
    address += static_cast<uint8_t>(table[i]);
    if (address > start) {
      AddRange(ranges, start, address, line, bytes_per_unit);
      start = address;
    }
    line += signed_deltas ? int64_t{static_cast<int8_t>(table[i + 1])}
                          : int64_t{static_cast<uint8_t>(table[i + 1])};
  }
  AddRange(ranges, start, std::numeric_limits<int32_t>::max(), line, bytes_per_unit);
  return ranges;
}

std::vector<LineRange> DecodeLnotab(std::string_view table, int first_line) {
  return DecodeLnotabOf(table, first_line, true, kBytesPerCodeUnit);
}

std::vector<LineRange> DecodeLnotab27(std::string_view table, int first_line) {
  return DecodeLnotabOf(table, first_line, false, 1);
}

std::vector<LineRange> DecodeLineTable310(std::string_view table, int first_line) {
  std::vector<LineRange> ranges;
  int64_t end = 0;
  int64_t line = first_line;
  for (size_t i = 0; i + 1 < table.size(); i += 2) {
    const int64_t start = end;
    end += static_cast<uint8_t>(table[i]);
    const int8_t delta = static_cast<int8_t>(table[i + 1]);
    if (delta != -128) line += delta;
    AddRange(ranges, start, end, delta == -128 ? -1 : line);
  }
  return ranges;
}

}  // namespace pyunwind
