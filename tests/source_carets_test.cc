// The source line and caret line under a frame (core/pysource/source_carets.h)
// against what each interpreter's own traceback module prints for the same
// position: tests/data/location_tables_3XX.json ("carets", written by
// tests/data/make_location_tables.py under 3.11, 3.12, 3.13.0, and by hand
// under Debian unstable's 3.14.10 and 3.15.2) holds, for
// every distinct position of every instruction of its source, what
// StackSummary.format_frame_summary printed.
#include <algorithm>
#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/base/limits.h"
#include "core/layout/layout.h"
#include "core/layout/minor_versions.h"
#include "core/pysource/source_carets.h"
#include "core/pysource/source_lines.h"
#include "core/render/format.h"

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
  size_t positions;  // of the data (docs/commands.md says how many)
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
  EXPECT_EQ(checked, GetParam().positions);
  EXPECT_GT(with_carets, 100u);
  EXPECT_GT(with_anchors, 20u);
  EXPECT_GT(multi_line, 3u);
}

INSTANTIATE_TEST_SUITE_P(Versions, PythonCarets,
                         ::testing::Values(Version{"311", TracebackCaretRules::kPython311, 346},
                                           Version{"312", TracebackCaretRules::kPython312, 341},
                                           Version{"313", TracebackCaretRules::kPython313, 318},
                                           Version{"314", TracebackCaretRules::kPython313, 318},
                                           Version{"315", TracebackCaretRules::kPython313, 318}),
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

TEST(SourceCarets, EachMinorDrawsItsOwnTracebackRules) {
  auto v311 = LayoutFromTable(0x030B02F0);
  auto v312 = LayoutFromTable(0x030C01F0);
  ASSERT_TRUE(v311.ok() && v312.ok());
  EXPECT_EQ(v311->caret_rules, TracebackCaretRules::kPython311);
  EXPECT_EQ(v312->caret_rules, TracebackCaretRules::kPython312);
  for (int minor : {13, 14, 15}) {  // 3.14 and 3.15: 3.13's (docs/commands.md, Source lines)
    Layout layout;
    const MinorVersion* known = FindMinorVersion(minor);
    ASSERT_NE(known, nullptr) << minor;
    known->add_facts(layout);
    EXPECT_EQ(layout.caret_rules, TracebackCaretRules::kPython313) << "3." << minor;
  }
}

// 3.13: a call over three lines is shown whole; without every line of the
// span, or past kMaxTracebackSpanLines, only the first line.
TEST(SourceCarets, Python313ShowsTheWholeSpanOrItsFirstLineOnly) {
  SourcePosition position;
  position.line = 10;
  position.end_line = 12;
  position.column = 12;  // f(...)
  position.end_column = 5;
  const std::vector<std::string> lines = {"    y = 1 + f(", "        a,", "    )"};
  EXPECT_EQ(TracebackSourceLines(lines, position, TracebackCaretRules::kPython313),
            (std::vector<std::string>{"y = 1 + f(", "        ~^", "    a,", "    ^^", ")", "^"}));
  EXPECT_EQ(TracebackSourceLines({lines[0], lines[1]}, position, TracebackCaretRules::kPython313),
            std::vector<std::string>{"y = 1 + f("});
  position.end_line = 10 + kMaxTracebackSpanLines;
  std::vector<std::string> many(kMaxTracebackSpanLines + 1, "        a,");
  many.front() = lines[0];
  EXPECT_EQ(TracebackSourceLines(many, position, TracebackCaretRules::kPython313),
            std::vector<std::string>{"y = 1 + f("});
}

// AddSourceLines gives frames the lines of their spans until one command has
// read kMaxTracebackSpanLinesPerCommand of them; later frames show their first line.
TEST(SourceCarets, SpanLinesPerCommandAreBounded) {
  // A name and mode SourcePolicy reads (source_policy.h): *.py, world-readable.
  char path[] = "/tmp/pyunwind-spans-XXXXXX.py";
  const int fd = mkstemps(path, 3);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(fchmod(fd, 0644), 0);
  std::string text = "x = f(\n";
  for (int k = 0; k < 4000; ++k) text += "    a,\n";
  text += ")\n";
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
  close(fd);
  Snapshot snapshot;
  snapshot.interpreters.emplace_back();
  snapshot.interpreters[0].threads.emplace_back();
  const size_t frames = kMaxTracebackSpanLinesPerCommand / 4001 + 2;
  auto names = std::make_shared<const CodeNames>(CodeNames{path, "", ""});
  snapshot.interpreters[0].threads[0].code_names_kept.push_back(names);
  for (size_t k = 0; k < frames; ++k) {
    Frame frame;
    frame.code_names = names.get();
    frame.line = 1;
    frame.end_line = 4002;
    frame.column = 4;
    frame.end_column = 1;
    snapshot.interpreters[0].threads[0].frames.push_back(frame);
  }
  (void)AddSourceLines(snapshot, SourceOrigin{});
  unlink(path);
  size_t read = 0, whole = 0;
  for (const Frame& frame : snapshot.interpreters[0].threads[0].frames) {
    ASSERT_TRUE(frame.source);
    read += frame.source->span_lines.size();
    if (frame.source->span_lines.size() == 4001) ++whole;
  }
  EXPECT_LE(read, kMaxTracebackSpanLinesPerCommand);
  EXPECT_EQ(whole, kMaxTracebackSpanLinesPerCommand / 4001);
  // Frames at the same lines share one SourceText: the span is held once.
  const std::vector<Frame>& all = snapshot.interpreters[0].threads[0].frames;
  EXPECT_EQ(all.front().source, all[1].source);
  EXPECT_NE(all.front().source, all.back().source);
  const Frame& last = snapshot.interpreters[0].threads[0].frames.back();
  SourcePosition position{last.line, last.end_line, last.column, last.end_column};
  EXPECT_EQ(TracebackSourceLines({last.source->line}, position, TracebackCaretRules::kPython313),
            std::vector<std::string>{"x = f("});
}

}  // namespace
}  // namespace pyunwind
