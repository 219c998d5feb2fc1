// What one command reads the target with: the page cache, where the runtime
// is and its layout, the object reader and the code-object cache. Every
// command opens one, so locating and walking are written once.
#pragma once

#include <memory>

#include "core/base/result.h"
#include "core/objects/objects.h"
#include "core/runtime/runtime_locator.h"
#include "core/target/memory.h"
#include "core/target/target.h"
#include "core/walk/code_objects.h"
#include "core/walk/model.h"

namespace pyunwind {

// Owns the readers of one command; they point into each other (the object
// reader reads through the cache with the located layout), so a session is
// neither copied nor moved and lives behind a unique_ptr.
class TargetSession {
 public:
  // Locates the runtime; fails with the locator's one sentence.
  static Result<std::unique_ptr<TargetSession>> Open(Target& target);

  TargetSession(const TargetSession&) = delete;
  TargetSession& operator=(const TargetSession&) = delete;

  // Every interpreter, thread and Python frame, with the locator's warnings.
  Result<Snapshot> Walk();

  const RuntimeLocation& location() const { return location_; }
  ObjectReader& objects() { return objects_; }
  CodeCache& codes() { return codes_; }
  // The reads of this command so far (--stats).
  const MemoryStats& stats() const { return memory_.stats(); }

 private:
  explicit TargetSession(Target& target);

  RemoteMemory memory_;
  RuntimeLocation location_;
  ObjectReader objects_;  // reads through memory_ with location_.layout, set by Open
  CodeCache codes_;
};

}  // namespace pyunwind
