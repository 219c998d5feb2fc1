// The OS thread ids of thread states that do not record one (3.10 and older).
#pragma once

#include <vector>

#include "core/target/memory.h"
#include "core/walk/model.h"

namespace pyunwind {

// Before 3.11 a thread state keeps only its pthread_t (python_id), on glibc the
// address of the thread's struct pthread, where the kernel's thread id lies at an
// offset glibc does not export (0x2d0 on x86-64 glibc 2.36). The offset is found
// from the target itself: the one at which every thread's struct pthread holds the
// id of a thread the debugger lists, each a different one. Threads are left
// without a native id where no such offset exists; a warning says why.
void AssignNativeIdsFromPthreads(RemoteMemory& memory, std::vector<Thread*>& threads,
                                 std::vector<std::string>& warnings);

}  // namespace pyunwind
