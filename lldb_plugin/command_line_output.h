// A command's text when LLDB's own command line runs it (typed at the prompt, `-o`, a
// command file): LLDB prints a command's text after the command returns, one write(2) per
// line (LLDB 14; two in 15 and later) on the driver's unbuffered stdout: 9,271 writes and
// about 20 ms for `py-bt --all` on 3,069 frames. Written to the debugger's output file as the
// command hands it over (the result's immediate output file), the same bytes take a few
// writes.
//
// Not for a command a client of LLDB's API runs (a Python script, a scripted command or frame
// provider, lldb-dap): it calls HandleCommand and reads the text from the result, and with an
// immediate output file the text would reach the console too.
#pragma once

#include <lldb/API/SBCommandReturnObject.h>
#include <lldb/API/SBDebugger.h>

namespace pyunwind_lldb {

// Whether this thread runs a command for a client of LLDB's API: one of its frames is in
// SBCommandInterpreter::HandleCommand or SBDebugger::HandleCommand (exported by liblldb, so
// dladdr names them exactly), or in libpython (a script, whatever it called). LLDB's own
// command line calls neither.
bool RunForApiClient();

// Points `result`'s immediate output at the debugger's output file when LLDB's command line
// runs the command: its command interpreter is the active input handler, no API client runs
// it, and nothing has set an immediate output already (a stop hook's).
void WriteThroughWhenTyped(lldb::SBDebugger& debugger, lldb::SBCommandReturnObject& result);

}  // namespace pyunwind_lldb
