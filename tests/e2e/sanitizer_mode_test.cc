// `bazel test --config=asan`: the debuggers of the end-to-end tests really run pyunwind's
// instrumented plugin and bridge under ASan (rather than hanging, as GDB did before
// libasan_first.so, or running without the runtime). Skipped in the normal mode.
#include <cstdlib>

#include <gtest/gtest.h>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

class SanitizerMode : public ::testing::TestWithParam<Debugger> {};

TEST_P(SanitizerMode, DebuggerRunsPyunwindWithAsansRuntime) {
  const char* preload = std::getenv("PYUNWIND_ASAN_PRELOAD");
  if (preload == nullptr || *preload == '\0') {
    GTEST_SKIP() << "not the asan mode ($PYUNWIND_ASAN_PRELOAD is set by --config=asan)";
  }
  const Debugger d = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  // The installed library is the instrumented build.
  const std::string library = d == Debugger::kLldb ? install->lldb_plugin
                                                   : install->dir + "/libpyunwind_gdb.so";
  EXPECT_NE(ReadFile(library).find("__asan_report_load"), std::string::npos) << library;

  // The debugger's own memory map once pyunwind is loaded, then one command (an error: no
  // process; LLDB --batch stops at it).
  const std::string show_maps = "cat /proc/$PPID/maps";
  RunResult r = RunDebugger(d, *install, Target{},
                            {d == Debugger::kLldb ? "platform shell " + show_maps
                                                  : "shell " + show_maps,
                             "py-bt"},
                            60);
  ASSERT_FALSE(r.timed_out) << r.Describe();
  EXPECT_TRUE(r.exited) << r.Describe();
  for (const char* mapped : {"libasan.so", "libasan_first.so",
                             d == Debugger::kLldb ? "libpyunwind_lldb.so" : "libpyunwind_gdb.so"}) {
    EXPECT_NE(r.out.find(mapped), std::string::npos) << mapped << " not mapped\n" << r.Describe();
  }
  EXPECT_EQ(LinesContaining(r.out + r.err, "pyunwind: ").size(), 1u) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Debuggers, SanitizerMode,
                         ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const ::testing::TestParamInfo<Debugger>& info) {
                           return std::string(DebuggerName(info.param));
                         });

}  // namespace
}  // namespace pyunwind_e2e
