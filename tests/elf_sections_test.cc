// FindElfSection reads the files the target's modules name: a core from elsewhere may name
// any path. Only regular ELF files are read; a FIFO does not block, a terminal is not opened
// as one, a directory or device gives nothing.
#include <unistd.h>

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/target/elf_sections.h"
#include "tests/special_files.h"

namespace pyunwind {
namespace {

TEST(ElfSections, FindsASectionOfARegularElfFile) {
  // This test's own executable has a .text section at a non-zero address.
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  ASSERT_GT(n, 0);
  self[n] = '\0';
  EXPECT_TRUE(FindElfSection(self, ".text").has_value());
  EXPECT_FALSE(FindElfSection(self, ".PyRuntime").has_value());
}

TEST(ElfSections, SpecialFilesGiveNothingAndNeverBlock) {
  const SpecialFiles special("module.so");
  std::vector<std::string> paths = special.paths();
  paths.push_back(testing::TestTempPath("no-such-file.so"));
  for (const std::string& path : paths) {
    EXPECT_FALSE(FindElfSection(path, ".PyRuntime").has_value()) << path;
  }
}

}  // namespace
}  // namespace pyunwind
