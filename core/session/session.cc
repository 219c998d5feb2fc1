#include "core/session/session.h"

#include "core/walk/threads.h"

namespace pyunwind {

TargetSession::TargetSession(Target& target, std::unique_ptr<RelayTarget> relay)
    : relay_(std::move(relay)),
      memory_(target),
      objects_(memory_, location_.layout),
      codes_(objects_) {}

Status TargetSession::Locate() {
  // Through the session's own cache, so --stats counts these reads too.
  PYU_ASSIGN_OR_RETURN(location_, LocateRuntime(memory_));
  // 2.7 hashes str with its own function, not SipHash: its dicts are read key by key.
  if (!IsPython2(location_.layout)) objects_.UseHashSecret(ReadHashSecret(memory_));
  return Ok{};
}

Result<std::unique_ptr<TargetSession>> TargetSession::Open(Target& target) {
  std::unique_ptr<TargetSession> session(new TargetSession(target, nullptr));
  PYU_RETURN_IF_ERROR(session->Locate());
  return session;
}

Result<std::unique_ptr<TargetSession>> TargetSession::OpenRelayed(
    std::unique_ptr<RelayTarget> relay) {
  RelayTarget& target = *relay;
  std::unique_ptr<TargetSession> session(new TargetSession(target, std::move(relay)));
  PYU_RETURN_IF_ERROR(session->Locate());
  return session;
}

Result<Snapshot> TargetSession::Walk(WalkObserver* observer,
                                     std::optional<uint64_t> frames_of_thread) {
  WalkOptions options;
  options.observer = observer;
  options.frames_of_thread = frames_of_thread;
  auto snapshot = WalkRuntime(objects_, codes_, location_.address, options);
  if (snapshot.ok()) {
    for (const std::string& warning : location_.warnings) snapshot->warnings.push_back(warning);
  }
  return snapshot;
}

const std::vector<NativeFrame>& TargetSession::NativeFrames(uint64_t thread_id) {
  auto it = native_frames_.find(thread_id);
  if (it == native_frames_.end()) {
    it = native_frames_.emplace(thread_id, memory_.target().NativeFrames(thread_id)).first;
  }
  return it->second;
}

void TargetSession::StartCommand(Target* target) {
  if (relay_) relay_->Point(target);
  memory_.StartCommand();
  ++commands_;
}

}  // namespace pyunwind
