// The source line and caret line under a frame (core/commands/source_carets.h)
// against what each interpreter's own traceback module prints for the same
// position: tests/data/location_tables_3XX.json ("carets", written by
// tests/data/make_location_tables.py under 3.11, 3.12 and 3.13.0) holds, for
// every distinct position of every instruction of its source, what
// StackSummary.format_frame_summary printed.
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/commands/source_carets.h"

namespace pyunwind {
namespace {

std::string RunfilePath(const std::string& relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr) return relative;
  return std::string(srcdir) + "/" + (workspace ? workspace : "pyunwind") + "/" + relative;
}

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

struct Version {
  std::string file;
  TracebackCaretRules rules;
};

class PythonCarets : public ::testing::TestWithParam<Version> {};

TEST_P(PythonCarets, EveryPositionAsTheTracebackModulePrintsIt) {
  const std::string path = RunfilePath("tests/data/location_tables_" + GetParam().file + ".json");
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing test data " << path;
  const nlohmann::json doc = nlohmann::json::parse(in);
  const std::vector<std::string> source = SplitLines(doc.at("source"));
  size_t checked = 0, with_carets = 0, with_anchors = 0, multi_line = 0;
  for (const auto& entry : doc.at("carets")) {
    const std::vector<int> p = entry.at("position");
    const std::vector<std::string> want = entry.at("printed");
    SourcePosition position;
    position.line = p[0];
    if (p[1] >= 0) position.end_line = p[1];
    if (p[2] >= 0) position.column = p[2];
    if (p[3] >= 0) position.end_column = p[3];
    if (p[0] < 1) continue;  // RESUME's line 0: linecache has no line 0, Python prints nothing
    ASSERT_LE(static_cast<size_t>(p[0]), source.size());
    // The frame's line and, for a span over several lines, the lines to its end.
    std::vector<std::string> lines;
    for (int k = p[0]; k <= std::max(p[0], p[1]) && static_cast<size_t>(k) <= source.size(); ++k) {
      lines.push_back(source[k - 1]);
    }
    const std::vector<std::string> got = TracebackSourceLines(lines, position, GetParam().rules);
    EXPECT_EQ(got, want) << "line " << p[0] << "-" << p[1] << " columns " << p[2] << "-" << p[3]
                         << ": " << source[p[0] - 1];
    ++checked;
    if (want.size() > 1) ++with_carets;
    if (want.size() > 1 && want[1].find('~') != std::string::npos) ++with_anchors;
    if (want.size() > 1 && p[1] > p[0]) ++multi_line;
  }
  // The data exercises what it is meant to.
  EXPECT_GT(checked, 300u);
  EXPECT_GT(with_carets, 100u);
  EXPECT_GT(with_anchors, 20u);
  EXPECT_GT(multi_line, 3u);
}

INSTANTIATE_TEST_SUITE_P(Versions, PythonCarets,
                         ::testing::Values(Version{"311", TracebackCaretRules::kPython311},
                                           Version{"312", TracebackCaretRules::kPython312},
                                           Version{"313", TracebackCaretRules::kPython313}),
                         [](const auto& info) { return "python_" + info.param.file; });

TEST(SourceCarets, BlankLineShowsNothingAndUnknownColumnsOnlyTheLine) {
  SourcePosition position;
  position.line = 3;
  EXPECT_TRUE(TracebackSourceLines({"   \t"}, position, TracebackCaretRules::kPython311).empty());
  EXPECT_EQ(TracebackSourceLines({"    return f(x)  "}, position, TracebackCaretRules::kPython311),
            std::vector<std::string>{"return f(x)"});
}

TEST(SourceCarets, ColumnsPastTheLineOrInvalidUtf8NeverCrash) {
  SourcePosition position;
  position.line = 1;
  position.end_line = 1;
  position.column = 1000;
  position.end_column = 5;
  for (const char* line : {"x = f(y)", "\xff\xfe = \xc3", "", "\x1b[2J(a) + b"}) {
    for (auto rules : {TracebackCaretRules::kPython311, TracebackCaretRules::kPython312,
                       TracebackCaretRules::kPython313}) {
      const auto got = TracebackSourceLines({line}, position, rules);
      EXPECT_LE(got.size(), 2u);
    }
  }
}

}  // namespace
}  // namespace pyunwind
