#include "lldb_plugin/sb_api.h"

#include <gtest/gtest.h>

namespace pyunwind_lldb {
namespace {

TEST(LldbMajorOf, DebianAndUpstreamVersionStrings) {
  EXPECT_EQ(LldbMajorOf("lldb version 14.0.6"), 14);
  EXPECT_EQ(LldbMajorOf("lldb version 13.0.1"), 13);
  EXPECT_EQ(LldbMajorOf("lldb version 22.1.8"), 22);
  EXPECT_EQ(LldbMajorOf("lldb version 19.0.0git (https://github.com/llvm/llvm-project.git revision 1)"), 19);
  EXPECT_EQ(LldbMajorOf("lldb-1500.0.22.8"), -1);  // Apple's own numbering: no version check
  EXPECT_EQ(LldbMajorOf(""), -1);
  EXPECT_EQ(LldbMajorOf("lldb version "), -1);
}

// Outside LLDB (this test links no liblldb) the check says why, in one line, and never calls
// a symbol that is not there.
TEST(WhyLldbCannotServe, OneLineWithoutLldb) {
  const std::string why = WhyLldbCannotServe();
  // This test binary leaves no lldb::SB* symbol undefined, so nothing is missing...
  EXPECT_EQ(why.find('\n'), std::string::npos);
  // ...unless the test hook names one.
  setenv(kRequireSymbolsEnv, "_ZN4lldb10SBDebugger21NoSuchCallForPyunwindEv", 1);
  const std::string hooked = WhyLldbCannotServe();
  unsetenv(kRequireSymbolsEnv);
  EXPECT_EQ(hooked,
            "pyunwind: not loaded: this LLDB lacks lldb::SBDebugger::NoSuchCallForPyunwind(), "
            "which pyunwind calls");
}

}  // namespace
}  // namespace pyunwind_lldb
