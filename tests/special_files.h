// Files a hostile target can name where a source file or an ELF module is expected: a FIFO
// with no writer (a plain open() waits for ever), the far end of a pseudo-terminal (opening it
// could make it the debugger's controlling terminal), /dev/zero (never ends), /dev/null and a
// directory. Made once per test; removed when it ends.
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "tests/temp_dir.h"

namespace pyunwind {

class SpecialFiles {
 public:
  // `fifo_name`: the FIFO's name, shaped like what the caller expects (a.py, module.so).
  explicit SpecialFiles(const std::string& fifo_name) : fifo_(testing::TestTempPath(fifo_name)) {
    unlink(fifo_.c_str());
    EXPECT_EQ(mkfifo(fifo_.c_str(), 0600), 0) << fifo_;
    terminal_master_ = posix_openpt(O_RDWR | O_NOCTTY);
    EXPECT_GE(terminal_master_, 0);
    if (terminal_master_ >= 0) {
      EXPECT_EQ(grantpt(terminal_master_), 0);
      EXPECT_EQ(unlockpt(terminal_master_), 0);
      terminal_ = ptsname(terminal_master_);
    }
  }
  ~SpecialFiles() {
    unlink(fifo_.c_str());
    if (terminal_master_ >= 0) close(terminal_master_);
  }
  SpecialFiles(const SpecialFiles&) = delete;
  SpecialFiles& operator=(const SpecialFiles&) = delete;

  std::vector<std::string> paths() const {
    return {fifo_, terminal_, "/dev/zero", "/dev/null", testing::TestTempPath("")};
  }

 private:
  std::string fifo_;
  std::string terminal_;
  int terminal_master_ = -1;
};

}  // namespace pyunwind
