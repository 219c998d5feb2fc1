// ReadSourceLines reads only regular files, never blocks, and bounds what it
// reads: the path is the target's choice.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/base/limits.h"
#include "core/pysource/source_file.h"
#include "tests/special_files.h"

namespace pyunwind {
namespace {


std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = testing::TestTempPath(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

TEST(SourceFile, ReadsTheLinesAsked) {
  const std::string path = WriteFile("a.py", "one\ntwo\r\nthree\nfour");
  auto lines = ReadSourceLines(path, 2, 4);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  EXPECT_EQ(lines->first, 2);
  EXPECT_EQ(lines->lines, (std::vector<std::string>{"two", "three", "four"}));
  lines = ReadSourceLines(path, 0, 1);
  ASSERT_TRUE(lines.ok());
  EXPECT_EQ(lines->first, 1);
  EXPECT_EQ(lines->lines, (std::vector<std::string>{"one"}));
  lines = ReadSourceLines(path, 9, 12);
  ASSERT_TRUE(lines.ok());
  EXPECT_TRUE(lines->lines.empty());
}

// The lines a traceback needs, by number: only those, cut and ended as above; numbers past
// the end have none. A buffer's worth of lines before them (16 KiB) is skipped, not kept.
TEST(SourceFile, ReadsTheNumberedLinesAsked) {
  std::string text;
  for (int i = 1; i <= 3000; ++i) text += "line " + std::to_string(i) + "\n";
  text += std::string(kMaxSourceLineLength + 10, 'x') + "\r\n" + "last";  // 3001, 3002
  const std::string path = WriteFile("numbered.py", text);
  auto lines = ReadNumberedSourceLines(path, {2, 1999, 2000, 3001, 3002, 3003, 9000});
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  std::vector<std::pair<int, std::string>> got;
  for (const NumberedLine& line : *lines) got.emplace_back(line.number, line.text);
  EXPECT_EQ(got, (std::vector<std::pair<int, std::string>>{
                     {2, "line 2"},
                     {1999, "line 1999"},
                     {2000, "line 2000"},
                     {3001, std::string(kMaxSourceLineLength, 'x') + "..."},
                     {3002, "last"}}));
  lines = ReadNumberedSourceLines(path, {});
  ASSERT_TRUE(lines.ok());
  EXPECT_TRUE(lines->empty());
  EXPECT_FALSE(ReadNumberedSourceLines(WriteFile("gone.py", "") + ".missing", {1}).ok());
}

TEST(SourceFile, LongLinesAreCut) {
  const std::string path = WriteFile("long.py", std::string(kMaxSourceLineLength + 10, 'x') + "\nnext\n");
  auto lines = ReadSourceLines(path, 1, 2);
  ASSERT_TRUE(lines.ok());
  ASSERT_EQ(lines->lines.size(), 2u);
  EXPECT_EQ(lines->lines[0], std::string(kMaxSourceLineLength, 'x') + "...");
  EXPECT_EQ(lines->lines[1], "next");
}

TEST(SourceFile, MissingFileSaysWhy) {
  auto lines = ReadSourceLines(testing::TestTempPath("no-such.py"), 1, 3);
  ASSERT_FALSE(lines.ok());
  EXPECT_NE(lines.error().message.find("No such file or directory"), std::string::npos)
      << lines.error().message;
}

TEST(SourceFile, SpecialFilesAreNotRead) {
  const SpecialFiles special("fifo.py");
  for (const std::string& path : special.paths()) {
    auto lines = ReadSourceLines(path, 1, 10);
    ASSERT_FALSE(lines.ok()) << path;
    EXPECT_EQ(lines.error().message, "'" + path + "' is not a regular file: its source is not read");
  }
}

// A regular file is read up to kMaxSourceFileBytes: a line after that is not there.
TEST(SourceFile, ReadsAtMostTheByteBound) {
  const std::string path = testing::TestTempPath("huge.py");
  {
    std::ofstream out(path, std::ios::binary);
    out << "first\n";
  }
  // A sparse hole of NUL bytes up to the bound, then two more lines.
  ASSERT_EQ(truncate(path.c_str(), static_cast<off_t>(kMaxSourceFileBytes)), 0);
  {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << "\nbeyond\nthe bound\n";
  }
  auto lines = ReadSourceLines(path, 1, 3);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  ASSERT_EQ(lines->lines.size(), 2u);
  EXPECT_EQ(lines->lines[0], "first");
  EXPECT_EQ(lines->lines[1], std::string(kMaxSourceLineLength, '\0') + "...");
  unlink(path.c_str());
}

}  // namespace
}  // namespace pyunwind
