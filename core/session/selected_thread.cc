#include "core/session/selected_thread.h"

#include <fmt/format.h>

namespace pyunwind {

Result<SelectedThread> FindSelectedThread(Snapshot& snapshot, std::optional<uint64_t> thread_id) {
  if (!thread_id) return MakeError("no thread is selected");
  for (Interpreter& interp : snapshot.interpreters) {
    for (Thread& thread : interp.threads) {
      if (thread.native_id == thread_id) return SelectedThread{&interp, &thread};
    }
  }
  return MakeError(fmt::format(
      "the selected thread (OS thread id {}) has no Python thread state", *thread_id));
}

}  // namespace pyunwind
