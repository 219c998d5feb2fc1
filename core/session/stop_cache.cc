#include "core/session/stop_cache.h"

#include "core/base/limits.h"

namespace pyunwind {

Result<TargetSession*> StopCache::SessionAt(Target& target, const ProcessStop& stop) {
  if (stop_ && Same(*stop_, stop)) {
    if (failure_) return *failure_;
    // A process killed under the debugger keeps its stop id until the debugger
    // waits for it: one read of the runtime tells whether the memory is still
    // there, so that what was read before is not shown as the state of a dead
    // process (tests/e2e/bad_inputs_test.cc, ExitWhileRead).
    uint64_t probe;
    if (session_ && target.ReadMemory(session_->location().address, &probe, sizeof probe)) {
      // The pages kept are bounded by the cache itself (RemoteMemory::kMaxCachedPages).
      session_->StartCommand(&target);
      return session_.get();
    }
  }
  session_.reset();
  failure_.reset();
  stop_ = stop;
  auto relay = std::make_unique<RelayTarget>();
  relay->Point(&target);
  auto opened = TargetSession::OpenRelayed(std::move(relay));
  if (!opened.ok()) {
    failure_ = opened.error();
    return opened.error();
  }
  session_ = std::move(opened).value();
  return session_.get();
}

void StopCache::EndCommand(Target& target) {
  if (session_) session_->EndCommand();
  if (target.Interrupted()) {
    session_.reset();
    failure_.reset();
    stop_.reset();
  }
}

bool StopCache::Holds(const ProcessStop& stop) const {
  return stop_ && Same(*stop_, stop) && (session_ || failure_);
}

}  // namespace pyunwind
