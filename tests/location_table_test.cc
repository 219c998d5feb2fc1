// Location-table decoding (core/walk/location_table.h) against the lines CPython
// itself reports. tests/data/location_tables_3XX.json are written by
// tests/data/make_location_tables.py run under 3.11, 3.12, 3.13 and (by hand,
// Debian unstable's 3.14.10 and 3.15.2: ../shared/notes/machine.md) 3.14, 3.15: for each
// code object, co_firstlineno, co_linetable and the line of every code unit
// (-1 where Python has none). Hand-made tables cover malformed input.
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/walk/location_table.h"

namespace pyunwind {
namespace {

std::string RunfilePath(const std::string& relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr) return relative;  // run by hand from the workspace root
  return std::string(srcdir) + "/" + (workspace ? workspace : "pyunwind") + "/" + relative;
}

std::string FromHex(const std::string& hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return bytes;
}

class PythonTables : public ::testing::TestWithParam<std::string> {};

TEST_P(PythonTables, EveryInstructionHasPythonsLine) {
  const std::string path = RunfilePath("tests/data/location_tables_" + GetParam() + ".json");
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing test data " << path;
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto& code_objects = doc.at("code_objects");
  ASSERT_GT(code_objects.size(), 20u);
  size_t checked = 0;
  bool saw_no_location = false, saw_backwards = false, saw_big_jump = false, saw_late = false;
  bool saw_columns = false, saw_multi_line = false, saw_wide_column = false;
  for (const auto& code : code_objects) {
    const std::string qualname = code.at("qualname");
    const int first_line = code.at("firstlineno");
    const std::string table = FromHex(code.at("linetable"));
    const std::vector<int> lines = code.at("lines");
    const std::vector<std::vector<int>> positions = code.at("positions");
    const std::vector<LineRange> ranges = DecodeLocationTable(table, first_line);
    ASSERT_EQ(positions.size(), lines.size()) << qualname;
    for (size_t i = 0; i < positions.size(); ++i) {
      // co_positions() of every code unit: line, end line, column, end column.
      const SourcePosition got = PositionForInstruction(ranges, first_line, i);
      auto value = [](std::optional<int> v) { return v.value_or(-1); };
      const std::vector<int> have = {value(got.line), value(got.end_line), value(got.column),
                                     value(got.end_column)};
      EXPECT_EQ(have, positions[i]) << qualname << " code unit " << i;
      if (positions[i][2] >= 0) saw_columns = true;
      if (positions[i][1] > positions[i][0]) saw_multi_line = true;
      if (positions[i][3] > 127) saw_wide_column = true;
    }
    int previous = -1;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::optional<int> got = LineForInstruction(ranges, first_line, i);
      if (lines[i] < 0) {
        EXPECT_EQ(got, std::nullopt) << qualname << " code unit " << i;
        saw_no_location = true;
      } else {
        EXPECT_EQ(got, std::optional<int>(lines[i])) << qualname << " code unit " << i;
        if (previous >= 0 && lines[i] < previous) saw_backwards = true;
        if (previous >= 0 && lines[i] - previous > 2048) saw_big_jump = true;
        if (lines[i] >= 1000) saw_late = true;
        previous = lines[i];
      }
      ++checked;
    }
    // The table covers exactly the bytecode: one past the end has no line.
    EXPECT_EQ(LineForInstruction(ranges, first_line, lines.size()), std::nullopt) << qualname;
    ASSERT_FALSE(ranges.empty()) << qualname;
    EXPECT_EQ(ranges.back().end, static_cast<int32_t>(lines.size())) << qualname;
    // Before the first instruction: the first line, as PyCode_Addr2Line says.
    EXPECT_EQ(LineForInstruction(ranges, first_line, -1), std::optional<int>(first_line));
  }
  EXPECT_GT(checked, 500u);
  // The data exercises what it is meant to.
  EXPECT_TRUE(saw_backwards);
  EXPECT_TRUE(saw_big_jump);
  EXPECT_TRUE(saw_late);
  EXPECT_TRUE(saw_columns);
  EXPECT_TRUE(saw_multi_line);
  EXPECT_TRUE(saw_wide_column);
  if (GetParam() == "311") { EXPECT_TRUE(saw_no_location); }
}

