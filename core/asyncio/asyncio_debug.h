// The _asyncio module's own description of its structures (3.14+):
// Py_AsyncioModuleDebugOffsets, the `_AsyncioDebug` variable that CPython
// places in the ".AsyncioDebug" section for out-of-process readers like
// Modules/_remote_debugging. It says where a task keeps its name, coroutine,
// awaiters and list node, and where interpreters and threads keep their task
// lists and running task.
#pragma once

#include <cstdint>
#include <string>

#include "core/layout/layout.h"
#include "core/target/memory.h"
#include "core/base/result.h"

namespace pyunwind {

struct AsyncioDebugOffsets {
  uint64_t address = 0;
  std::string found_by;  // "the _AsyncioDebug symbol", "the .AsyncioDebug section of X", "a scan ..."
  // struct _asyncio_task_object
  uint64_t task_size = 0;
  uint64_t task_name = 0;
  uint64_t task_awaited_by = 0;
  uint64_t task_is_task = 0;
  uint64_t task_awaited_by_is_set = 0;
  uint64_t task_coro = 0;
  uint64_t task_node = 0;
  // struct _asyncio_interpreter_state
  uint64_t interp_size = 0;
  uint64_t interp_tasks_head = 0;
  // struct _asyncio_thread_state
  uint64_t thread_size = 0;
  uint64_t thread_running_loop = 0;
  uint64_t thread_running_task = 0;
  uint64_t thread_tasks_head = 0;
};

inline constexpr size_t kAsyncioDebugSize = 13 * 8;

// Decodes a block and checks it against facts the target states elsewhere:
// its interpreter-state size must be the one in _Py_DebugOffsets, its thread
// state at least PyThreadState, and every offset inside its struct and past
// the object header. An error says which check failed.
Result<AsyncioDebugOffsets> DecodeAsyncioDebug(const uint8_t* block, const Layout& layout);

// Finds the block: the debugger's symbol, then the ".AsyncioDebug" section of
// each loaded module's file on disk (as CPython's own reader does), then a
// scan of writable memory (a core with no binaries keeps the data segment).
Result<AsyncioDebugOffsets> FindAsyncioDebug(RemoteMemory& memory, const Layout& layout);

}  // namespace pyunwind
