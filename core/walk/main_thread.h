// Which thread state is an interpreter's main thread, from what the target
// records (never guessed from the order of the thread list):
//   - interp->threads.main, the thread running __main__: stated by
//     _Py_DebugOffsets (3.14+), or a 3.13 table fact used only when it is one
//     of the interpreter's thread states and its thread id is the runtime's
//     main_thread;
//   - else _PyRuntime.main_thread, the OS thread that started the runtime
//     (3.11-3.13 tables), when exactly one thread state has that thread id.
// Otherwise the main thread is unknown, and `source` says why.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/layout/layout.h"
#include "core/target/memory.h"

namespace pyunwind {

struct MainThread {
  uint64_t tstate = 0;  // 0: none or unknown
  std::string source;   // where it came from, or why there is none (for -v)
};

MainThread FindMainThread(RemoteMemory& memory, const Layout& layout, uint64_t runtime,
                          uint64_t interp, bool is_main_interpreter,
                          const std::vector<uint64_t>& states);

}  // namespace pyunwind
