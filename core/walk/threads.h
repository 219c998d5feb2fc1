// Interpreters and their thread states: the top of the walk.
#pragma once

#include <cstdint>
#include <optional>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"
#include "core/base/result.h"

namespace pyunwind {

// Sees the walk's threads as each is done: py-bt --all prints one thread while
// the next is read.
class WalkObserver {
 public:
  virtual ~WalkObserver() = default;
  // How many interpreters the runtime lists, before the first is walked.
  virtual void Interpreters(size_t count) = 0;
  // An interpreter with its threads' ids and states, before their names and frames.
  virtual void InterpreterStarted(const Interpreter& interp) = 0;
  // A thread of `interp` with its name and frames: done, as the snapshot will hold it.
  virtual void ThreadDone(const Interpreter& interp, Thread& thread) = 0;
};

struct WalkOptions {
  size_t max_frames_per_thread = kMaxFramesPerThread;
  WalkObserver* observer = nullptr;
  // Set: only the thread of this OS thread id has its frames walked; the others are listed
  // without any (a command about the selected thread). The work budget is then the selected
  // thread's alone, not spent on the threads before it.
  std::optional<uint64_t> frames_of_thread;
};

// Every interpreter of the runtime at `runtime_address`, each with its
// threads and their Python frames. Damage met on the way (a bad pointer, a
// cycle) cuts that list short with a warning; the walk fails as a whole only
// when not even the first interpreter can be read.
Result<Snapshot> WalkRuntime(ObjectReader& objects, CodeCache& codes, uint64_t runtime_address,
                             const WalkOptions& options);

}  // namespace pyunwind
