// The line tables of CPython 2.7 and 3.7-3.10 (core/walk/legacy_line_tables.h) against the
// lines the interpreters themselves report. The legacy_line_tables_*.json of tests/data (27,
// 37, 38, 39, 310) are written by tests/data/make_legacy_line_tables.py under pyenv's 2.7.18,
// 3.7.16, 3.8.18, 3.9.18 and 3.10.13: for each code object, co_firstlineno, its table
// (co_lnotab; 3.10: co_linetable) and PyCode_Addr2Line at every code unit's byte offset
// (-1: no line, 3.10 only), and at the offset of one code unit before the first (a frame
// that has not started). 2.7's code units are bytes, its lnotab's line deltas unsigned.
#include <fstream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/walk/legacy_line_tables.h"
#include "core/walk/location_table.h"
#include "tests/fixture_facts.h"

namespace pyunwind {
namespace {

using testing::FromHex;
using testing::RunfilePath;

struct Data {
  std::string minor;  // "27", "37" ... "310"
  std::string python;
};

void PrintTo(const Data& d, std::ostream* os) { *os << d.python; }

class LegacyLineTables : public ::testing::TestWithParam<Data> {};

TEST_P(LegacyLineTables, EveryInstructionHasPythonsLine) {
  const Data& data = GetParam();
  const std::string path = RunfilePath("tests/data/legacy_line_tables_" + data.minor + ".json");
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing test data " << path;
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(doc.at("python"), data.python);
  const bool is_310 = data.minor == "310";
  const bool is_27 = data.minor == "27";
  const size_t unit_bytes = is_27 ? 1 : 2;
  EXPECT_EQ(doc.at("table"), is_310 ? "co_linetable" : "co_lnotab");
  const auto& code_objects = doc.at("code_objects");
  ASSERT_GT(code_objects.size(), is_27 ? 25u : 30u);  // 2.7 compiles no async defs

  size_t checked = 0;
  bool saw_no_line = false, saw_backwards = false, saw_jump_over_255 = false;
  bool saw_long_code = false, saw_late = false;
  for (const auto& code : code_objects) {
    const std::string name = code.at("name");
    const int first_line = code.at("firstlineno");
    const std::string table = FromHex(code.at("table"));
    const std::vector<int> lines = code.at("lines");
    const std::vector<LineRange> ranges =
        is_310  ? DecodeLineTable310(table, first_line)
        : is_27 ? DecodeLnotab27(table, first_line)
                : DecodeLnotab(table, first_line);
    // Decoded once (what CodeCache keeps for every code object sharing the table), with this
    // first line and with one 1000 lines further.
    const LineTable once = is_310  ? DecodeLineTable310Once(table)
                           : is_27 ? DecodeLnotab27Once(table)
                                   : DecodeLnotabOnce(table);
    int previous = -1;
    for (size_t i = 0; i < lines.size(); ++i) {
      const std::optional<int> got = LineForInstruction(ranges, first_line, i);
      const std::optional<int> want = lines[i] < 0 ? std::nullopt : std::optional<int>(lines[i]);
      EXPECT_EQ(got, want) << "Python " << data.python << ": " << name << " code unit " << i
                           << " (byte " << unit_bytes * i << ")";
      EXPECT_EQ(LineForInstruction(once, first_line, i), want) << name << " code unit " << i;
      EXPECT_EQ(LineForInstruction(once, first_line + 1000, i),
                want ? std::optional<int>(*want + 1000) : std::nullopt)
          << name << " code unit " << i;
      ++checked;
      if (!want) {
        saw_no_line = true;
        continue;
      }
      if (previous >= 0 && lines[i] < previous) saw_backwards = true;
      if (previous >= 0 && lines[i] - previous > 255) saw_jump_over_255 = true;
      if (lines[i] >= 5000) saw_late = true;
      previous = lines[i];
    }
    if (lines.size() * unit_bytes > 510) saw_long_code = true;
    // A frame that has not started (f_lasti -1) is on the first line.
    EXPECT_EQ(LineForInstruction(ranges, first_line, -1), std::optional<int>(code.at("before_start")))
        << name;
  }
  EXPECT_GT(checked, 1000u);
  // The data exercises what the tables encode in more than one pair.
  EXPECT_TRUE(saw_jump_over_255);
  EXPECT_TRUE(saw_long_code);
  EXPECT_TRUE(saw_late);
  // 2.7's and 3.7's compilers only move forward; 3.8+ emits negative line deltas, 3.10
  // lineless ranges.
  EXPECT_EQ(saw_backwards, data.minor != "37" && !is_27);
  EXPECT_EQ(saw_no_line, is_310);
}

INSTANTIATE_TEST_SUITE_P(Versions, LegacyLineTables,
                         ::testing::Values(Data{"27", "2.7.18"}, Data{"37", "3.7.16"},
                                           Data{"38", "3.8.18"},
                                           Data{"39", "3.9.18"}, Data{"310", "3.10.13"}),
                         [](const auto& info) { return "Python" + info.param.minor; });

// Hand-made tables: what the decoders make of the edges of the formats.
TEST(LegacyLineTables, LnotabEdges) {
  // No pairs: every instruction is on the first line.
  EXPECT_EQ(LineForInstruction(DecodeLnotab("", 7), 7, 0), 7);
  EXPECT_EQ(LineForInstruction(DecodeLnotab("", 7), 7, 1000), 7);
  // (6 bytes, +2), (0 bytes, +1) (a line jump split in two pairs), (4 bytes, -3).
  const std::string table("\x06\x02\x00\x01\x04\xfd", 6);
  const auto ranges = DecodeLnotab(table, 10);
  EXPECT_EQ(LineForInstruction(ranges, 10, 2), 10);  // byte 4
  EXPECT_EQ(LineForInstruction(ranges, 10, 3), 13);  // byte 6
  EXPECT_EQ(LineForInstruction(ranges, 10, 4), 13);  // byte 8
  EXPECT_EQ(LineForInstruction(ranges, 10, 5), 10);  // byte 10: back 3 lines
  EXPECT_EQ(LineForInstruction(ranges, 10, 500), 10);
  // A trailing odd byte is ignored.
  EXPECT_EQ(LineForInstruction(DecodeLnotab(std::string("\x02\x01\x05", 3), 1), 1, 1), 2);
}

TEST(LegacyLineTables, Lnotab27Edges) {
  // The same pairs as LnotabEdges: 2.7 reads 0xfd as 253 more lines, and counts single bytes.
  const std::string table("\x06\x02\x00\x01\x04\xfd", 6);
  const auto ranges = DecodeLnotab27(table, 10);
  EXPECT_EQ(LineForInstruction(ranges, 10, 5), 10);   // byte 5
  EXPECT_EQ(LineForInstruction(ranges, 10, 6), 13);   // byte 6
  EXPECT_EQ(LineForInstruction(ranges, 10, 9), 13);   // byte 9: an odd offset
  EXPECT_EQ(LineForInstruction(ranges, 10, 10), 266);  // byte 10: forward 253 lines
  EXPECT_EQ(LineForInstruction(ranges, 10, -1), 10);  // not started
}

TEST(LegacyLineTables, LineTable310Edges) {
  // Empty: no instruction has a line.
  EXPECT_EQ(LineForInstruction(DecodeLineTable310("", 7), 7, 0), std::nullopt);
  // (4 bytes, +0), (2 bytes, no line), (254 bytes, +1), (0 bytes, +1), (2 bytes, +0).
  const std::string table("\x04\x00\x02\x80\xfe\x01\x00\x01\x02\x00", 10);
  const auto ranges = DecodeLineTable310(table, 3);
  EXPECT_EQ(LineForInstruction(ranges, 3, 0), 3);
  EXPECT_EQ(LineForInstruction(ranges, 3, 1), 3);
  EXPECT_EQ(LineForInstruction(ranges, 3, 2), std::nullopt);
  EXPECT_EQ(LineForInstruction(ranges, 3, 3), 4);
  EXPECT_EQ(LineForInstruction(ranges, 3, 129), 4);
  EXPECT_EQ(LineForInstruction(ranges, 3, 130), 5);
  EXPECT_EQ(LineForInstruction(ranges, 3, 131), std::nullopt);  // past the end
}

}  // namespace
}  // namespace pyunwind
