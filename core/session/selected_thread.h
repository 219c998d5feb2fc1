// The debugger's selected thread in a walked snapshot: py-bt (without --all),
// py-up / py-down / py-frame, py-list and py-locals all start from it.
#pragma once

#include <cstdint>
#include <optional>

#include "core/base/result.h"
#include "core/walk/model.h"

namespace pyunwind {

struct SelectedThread {
  Interpreter* interpreter = nullptr;
  Thread* thread = nullptr;
};

// The thread of `snapshot` whose OS thread id is `thread_id`. Fails with "no
// thread is selected" or "the selected thread (OS thread id N) has no Python
// thread state".
Result<SelectedThread> FindSelectedThread(Snapshot& snapshot, std::optional<uint64_t> thread_id);

}  // namespace pyunwind
