// The session a command reads the target with (core/session/session.h): the one the
// front-end's stop cache keeps for this stop (core/session/stop_cache.h), or one of its own.
#pragma once

#include <memory>

#include "core/base/result.h"
#include "core/commands/commands.h"
#include "core/session/session.h"

namespace pyunwind {

// A command's session: the context's stop cache's when it has one (the
// front-ends'), else a new session for this command alone.
class CommandSession {
 public:
  static Result<CommandSession> Open(CommandContext& context);
  TargetSession& operator*() const { return *session_; }
  TargetSession* operator->() const { return session_; }

 private:
  std::unique_ptr<TargetSession> owned_;
  TargetSession* session_ = nullptr;
};

}  // namespace pyunwind
