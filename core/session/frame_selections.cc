#include "core/session/frame_selections.h"

namespace pyunwind {

std::optional<size_t> FrameSelections::Get(const ProcessStop& stop, uint64_t thread) {
  const auto it = selections_.find(Key{stop.process, stop.instance, thread});
  if (it == selections_.end()) return std::nullopt;
  if (it->second.stop_id != stop.stop_id) {
    selections_.erase(it);  // the process ran since
    return std::nullopt;
  }
  return it->second.python_frame;
}

void FrameSelections::Set(const ProcessStop& stop, uint64_t thread, size_t python_frame) {
  selections_[Key{stop.process, stop.instance, thread}] = {stop.stop_id, python_frame};
}

}  // namespace pyunwind
