// Where a test writes its files: one place for the unit and the end-to-end tests.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace pyunwind::testing {

// $TEST_TMPDIR under `bazel test` (Bazel empties it); a test binary run by hand gets a
// private directory under /tmp, made once, so that two runs do not share files.
inline const std::filesystem::path& TestTempDir() {
  static const std::filesystem::path dir = [] {
    if (const char* bazel = std::getenv("TEST_TMPDIR"); bazel != nullptr && *bazel != '\0') {
      return std::filesystem::path(bazel);
    }
    char name[] = "/tmp/pyunwind-test.XXXXXX";
    const char* made = mkdtemp(name);
    return std::filesystem::path(made != nullptr ? made : "/tmp");
  }();
  return dir;
}

// A path under TestTempDir().
inline std::string TestTempPath(const std::string& name) { return (TestTempDir() / name).string(); }

}  // namespace pyunwind::testing
