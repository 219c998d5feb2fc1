#include "core/session/kept_state.h"

namespace pyunwind {
namespace {

struct Kept {
  std::mutex mutex;
  FrameSelections selections;
  StopCache stops;
};

// Never destroyed: a debugger may run a command while its process exits.
Kept& TheKept() {
  static auto* kept = new Kept();
  return *kept;
}

thread_local bool this_thread_holds = false;

}  // namespace

Result<KeptState> KeptState::Take() {
  if (this_thread_holds) return MakeError("a pyunwind command is already running");
  return KeptState(std::unique_lock<std::mutex>(TheKept().mutex));
}

KeptState::KeptState(std::unique_lock<std::mutex> lock) : lock_(std::move(lock)) {
  this_thread_holds = true;
}

KeptState::~KeptState() {
  if (lock_.owns_lock()) this_thread_holds = false;  // not a moved-from one
}

FrameSelections& KeptState::selections() const { return TheKept().selections; }
StopCache& KeptState::stops() const { return TheKept().stops; }

}  // namespace pyunwind