INSTANTIATE_TEST_SUITE_P(Versions, PythonTables, ::testing::Values("311", "312", "313", "314", "315"),
                         [](const auto& info) { return "python_" + info.param; });

// Entry header byte: 1 (high bit), code (4 bits), length - 1 (3 bits).
char Header(int code, int length) {
  return static_cast<char>(0x80 | (code << 3) | (length - 1));
}

TEST(LocationTableEdges, EmptyTableHasNoLines) {
  const auto ranges = DecodeLocationTable("", 10);
  EXPECT_TRUE(ranges.empty());
  EXPECT_EQ(LineForInstruction(ranges, 10, 0), std::nullopt);
  EXPECT_EQ(LineForInstruction(ranges, 10, 5), std::nullopt);
  EXPECT_EQ(LineForInstruction(ranges, 10, -1), std::optional<int>(10));
}

TEST(LocationTableEdges, NoColumnsEntriesWithSignedDeltas) {
  // 13 = no columns, signed varint delta: +3 (6), then -2 (5).
  const std::string table = {Header(13, 2), 6, Header(13, 1), 5};
  const auto ranges = DecodeLocationTable(table, 100);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(LineForInstruction(ranges, 100, 0), std::optional<int>(103));
  EXPECT_EQ(LineForInstruction(ranges, 100, 1), std::optional<int>(103));
  EXPECT_EQ(LineForInstruction(ranges, 100, 2), std::optional<int>(101));
  EXPECT_EQ(LineForInstruction(ranges, 100, 3), std::nullopt);
}

TEST(LocationTableEdges, LinesPastIntAreNoLinesNotOverflow) {
  // co_firstlineno and the deltas come from the target: INT_MAX + 3 has no
  // line (and no signed overflow, which the sanitizer build would report);
  // coming back below INT_MAX gives lines again.
  const int top = std::numeric_limits<int>::max();
  const std::string table = {Header(13, 1), 6, Header(13, 1), 7, Header(13, 1), 5};
  const auto ranges = DecodeLocationTable(table, top);
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(LineForInstruction(ranges, top, 0), std::nullopt);
  EXPECT_EQ(LineForInstruction(ranges, top, 1), std::optional<int>(top));
  EXPECT_EQ(LineForInstruction(ranges, top, 2), std::optional<int>(top - 2));
  const auto low = DecodeLocationTable(std::string{Header(13, 1), 7}, std::numeric_limits<int>::min());
  ASSERT_EQ(low.size(), 1u);
  EXPECT_EQ(low[0].line, -1);
}

TEST(LocationTableEdges, MultiByteVarintDelta) {
  // Delta +100 -> zigzag 200 = 0b11_001000: low 6 bits 8 with continue bit, then 3.
  const std::string table = {Header(13, 1), static_cast<char>(64 | 8), 3};
  const auto ranges = DecodeLocationTable(table, 1);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(LineForInstruction(ranges, 1, 0), std::optional<int>(101));
}

TEST(LocationTableEdges, ShortOneLineLongAndNoLocationForms) {
  const std::string table = {
      Header(0, 1), 0,                 // short form: same line (first line 7)
      Header(11, 2), 4, 9,             // one-line form: line + 1 = 8, two column bytes
      Header(14, 1), 4, 1, 0, 10,      // long form: +2 -> 10, end line delta, columns
      Header(15, 3),                   // no location
      Header(12, 1), 1, 2,             // one-line form: +2 -> 12 (no location kept the line)
  };
  const auto ranges = DecodeLocationTable(table, 7);
  ASSERT_EQ(ranges.size(), 5u);
  const std::vector<std::optional<int>> want = {7, 8, 8, 10, std::nullopt, std::nullopt,
                                                std::nullopt, 12};
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(LineForInstruction(ranges, 7, i), want[i]) << "code unit " << i;
  }
  EXPECT_EQ(LineForInstruction(ranges, 7, want.size()), std::nullopt);
}

TEST(LocationTableEdges, TruncatedVarintStopsDecoding) {
  // A good entry, then a no-columns entry whose varint says "more follows" and ends.
  const std::string table = {Header(13, 2), 2, Header(13, 1), static_cast<char>(64 | 5)};
  const auto ranges = DecodeLocationTable(table, 20);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(LineForInstruction(ranges, 20, 1), std::optional<int>(21));
  EXPECT_EQ(LineForInstruction(ranges, 20, 2), std::nullopt);
}

