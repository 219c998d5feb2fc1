// The fixture cores of every CPython version (<shared>/fixtures/cores/VERSION/{threads,scale}),
// read without their executables (which are not on this machine): `py-bt --all --json` in
// LLDB and GDB must match the truth.json captured with each core.
//
// Versions other than 3.11 fail until the unwinder supports them; that is expected, and
// these stay real assertions. This target is separate from the 3.11 tests so those stay
// independent of it.
#include <dirent.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

struct CoreCase {
  std::string version;   // e.g. "3.14.7-shared"
  std::string scenario;  // "threads" or "scale"
  Debugger debugger;
  std::string Dir() const { return SharedDir() + "/fixtures/cores/" + version + "/" + scenario; }
};

void PrintTo(const CoreCase& c, std::ostream* os) {
  *os << c.version << "/" << c.scenario << " in " << DebuggerName(c.debugger);
}

std::vector<std::string> Subdirs(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != ".." && FileExists(dir + "/" + name + "/.")) names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Every VERSION/{threads,scale} with a core.xz, LLDB and GDB cases of one core next to each
// other (the decompressed core is kept only until the next core is needed).
std::vector<CoreCase> AllCases() {
  std::vector<CoreCase> cases;
  std::string cores = SharedDir() + "/fixtures/cores";
  for (const auto& version : Subdirs(cores)) {
    for (const char* scenario : {"threads", "scale"}) {
      std::string dir = cores + "/" + version + "/" + scenario;
      if (!FileExists(dir + "/core.xz") || !FileExists(dir + "/truth.json")) continue;
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cases.push_back({version, scenario, d});
    }
  }
  return cases;
}

class FixtureCores : public ::testing::TestWithParam<CoreCase> {
 public:
  static void TearDownTestSuite() { Forget(); }

 protected:
  // The decompressed core of `c` in $TEST_TMPDIR (cores can be 1 GB apparent size: one at
  // a time).
  static std::string CoreOf(const CoreCase& c, std::string* error) {
    if (current_dir_ == c.Dir()) {
      *error = current_error_;
      return current_core_;
    }
    Forget();
    current_dir_ = c.Dir();
    std::string path = TempDir() + "/" + SanitizeName(c.version + "_" + c.scenario) + ".core";
    if (DecompressXz(c.Dir() + "/core.xz", path, &current_error_)) current_core_ = path;
    *error = current_error_;
    return current_core_;
  }

  static void Forget() {
    if (!current_core_.empty()) unlink(current_core_.c_str());
    current_dir_.clear();
    current_core_.clear();
    current_error_.clear();
  }

  static std::string current_dir_, current_core_, current_error_;
};

std::string FixtureCores::current_dir_, FixtureCores::current_core_, FixtureCores::current_error_;

TEST_P(FixtureCores, PyBtAllJsonMatchesTruth) {
  const CoreCase& c = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;

  json truth;
  try {
    truth = json::parse(ReadFile(c.Dir() + "/truth.json"));
  } catch (const std::exception& e) {
    FAIL() << "cannot parse " << c.Dir() << "/truth.json: " << e.what();
  }
  std::string core = CoreOf(c, &error);
  ASSERT_FALSE(core.empty()) << error;

  Target target;
  target.core = core;  // no executable: these interpreters are not on this machine
  std::string mismatch = PyBtAllMismatch(c.debugger, *install, target, truth);
  EXPECT_TRUE(mismatch.empty()) << c.Dir() << "/truth.json: " << mismatch;
}

INSTANTIATE_TEST_SUITE_P(Cores, FixtureCores, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<CoreCase>& info) {
                           return SanitizeName("v" + info.param.version + "_" +
                                               info.param.scenario + "_" +
                                               DebuggerName(info.param.debugger));
                         });

// With no cores found, the suite above would be empty and pass silently.
TEST(FixtureCoresPresent, SharedFixturesAreThere) {
  EXPECT_FALSE(AllCases().empty()) << "no fixture cores under " << SharedDir()
                                   << "/fixtures/cores (set PYUNWIND_SHARED_DIR?)";
}

}  // namespace
}  // namespace pyunwind_e2e
