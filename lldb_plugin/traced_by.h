// Whether a process on this host is debugged by a server this debugger started, read from
// /proc/PID/status alone (no debugger call): LLDB starts the lldb-server that debugs a local
// process itself, as its child, and that server is the process's tracer.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace pyunwind_lldb {

// The number after "NAME:" in /proc/PID/status ("TracerPid", "PPid", "Threads"); none if the
// file or the field cannot be read.
std::optional<uint64_t> ProcStatusNumber(uint64_t pid, std::string_view name);

// True when this host's process `pid` is ptrace-traced by a child of process `debugger_pid`
// and has `threads` threads.
bool TracedByChildOf(uint64_t pid, uint64_t debugger_pid, uint64_t threads);

}  // namespace pyunwind_lldb
