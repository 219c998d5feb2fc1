// py-bt's source lines and carets. tests/data/source_spans.py parks threads in a
// call in the middle of a line, a call over four lines, a subscript and a binary operation
// whose dunder methods park, a line of a real file holding terminal escapes, and
// time.sleep; it records, from inside the process, what its own traceback module prints
// under each frame of each parked thread. In LLDB and GDB, live and from a gcore core (no
// executable), on Debian's 3.11, pyenv's 3.12.1 and 3.13.0 and Debian unstable's 3.14 and
// 3.15 and the free-threaded 3.13t built from Debian's source (not on CI) where installed:
//   - `py-bt --all` shows, under every frame, exactly those lines (3.11 and 3.12 rules, and
//     3.13's: every line of the four-line call, calls anchored as `~~~^^^`);
//   - `py-bt --all --json --source` gives each frame's stripped line as "source", and
//     end_line/column/end_column;
//   - `--no-source` shows none; no raw control byte of the hostile line reaches the output.
// And the fixture cores of `threads` and `locals` (made from /opt/fixtures/scenarios/*.py,
// which are not here): with --source-dir <shared>/fixtures/scenarios every frame of a
// scenario file shows that file's line.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"
#include "tests/e2e/scenario_sources.h"

namespace pyunwind_e2e {
namespace {

// Bytes a terminal acts on (as tests/e2e/injection_test.cc scans for).
std::string RawControlBytes(const std::string& text) {
  std::string found;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool c0 = (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f;
    const bool rlo = text.compare(i, 3, "\xe2\x80\xae") == 0;
    if (c0 || rlo) found += "offset " + std::to_string(i) + ": ..." + text.substr(i >= 20 ? i - 20 : 0, 40) + "...\n";
    if (found.size() > 2000) break;
  }
  return found;
}

bool HasControl(const std::string& s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) return true;
  }
  return s.find("\xe2\x80\xae") != std::string::npos;
}

class SourceLines : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start("tests/data/source_spans.py"); }
};

TEST_P(SourceLines, TracebackLinesAsPythonPrintsThem) {
  const MatrixCell& cell = GetParam();
  std::string error;
  const json& truth = scenario_->truth();
  const bool python313 = truth.at("python").at("hexversion").get<int64_t>() >= 0x030D0000;

  const RunResult text = RunDebugger(cell.debugger, *install_, target_, {"py-bt --all"});
  ASSERT_TRUE(text.exited) << text.Describe();
  EXPECT_EQ(RawControlBytes(text.out + text.err), "") << text.Describe();
  EXPECT_NE(text.out.find("park('hostile') or '\\x1b]0;PWNED-TITLE\\x07\\x1b[2J\\u202e'"),
            std::string::npos)
      << text.Describe();
  size_t frames = 0, caret_lines = 0, call_anchors = 0, several_lines = 0;
  for (const auto& thread : truth.at("threads")) {
    for (const auto& frame : thread.at("frames")) {
      const std::vector<std::string> printed = frame.at("printed");
      ASSERT_FALSE(printed.empty()) << frame.dump();
      if (HasControl(printed[0])) continue;  // the hostile line: checked escaped above
      std::string block = "  File \"" + frame.at("filename").get<std::string>() + "\", line " +
                          std::to_string(frame.at("line").get<int>()) + ", in " +
                          frame.at("qualname").get<std::string>() + "\n    " + printed[0] + "\n";
      for (size_t i = 1; i < printed.size(); ++i) block += "    " + printed[i] + "\n";
      if (printed.size() > 1) ++caret_lines;
      if (printed.size() > 2) ++several_lines;
      if (printed.size() > 1 && printed[1].find("~^") != std::string::npos &&
          printed[0].find("park_here(base) * 2") != std::string::npos) {
        ++call_anchors;
      }
      EXPECT_NE(text.out.find(block), std::string::npos)
          << thread.at("role") << ": no\n" << block << "in\n" << text.out;
      ++frames;
    }
  }
  EXPECT_GT(frames, 20u);
  EXPECT_GE(caret_lines, 4u);  // middle, multiline, subscript, binop
  if (python313) {
    // What 3.13 draws that 3.12 does not: the call anchored, the call over four lines whole.
    EXPECT_GT(call_anchors, 0u);
    EXPECT_GT(several_lines, 0u);
  }

  const RunResult doc = RunDebugger(cell.debugger, *install_, target_,
                                    {"py-bt --all --json --source", "py-bt --all --no-source"});
  ASSERT_TRUE(doc.exited) << doc.Describe();
  const auto tool = ExtractJson(doc.out, &error);
  ASSERT_TRUE(tool) << error << "\n" << doc.Describe();
  std::map<int64_t, const json*> by_id;
  for (const auto& t : tool->at("interpreters").at(0).at("threads")) {
    if (t.at("native_id").is_number()) by_id[t.at("native_id").get<int64_t>()] = &t;
  }
  for (const auto& thread : truth.at("threads")) {
    const auto found = by_id.find(thread.at("native_id").get<int64_t>());
    ASSERT_NE(found, by_id.end()) << thread.at("role");
    const json& frames_json = found->second->at("frames");
    ASSERT_EQ(frames_json.size(), thread.at("frames").size()) << thread.at("role");
    for (size_t i = 0; i < frames_json.size(); ++i) {
      const json& want = thread.at("frames").at(i);
      const json& got = frames_json.at(i);
      EXPECT_EQ(got.at("source"), want.at("printed").at(0)) << thread.at("role") << " frame " << i;
      for (const char* field : {"end_line", "column", "end_column"}) {
        EXPECT_TRUE(got.at(field).is_number()) << field << " of " << got.dump();
      }
      EXPECT_GE(got.at("end_line").get<int>(), got.at("line").get<int>());
    }
  }
  // --no-source: the header lines only.
  const size_t text_start = doc.out.rfind("Traceback (most recent call first):");
  ASSERT_NE(text_start, std::string::npos) << doc.Describe();
  EXPECT_EQ(doc.out.find("    total = base + park_here(base) * 2"), std::string::npos)
      << doc.Describe();
}