TEST(LocationTableEdges, TruncatedColumnsStopDecoding) {
  const std::string long_form = {Header(13, 1), 0, Header(14, 1), 2, 0};  // columns missing
  EXPECT_EQ(DecodeLocationTable(long_form, 5).size(), 1u);
  const std::string one_line = {Header(13, 1), 0, Header(10, 1), 3};  // one column byte of two
  EXPECT_EQ(DecodeLocationTable(one_line, 5).size(), 1u);
  const std::string short_form = {Header(13, 1), 0, Header(3, 1)};  // no column byte
  EXPECT_EQ(DecodeLocationTable(short_form, 5).size(), 1u);
}

TEST(LocationTableEdges, EntryWithoutHighBitEndsTheTable) {
  const std::string table = {Header(13, 1), 2, 0x13, Header(13, 1), 2};
  const auto ranges = DecodeLocationTable(table, 1);
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(LineForInstruction(ranges, 1, 0), std::optional<int>(2));
  EXPECT_EQ(LineForInstruction(ranges, 1, 1), std::nullopt);
}

TEST(LocationTableEdges, IndexPastTheEndAndNegativeIndex) {
  const std::string table = {Header(13, 8), 4, Header(13, 8), 2};
  const auto ranges = DecodeLocationTable(table, 50);
  EXPECT_EQ(LineForInstruction(ranges, 50, 15), std::optional<int>(53));
  EXPECT_EQ(LineForInstruction(ranges, 50, 16), std::nullopt);
  EXPECT_EQ(LineForInstruction(ranges, 50, 1'000'000'000'000), std::nullopt);
  EXPECT_EQ(LineForInstruction(ranges, 50, -1), std::optional<int>(50));
  EXPECT_EQ(LineForInstruction(ranges, 50, -1'000'000'000'000), std::optional<int>(50));
}

TEST(LocationTableEdges, GarbageNeverCrashes) {
  // Every two-byte and a spread of longer inputs decode without crashing,
  // into ranges that are contiguous from 0.
  std::string table(6, '\0');
  uint32_t seed = 12345;
  for (int round = 0; round < 20000; ++round) {
    for (char& c : table) {
      seed = seed * 1103515245 + 12345;
      c = static_cast<char>((seed >> 16) | 0x80 * (round % 2));
    }
    const auto ranges = DecodeLocationTable(table, round);
    int32_t expected_start = 0;
    for (const LineRange& range : ranges) {
      EXPECT_EQ(range.start, expected_start);
      EXPECT_GT(range.end, range.start);
      expected_start = range.end;
    }
    (void)LineForInstruction(ranges, round, round % 50 - 5);
  }
}

// A table decoded once (CodeCache keeps one decoding for every code object that shares the
// table) gives, for any first line, what the table decoded with that first line gives: random
// tables, first lines at both ends of int's range, every instruction.
TEST(LocationTableEdges, DecodedOnceIsTheSameForEveryFirstLine) {
  std::string table(24, '\0');
  uint32_t seed = 777;
  const int first_lines[] = {0, 1, 7, -3, 1 << 20, std::numeric_limits<int>::max(),
                             std::numeric_limits<int>::max() - 5, std::numeric_limits<int>::min(),
                             std::numeric_limits<int>::min() + 9};
  for (int round = 0; round < 3000; ++round) {
    for (char& c : table) {
      seed = seed * 1103515245 + 12345;
      c = static_cast<char>((seed >> 16) | (round % 3 == 0 ? 0 : 0x80));
    }
    const LineTable once = DecodeLocationTableOnce(table);
    for (int first_line : first_lines) {
      const std::vector<LineRange> ranges = DecodeLocationTable(table, first_line);
      ASSERT_EQ(ranges.size(), once.ranges.size());
      for (int64_t index = -1; index <= (ranges.empty() ? 0 : ranges.back().end); ++index) {
        EXPECT_EQ(PositionForInstruction(once, first_line, index),
                  PositionForInstruction(ranges, first_line, index))
            << "round " << round << ", first line " << first_line << ", index " << index;
      }
    }
  }
}

}  // namespace
}  // namespace pyunwind
