// Whether the LLDB that loads the plugin can serve it.
//
// The plugin links no liblldb (BUILD): its lldb::SB* calls are undefined symbols that bind,
// lazily, to the liblldb of the LLDB that loads it. Before PluginInitialize registers any
// command it checks, without calling any of them, that
//   * the loading LLDB is 14 or later (SBDebugger::GetVersionString, found with dlsym), and
//   * every lldb::SB* symbol the plugin leaves undefined (read from the plugin's own dynamic
//     symbol table, so the list never goes stale) resolves in this process.
// A liblldb loaded into a local scope (Python's `import lldb`) is first promoted to the global
// scope, so that the plugin's calls bind to it.
// If not, the plugin prints one line and registers nothing: LLDB keeps running; a call to a
// missing symbol would end the debugger ("symbol lookup error").
#pragma once

#include <string>

namespace pyunwind_lldb {

// The oldest LLDB major the plugin serves (the SB headers it is built with are 14's).
inline constexpr int kOldestLldbMajor = 14;

// Test hook: a comma-separated list of extra mangled symbol names the check requires, as if
// the plugin called them (tests/e2e/lldb_versions_test.cc names one that no LLDB has).
inline constexpr const char* kRequireSymbolsEnv = "PYUNWIND_LLDB_REQUIRE_SYMBOLS";

// "" when this process's LLDB serves the plugin; else the one line saying why not
// ("pyunwind: not loaded: ...").
std::string WhyLldbCannotServe();

// The major version in an LLDB version string ("lldb version 19.1.7 ..." -> 19), or -1 when
// the string has no "lldb version N" in it (a vendor's own numbering).
int LldbMajorOf(const std::string& version);

}  // namespace pyunwind_lldb