INSTANTIATE_TEST_SUITE_P(Interpreters, SourceLines,
                         ::testing::ValuesIn(MatrixCells({"debian_3.11", "3.12.1", "3.13.0", "sid_3.14",
                                                          "sid_3.15", "built_3.13t"})),
                         MatrixCellName);

// ---- The fixture cores, whose scenario files are in <shared>/fixtures/scenarios here.

std::vector<std::string> FileLines(const std::string& path) {
  std::vector<std::string> lines;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string Strip(const std::string& s) {
  const size_t begin = s.find_first_not_of(" \t\r\n\f\v");
  if (begin == std::string::npos) return "";
  const size_t end = s.find_last_not_of(" \t\r\n\f\v");
  return s.substr(begin, end - begin + 1);
}

class FixtureSourceLines : public SourceTest {};

TEST_P(FixtureSourceLines, ScenarioFramesShowTheirLineWithSourceDir) {
  const std::string dir = SharedDir() + "/fixtures/scenarios";
  const std::string prefix = "/opt/fixtures/scenarios/";
  const RunResult r = RunDebugger(GetParam().debugger, install(), target(),
                                  {"py-bt --all --json --source --source-dir " + dir});
  ASSERT_TRUE(r.exited) << r.Describe();
  std::string error;
  const auto tool = ExtractJson(r.out, &error);
  ASSERT_TRUE(tool) << error << "\n" << r.Describe();
  std::map<std::string, std::vector<std::string>> files;
  size_t checked = 0;
  for (const auto& t : tool->at("interpreters").at(0).at("threads")) {
    for (const auto& f : t.at("frames")) {
      const std::string filename = f.at("filename");
      if (filename.rfind(prefix, 0) != 0 || !f.at("line").is_number()) continue;
      const std::string local = dir + "/" + filename.substr(prefix.size());
      if (!files.count(local)) files[local] = FileLines(local);
      const auto& lines = files[local];
      const int line = f.at("line");
      ASSERT_TRUE(line >= 1 && static_cast<size_t>(line) <= lines.size()) << local << ":" << line;
      EXPECT_EQ(f.at("source"), Strip(lines[line - 1])) << filename << ":" << line;
      EXPECT_TRUE(f.at("column").is_number()) << f.dump();
      ++checked;
    }
  }
  EXPECT_GT(checked, 5u) << r.out;
  // Without --source-dir the files are not on this machine: no source line.
  const RunResult plain =
      RunDebugger(GetParam().debugger, install(), target(), {"py-bt --all --json --source"});
  const auto without = ExtractJson(plain.out, &error);
  ASSERT_TRUE(without) << error << "\n" << plain.Describe();
  size_t missing = 0;
  for (const auto& t : without->at("interpreters").at(0).at("threads")) {
    for (const auto& f : t.at("frames")) {
      if (f.at("filename").get<std::string>().rfind(prefix, 0) != 0) continue;
      EXPECT_TRUE(f.at("source").is_null()) << f.dump();
      ++missing;
    }
  }
  EXPECT_EQ(missing, checked);
}

INSTANTIATE_TEST_SUITE_P(Threads, FixtureSourceLines, ::testing::ValuesIn(SourceCases("threads", {})),
                         SourceCaseName);
INSTANTIATE_TEST_SUITE_P(Locals, FixtureSourceLines, ::testing::ValuesIn(SourceCases("locals", {})),
                         SourceCaseName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(FixtureSourceLines);

}  // namespace
}  // namespace pyunwind_e2e
