// A command's text when LLDB's own command line runs it (typed at the prompt, `-o`, a
// command file) goes straight to the debugger's output file. Handed to the result instead,
// LLDB keeps it twice, each copy grown by doubling (the result and the session transcript),
// then prints it one write(2) per line (LLDB 14; two in 15 and later): for `py-bt --all` on
// 3,069 frames 9,271 writes and about 20 ms, for the 45 MB of `py-tasks --json` on 100,000
// tasks about 0.8 s and 80 MB. The price: `session save` does not hold that text (LLDB 19
// and later keep no transcript unless `interpreter.save-transcript` is on).
//
// Not for a command a client of LLDB's API runs (a Python script, a scripted command or frame
// provider, lldb-dap): it calls HandleCommand and reads the text from the result.
#pragma once

#include <string_view>

#include <lldb/API/SBCommandReturnObject.h>
#include <lldb/API/SBDebugger.h>
#include <lldb/API/SBFile.h>

namespace pyunwind_lldb {

// Whether this thread runs a command for a client of LLDB's API: one of its frames is in
// SBCommandInterpreter::HandleCommand or SBDebugger::HandleCommand (exported by liblldb, so
// their extents are known exactly), or in libpython (a script, whatever it called). LLDB's
// own command line calls neither. An editor's debug console (lldb-dap) is such a client
// (tests/e2e/frame_provider_test.cc).
bool RunForApiClient();

// The debugger's output file when LLDB's command line runs the command: its command
// interpreter is the active input handler, no API client runs it, and nothing has set the
// result's immediate output (a stop hook's, which LLDB prints in its own place). Otherwise an
// invalid file: the text goes into the result.
lldb::SBFile CommandLineOutputFile(lldb::SBDebugger& debugger,
                                   lldb::SBCommandReturnObject& result);

// Writes all of `text` to `file` (a pipe may take it in parts); stops at the first error, as
// LLDB does with a command's output.
void WriteAll(lldb::SBFile& file, std::string_view text);

}  // namespace pyunwind_lldb
