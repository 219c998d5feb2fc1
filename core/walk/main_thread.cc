#include "core/walk/main_thread.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace pyunwind {

MainThread FindMainThread(RemoteMemory& memory, const Layout& l, uint64_t runtime, uint64_t interp,
                          bool is_main_interpreter, const std::vector<uint64_t>& states) {
  auto thread_id = [&](uint64_t tstate) {
    return memory.ReadValue<uint64_t>(tstate + l.tstate.thread_id);
  };
  std::optional<uint64_t> runtime_id;
  if (is_main_interpreter && l.runtime.main_thread != kAbsent) {
    runtime_id = memory.ReadValue<uint64_t>(runtime + l.runtime.main_thread);
  }
  if (l.interp.threads_main != kAbsent) {
    const char* from = l.interp.threads_main_from_table ? "table" : "_Py_DebugOffsets";
    auto main = memory.ReadPointer(interp + l.interp.threads_main);
    if (!main) return {0, fmt::format("unknown: cannot read interp->threads.main ({})", from)};
    if (*main != 0) {
      if (std::find(states.begin(), states.end(), *main) == states.end()) {
        return {0, fmt::format("unknown: interp->threads.main ({}) is {:#x}, none of the "
                               "interpreter's thread states", from, *main)};
      }
      if (!l.interp.threads_main_from_table) {
        return {*main, "from interp->threads.main (_Py_DebugOffsets)"};
      }
      // A table's offset must agree with the runtime's own record.
      if (!runtime_id) {
        return {0, "unknown: interp->threads.main (table) cannot be checked against "
                   "_PyRuntime.main_thread"};
      }
      auto id = thread_id(*main);
      if (!id || *id != *runtime_id) {
        return {0, fmt::format("unknown: interp->threads.main (table) has thread id {:#x}, "
                               "_PyRuntime.main_thread (table) {:#x}",
                               id.value_or(0), *runtime_id)};
      }
      return {*main, "from interp->threads.main (table), agreeing with _PyRuntime.main_thread"};
    }
    if (!l.interp.threads_main_from_table) {
      return {0, "none: interp->threads.main (_Py_DebugOffsets) is NULL"};
    }
  }
  if (!is_main_interpreter) return {0, "none: not the main interpreter"};
  if (!runtime_id) {
    return {0, l.runtime.main_thread == kAbsent ? "unknown: this build's layout records none"
                                                : "unknown: cannot read _PyRuntime.main_thread"};
  }
  uint64_t found = 0;
  for (uint64_t tstate : states) {
    auto id = thread_id(tstate);
    if (!id || *id != *runtime_id) continue;
    if (found) return {0, "unknown: two thread states have _PyRuntime.main_thread's thread id"};
    found = tstate;
  }
  if (!found) {
    return {0, fmt::format("none: no thread state has _PyRuntime.main_thread's thread id {:#x}",
                           *runtime_id)};
  }
  return {found, "from _PyRuntime.main_thread (table)"};
}

}  // namespace pyunwind
