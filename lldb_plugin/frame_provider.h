// LLDB 22 and newer: `plugin load` alone puts the Python frames into LLDB's own `bt`, by
// importing the frame provider script that the install puts beside the plugin
// (pyunwind_lldb_frames.py). An LLDB without frame providers is left as it is, silently.
#pragma once

#include <string>

#include <lldb/API/SBDebugger.h>

namespace pyunwind_lldb {

// Set to "0" to keep LLDB's own `bt` (no provider is imported).
inline constexpr const char* kFrameProviderEnv = "PYUNWIND_LLDB_FRAME_PROVIDER";

// Imports the provider when this LLDB has frame providers and kFrameProviderEnv is not "0";
// a failed import is said in one line on stderr.
void ImportFrameProvider(lldb::SBDebugger& debugger);

// For `py-bt -v`: whether this LLDB's own bt shows the Python frames, and why not.
std::string FrameProviderNote();

}  // namespace pyunwind_lldb
