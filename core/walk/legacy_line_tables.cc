#include "core/walk/legacy_line_tables.h"

#include <cstdint>
#include <limits>
#include <optional>

namespace pyunwind {
namespace {

// Ranges are kept in code units, as the 3.11+ table's: 2 bytes since 3.6's wordcode, 1 in 2.7.
constexpr int kBytesPerCodeUnit = 2;

// Lines are kept relative to the first line (LineTable): one decoding serves every code object
// that shares the table.
void AddRange(std::vector<RelativeRange>& ranges, int64_t start_byte, int64_t end_byte,
              std::optional<int64_t> line, int bytes_per_unit = kBytesPerCodeUnit) {
  RelativeRange range;
  range.start = static_cast<int32_t>(start_byte / bytes_per_unit);
  range.end = static_cast<int32_t>(end_byte / bytes_per_unit);
  if (range.end <= range.start) return;
  range.has_line = line.has_value();
  range.line = line.value_or(0);
  ranges.push_back(range);
}

LineTable Legacy() {
  LineTable table;
  table.kind = LineTable::Kind::kLegacy;
  return table;
}

// Both co_lnotabs: pairs of (bytes, line delta); a pair's line holds from the
// address the bytes reach on.
LineTable DecodeLnotabOf(std::string_view table, bool signed_deltas, int bytes_per_unit) {
  LineTable out = Legacy();
  int64_t start = 0;
  int64_t address = 0;
  int64_t line = 0;
  for (size_t i = 0; i + 1 < table.size(); i += 2) {
    address += static_cast<uint8_t>(table[i]);
    if (address > start) {
      AddRange(out.ranges, start, address, line, bytes_per_unit);
      start = address;
    }
    line += signed_deltas ? int64_t{static_cast<int8_t>(table[i + 1])}
                          : int64_t{static_cast<uint8_t>(table[i + 1])};
  }
  AddRange(out.ranges, start, std::numeric_limits<int32_t>::max(), line, bytes_per_unit);
  return out;
}

}  // namespace

LineTable DecodeLnotabOnce(std::string_view table) {
  return DecodeLnotabOf(table, true, kBytesPerCodeUnit);
}

LineTable DecodeLnotab27Once(std::string_view table) { return DecodeLnotabOf(table, false, 1); }

LineTable DecodeLineTable310Once(std::string_view table) {
  LineTable out = Legacy();
  int64_t end = 0;
  int64_t line = 0;
  for (size_t i = 0; i + 1 < table.size(); i += 2) {
    const int64_t start = end;
    end += static_cast<uint8_t>(table[i]);
    const int8_t delta = static_cast<int8_t>(table[i + 1]);
    if (delta != -128) line += delta;
    AddRange(out.ranges, start, end, delta == -128 ? std::nullopt : std::optional<int64_t>(line));
  }
  return out;
}

std::vector<LineRange> DecodeLnotab(std::string_view table, int first_line) {
  return DecodeLnotabOnce(table).Resolved(first_line);
}

std::vector<LineRange> DecodeLnotab27(std::string_view table, int first_line) {
  return DecodeLnotab27Once(table).Resolved(first_line);
}

std::vector<LineRange> DecodeLineTable310(std::string_view table, int first_line) {
  return DecodeLineTable310Once(table).Resolved(first_line);
}

}  // namespace pyunwind
