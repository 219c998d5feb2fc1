// Interpreters and their thread states: the top of the walk.
#pragma once

#include <cstdint>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"
#include "core/base/result.h"

namespace pyunwind {

struct WalkOptions {
  size_t max_frames_per_thread = kMaxFramesPerThread;
};

// Every interpreter of the runtime at `runtime_address`, each with its
// threads and their Python frames. Damage met on the way (a bad pointer, a
// cycle) cuts that list short with a warning; the walk fails as a whole only
// when not even the first interpreter can be read.
Result<Snapshot> WalkRuntime(ObjectReader& objects, CodeCache& codes, uint64_t runtime_address,
                             const WalkOptions& options);

}  // namespace pyunwind
