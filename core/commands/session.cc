#include "core/commands/session.h"

#include "core/walk/threads.h"

namespace pyunwind {

TargetSession::TargetSession(Target& target)
    : memory_(target), objects_(memory_, location_.layout), codes_(objects_) {}

Result<std::unique_ptr<TargetSession>> TargetSession::Open(Target& target) {
  std::unique_ptr<TargetSession> session(new TargetSession(target));
  // Located through the session's own cache, so --stats counts these reads too.
  PYU_ASSIGN_OR_RETURN(session->location_, LocateRuntime(session->memory_));
  return session;
}

Result<Snapshot> TargetSession::Walk() {
  PYU_ASSIGN_OR_RETURN(Snapshot snapshot,
                       WalkRuntime(objects_, codes_, location_.address, WalkOptions{}));
  for (const std::string& warning : location_.warnings) snapshot.warnings.push_back(warning);
  return snapshot;
}

}  // namespace pyunwind
