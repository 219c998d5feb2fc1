// Test helpers for the fixture cores of ../shared/fixtures/cores/VERSION/SCENARIO:
// where they are, which versions have a scenario, and a decompressed copy.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "tests/fixture_facts.h"
#include "tests/temp_dir.h"

namespace pyunwind::testing {

// ../shared/fixtures (SharedFixturesLookedAt); empty when absent.
inline std::filesystem::path SharedFixtures(const std::string& anchor) {
  const std::filesystem::path fixtures = SharedFixturesLookedAt(anchor);
  std::error_code ec;
  if (fixtures.empty() || !std::filesystem::is_directory(fixtures, ec)) return {};
  return fixtures;
}

// The versions with a core of `scenario`, sorted; {"none"} when there are
// none, so that a parameterized suite still has a case that can say why.
inline std::vector<std::string> VersionsWithScenario(const std::string& anchor,
                                                     const std::string& scenario) {
  namespace fs = std::filesystem;
  std::vector<std::string> versions;
  const fs::path fixtures = SharedFixtures(anchor);
  std::error_code ec;
  if (fixtures.empty() || !fs::is_directory(fixtures / "cores", ec)) return {"none"};
  for (const auto& entry : fs::directory_iterator(fixtures / "cores")) {
    if (fs::exists(entry.path() / scenario / "core.xz")) {
      versions.push_back(entry.path().filename().string());
    }
  }
  std::sort(versions.begin(), versions.end());
  if (versions.empty()) return {"none"};
  return versions;
}

// A core.xz decompressed into the test's temporary directory, removed afterwards.
class DecompressedCore {
 public:
  DecompressedCore(const std::filesystem::path& xz, const std::string& name) {
    path_ = TestTempDir() / (name + ".core");
    const std::string command = "xz -dc '" + xz.string() + "' > '" + path_.string() + "'";
    ok_ = std::system(command.c_str()) == 0;
  }
  ~DecompressedCore() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  DecompressedCore(const DecompressedCore&) = delete;
  DecompressedCore& operator=(const DecompressedCore&) = delete;
  bool ok() const { return ok_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  bool ok_ = false;
};

}  // namespace pyunwind::testing
