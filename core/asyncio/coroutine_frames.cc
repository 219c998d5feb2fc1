#include "core/asyncio/coroutine_frames.h"

#include "core/base/address.h"

namespace pyunwind {
namespace {

constexpr int64_t kMaxStackDepth = 1 << 16;
// The opcode a frame suspended in `await` resumes at, 3.7-3.10 (Include/opcode.h).
constexpr uint8_t kYieldFrom = 72;
constexpr int8_t kFrameExecuting = 0;  // 3.10's f_state while the frame runs

std::optional<CoroutineState> ReadFrameObjectState(ObjectReader& objects, CodeCache& codes,
                                                   uint64_t coro) {
  const Layout& l = objects.layout();
  RemoteMemory& memory = objects.memory();
  auto frame = memory.ReadPointer(coro + l.gen.frame_pointer);
  if (!frame || (*frame != 0 && !Aligned(*frame))) return std::nullopt;
  CoroutineState out;
  out.frame = *frame;
  if (*frame == 0) return out;
  auto lasti = memory.ReadValue<int32_t>(*frame + l.frame.lasti);
  if (!lasti) return std::nullopt;
  if (*lasti < 0) {
    out.created = true;
    return out;
  }
  bool running = false;
  if (l.frame.state != kAbsent) {
    auto state = memory.ReadValue<int8_t>(*frame + l.frame.state);
    if (!state) return std::nullopt;
    running = *state == kFrameExecuting;
  } else {
    auto top = memory.ReadPointer(*frame + l.frame.stacktop_pointer);
    if (!top) return std::nullopt;
    running = *top == 0;
  }
  if (running) return out;
  // Suspended in `await` when the instruction after f_lasti is YIELD_FROM (which moved
  // f_lasti back one instruction to run again on resumption).
  auto code_address = memory.ReadPointer(*frame + l.frame.executable);
  if (!code_address) return std::nullopt;
  auto code = codes.Get(*code_address);
  if (!code.ok()) return std::nullopt;
  const int64_t lasti_bytes = l.frame.lasti_in_code_units ? int64_t{*lasti} * 2 : *lasti;
  if (lasti_bytes + 2 >= (*code)->code_units * 2) return out;
  auto opcode = memory.ReadValue<uint8_t>((*code)->bytecode_address + lasti_bytes + 2);
  out.awaiting = opcode && *opcode == kYieldFrom;
  return out;
}

}  // namespace

std::optional<CoroutineState> ReadCoroutineFrame(ObjectReader& objects, CodeCache& codes,
                                                 uint64_t coro) {
  const Layout& l = objects.layout();
  if (UsesFrameObjects(l)) return ReadFrameObjectState(objects, codes, coro);
  const auto state = objects.memory().ReadValue<int8_t>(coro + l.gen.frame_state);
  if (!state) return std::nullopt;
  CoroutineState out;
  if (*state >= l.frame_state.completed) return out;  // finished: no frame
  out.frame = coro + l.gen.iframe;
  out.created = *state == l.frame_state.created;
  out.awaiting = *state == l.frame_state.suspended_yield_from ||
                 *state == l.frame_state.suspended_yield_from_locked;
  return out;
}

std::optional<uint64_t> FrameOfCoroutine(ObjectReader& objects, uint64_t coro) {
  const Layout& l = objects.layout();
  if (!UsesFrameObjects(l)) return coro + l.gen.iframe;
  auto frame = objects.memory().ReadPointer(coro + l.gen.frame_pointer);
  if (!frame || !Aligned(*frame)) return std::nullopt;
  return *frame;
}

std::optional<uint64_t> AwaitedObject(ObjectReader& objects, uint64_t frame) {
  RemoteMemory& memory = objects.memory();
  const Layout::Frame& f = objects.layout().frame;
  const uint64_t from_top = static_cast<uint64_t>(f.awaited_from_top);
  uint64_t slot = 0;
  if (f.stackpointer != kAbsent) {  // 3.14+: a pointer past the top
    auto pointer = memory.ReadPointer(frame + f.stackpointer);
    if (!pointer || *pointer < frame + f.localsplus + 8 * from_top ||
        *pointer - frame > static_cast<uint64_t>(kMaxStackDepth) * 8) {
      return std::nullopt;
    }
    slot = *pointer - 8 * from_top;
  } else if (f.stacktop_pointer != kAbsent || f.stackdepth != kAbsent) {  // 3.10 and older
    auto bottom = memory.ReadPointer(frame + f.valuestack);
    if (!bottom || !Aligned(*bottom)) return std::nullopt;
    uint64_t top = 0;
    if (f.stacktop_pointer != kAbsent) {
      auto pointer = memory.ReadPointer(frame + f.stacktop_pointer);
      if (!pointer) return std::nullopt;
      top = *pointer;
    } else {
      auto depth = memory.ReadValue<int32_t>(frame + f.stackdepth);
      if (!depth || *depth < 0 || *depth > kMaxStackDepth) return std::nullopt;
      top = *bottom + 8 * static_cast<uint64_t>(*depth);
    }
    if (top < *bottom + 8 * from_top || top - *bottom > static_cast<uint64_t>(kMaxStackDepth) * 8) {
      return std::nullopt;
    }
    slot = top - 8 * from_top;
  } else {  // the count of slots in use above localsplus
    auto top = memory.ReadValue<int32_t>(frame + f.stacktop);
    if (!top || *top < static_cast<int64_t>(from_top) || *top > kMaxStackDepth) return std::nullopt;
    slot = frame + f.localsplus + 8 * (static_cast<uint64_t>(*top) - from_top);
  }
  auto value = memory.ReadPointer(slot);
  if (!value) return std::nullopt;
  const uint64_t object = *value & ~f.stackref_tag_mask & ~uint64_t{1};
  return Aligned(object) ? std::optional<uint64_t>(object) : std::nullopt;
}

}  // namespace pyunwind
