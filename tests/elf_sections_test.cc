// FindElfSection reads the files the target's modules name: a core from elsewhere may name
// any path. Only regular ELF files are read; a FIFO does not block, a terminal is not opened
// as one, a directory or device gives nothing.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/target/elf_sections.h"

namespace pyunwind {
namespace {

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

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
  const std::string fifo = TempPath("module.so");
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);  // no writer: a plain open() would wait forever
  const int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  const std::string terminal = ptsname(master);
  for (const std::string& path : {fifo, terminal, std::string("/dev/zero"),
                                  std::string("/dev/null"), TempPath(""),
                                  TempPath("no-such-file.so")}) {
    EXPECT_FALSE(FindElfSection(path, ".PyRuntime").has_value()) << path;
  }
  close(master);
  unlink(fifo.c_str());
}

}  // namespace
}  // namespace pyunwind
