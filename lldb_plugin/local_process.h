// Whether LLDB's live process is provably the process that /proc/PID/mem opens on this host.
//
// LLDB reports the process ID as its debug server sees it: for a gdb-remote connection (to an
// lldb-server in another PID namespace, container or machine) PID N may be a different process
// here, or none. The /proc/PID/mem fast path (core/target/proc_mem.h) is used only when this holds; every
// other read goes through SBProcess::ReadMemory, i.e. the process LLDB debugs.
#pragma once

#include <cstdint>

#include <lldb/API/SBProcess.h>

#include "core/target/proc_mem.h"

namespace pyunwind_lldb {

// True when this host's process PID is traced by a child of this debugger (the lldb-server
// LLDB started, traced_by.h) and has as many threads as LLDB lists. Else (a server LLDB
// connected to) true when (1) /proc/PID/task holds exactly LLDB's thread IDs, and (2) the 512
// bytes at the stack pointer of LLDB's selected (or first) thread read the same through LLDB
// and through `mem` (stack contents differ between any two processes: return addresses, saved
// pointers). False when none of this can be checked.
bool IsThisHostsProcess(lldb::SBProcess& process, uint64_t pid, const pyunwind::ProcMem& mem);

}  // namespace pyunwind_lldb
