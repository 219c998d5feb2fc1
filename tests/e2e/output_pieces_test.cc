// A command's output comes out whole however the front-end writes it: `py-print` of a
// module global of 100,000 four-byte characters (tests/data/wide_text.py), live, in LLDB
// and GDB. The GDB script hands GDB the text in 64 KiB pieces, decoding UTF-8 across the
// cuts; a piece decoded on its own would turn the cut characters into U+FFFD.
#include <gtest/gtest.h>

#include <string>

#include "tests/e2e/harness.h"
#include "tests/e2e/shared_scenario.h"

namespace pyunwind_e2e {
namespace {

const std::string kWideChar = "\xF0\x9F\x98\x80";  // U+1F600 in UTF-8
// The size of the GDB script's pieces (WRITE_CHUNK in gdb_bridge/script/pyunwind_gdb/output.py).
constexpr size_t kGdbPieceBytes = 64 * 1024;

class OutputPieces : public WithSharedScenario<OutputPieces, Debugger> {};

TEST_P(OutputPieces, WideCharactersCutBetweenPiecesComeOutWhole) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const Scenario* s =
      scenario()->StartScript(kDebianPython, ProjectFile("tests/data/wide_text.py"), &error);
  ASSERT_NE(s, nullptr) << error;
  const size_t wide_chars = s->truth().at("wide_chars").get<size_t>();
  Target target;
  target.pid = s->pid();
  const RunResult r = RunDebugger(GetParam(), *install, target,
                                  {"py-print --max-chars 1048576 wide"});
  ASSERT_TRUE(r.exited) << r.Describe();

  // The command's text starts at "global 'wide' = '"; the characters follow it. A piece
  // boundary must fall inside one of them, or this test would not test the cut.
  const size_t text_start = r.out.find("global 'wide' = ");
  ASSERT_NE(text_start, std::string::npos) << r.Describe();
  const size_t first_char = r.out.find(kWideChar, text_start);
  ASSERT_NE(first_char, std::string::npos) << r.Describe();
  ASSERT_NE((kGdbPieceBytes - (first_char - text_start)) % kWideChar.size(), 0u)
      << "the first piece ends between two characters: the scenario cuts none";

  EXPECT_EQ(Occurrences(r.out, kWideChar), wide_chars) << r.Describe();
  EXPECT_EQ(Occurrences(r.out, "\xEF\xBF\xBD"), 0u) << "U+FFFD in the output\n" << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Debuggers, OutputPieces,
                         ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const ::testing::TestParamInfo<Debugger>& info) {
                           return std::string(DebuggerName(info.param));
                         });

}  // namespace
}  // namespace pyunwind_e2e
