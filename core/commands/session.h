// What one command reads the target with: the page cache, where the runtime
// is and its layout, the object reader and the code-object cache. Every
// command opens one, so locating and walking are written once.
#pragma once

#include <memory>

#include "core/walk/code_objects.h"
#include "core/target/memory.h"
#include "core/walk/model.h"
#include "core/objects/objects.h"
#include "core/base/result.h"
#include "core/runtime/runtime_locator.h"
#include "core/target/target.h"

namespace pyunwind {

class TargetSession {
 public:
  // Locates the runtime; fails with the locator's one sentence.
  static Result<std::unique_ptr<TargetSession>> Open(Target& target);

  // Every interpreter, thread and Python frame, with the locator's warnings.
  Result<Snapshot> Walk();

  TargetSession(const TargetSession&) = delete;
  TargetSession& operator=(const TargetSession&) = delete;

  RemoteMemory memory;
  RuntimeLocation location;
  ObjectReader objects;  // reads through `memory` with `location.layout`, set by Open
  CodeCache codes;

 private:
  explicit TargetSession(Target& target);
};

}  // namespace pyunwind
