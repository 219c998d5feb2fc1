#include "core/commands/command_session.h"

#include "core/session/stop_cache.h"

namespace pyunwind {

Result<CommandSession> CommandSession::Open(CommandContext& context) {
  CommandSession session;
  if (context.stop_cache != nullptr) {
    PYU_ASSIGN_OR_RETURN(session.session_, context.stop_cache->SessionAt(context.target, context.stop));
    return session;
  }
  PYU_ASSIGN_OR_RETURN(session.owned_, TargetSession::Open(context.target));
  session.session_ = session.owned_.get();
  return session;
}

}  // namespace pyunwind
