// What commands read the target with: the page cache, where the runtime is
// and its layout, the object reader, the code-object cache, the walk and the
// debugger's native frames. A command opens one (TargetSession::Open), or
// reuses the one an earlier command opened at the same stop (StopCache,
// stop_cache.h), so locating and walking are written, and done, once.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/base/result.h"
#include "core/objects/objects.h"
#include "core/runtime/runtime_locator.h"
#include "core/target/forwarding_target.h"
#include "core/target/memory.h"
#include "core/target/target.h"
#include "core/walk/code_objects.h"
#include "core/walk/model.h"
#include "core/walk/threads.h"

namespace pyunwind {

// The Target a session reads through: the front-ends make a new Target object
// for every command, so a session kept between commands is pointed at the
// current one while a command runs, and at none in between (every read then
// fails rather than touch a Target that is gone).
class RelayTarget final : public ForwardingTarget {
 public:
  void Point(Target* target) { ForwardTo(target); }
};

// The readers point into each other (the object reader reads through the
// cache with the located layout), so a session is neither copied nor moved and
// lives behind a pointer.
class TargetSession {
 public:
  // Locates the runtime through `target`, which must outlive the session;
  // fails with the locator's one sentence.
  static Result<std::unique_ptr<TargetSession>> Open(Target& target);
  // The same, reading through `relay`, pointed at a Target by its owner.
  static Result<std::unique_ptr<TargetSession>> OpenRelayed(std::unique_ptr<RelayTarget> relay);

  TargetSession(const TargetSession&) = delete;
  TargetSession& operator=(const TargetSession&) = delete;

  // Every interpreter, thread and Python frame, with the locator's warnings.
  // Walked anew on every call, from the pages and code objects kept: a walk
  // over cached memory costs less than copying the snapshot it makes (whose
  // fresh memory is what a debugger's heap pays for; bench/README.md).
  // `observer` (may be null) sees each thread as it is done. With `frames_of_thread`, only
  // that OS thread's frames are walked (WalkOptions::frames_of_thread).
  Result<Snapshot> Walk(WalkObserver* observer = nullptr,
                        std::optional<uint64_t> frames_of_thread = std::nullopt);

  // The debugger's backtrace of a thread, asked of the debugger once.
  const std::vector<NativeFrame>& NativeFrames(uint64_t thread_id);

  const RuntimeLocation& location() const { return location_; }
  ObjectReader& objects() { return objects_; }
  CodeCache& codes() { return codes_; }
  RemoteMemory& memory() { return memory_; }
  // The reads of this command so far (--stats).
  const MemoryStats& stats() const { return memory_.stats(); }

  // For a session kept between commands (StopCache): the next command reads
  // through `target` (nullptr: none), with its own stats and read budget.
  void StartCommand(Target* target);
  void EndCommand() { relay_->Point(nullptr); }
  // Whether an earlier command of this stop opened it (--stats says so).
  bool kept() const { return commands_ > 1; }

 private:
  TargetSession(Target& target, std::unique_ptr<RelayTarget> relay);
  // The runtime's location and layout, and its str hash's secret (str_hash.h).
  Status Locate();

  std::unique_ptr<RelayTarget> relay_;  // null for Open(Target&)
  RemoteMemory memory_;
  RuntimeLocation location_;
  ObjectReader objects_;  // reads through memory_ with location_.layout, set by Open
  CodeCache codes_;
  std::map<uint64_t, std::vector<NativeFrame>> native_frames_;
  uint64_t commands_ = 1;
};

}  // namespace pyunwind
