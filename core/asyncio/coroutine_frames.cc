#include "core/asyncio/coroutine_frames.h"

#include "core/base/address.h"
#include "core/base/limits.h"

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

namespace {

// Where a suspended frame's slots lie: its fast locals from `localsplus`, its value stack from
// `stack_bottom`, up to `top` (past the last value), as the frame stored it when it yielded.
struct SuspendedSlots {
  uint64_t localsplus = 0;
  uint64_t stack_bottom = 0;
  uint64_t top = 0;
};

std::optional<SuspendedSlots> SuspendedSlotsOf(ObjectReader& objects, uint64_t frame) {
  RemoteMemory& memory = objects.memory();
  const Layout::Frame& f = objects.layout().frame;
  if (f.localsplus == kAbsent) return std::nullopt;
  SuspendedSlots out{frame + f.localsplus, frame + f.localsplus, 0};
  if (f.stackpointer != kAbsent) {  // 3.14+: a pointer past the top
    auto pointer = memory.ReadPointer(frame + f.stackpointer);
    if (!pointer) return std::nullopt;
    out.top = *pointer;
  } else if (f.stacktop_pointer != kAbsent || f.stackdepth != kAbsent) {  // 3.10 and older
    auto bottom = memory.ReadPointer(frame + f.valuestack);
    if (!bottom || !Aligned(*bottom) || *bottom < out.localsplus) return std::nullopt;
    out.stack_bottom = *bottom;
    if (f.stacktop_pointer != kAbsent) {
      auto pointer = memory.ReadPointer(frame + f.stacktop_pointer);
      if (!pointer) return std::nullopt;
      out.top = *pointer;
    } else {
      auto depth = memory.ReadValue<int32_t>(frame + f.stackdepth);
      if (!depth || *depth < 0 || *depth > kMaxStackDepth) return std::nullopt;
      out.top = *bottom + 8 * static_cast<uint64_t>(*depth);
    }
  } else {  // the count of slots in use above localsplus
    auto top = memory.ReadValue<int32_t>(frame + f.stacktop);
    if (!top || *top < 0 || *top > kMaxStackDepth) return std::nullopt;
    out.top = out.localsplus + 8 * static_cast<uint64_t>(*top);
  }
  if (out.top < out.stack_bottom || !Aligned(out.top) ||
      out.top - out.stack_bottom > static_cast<uint64_t>(kMaxStackDepth) * 8 ||
      out.stack_bottom - out.localsplus > static_cast<uint64_t>(kMaxLocalsPerFrame) * 8) {
    return std::nullopt;
  }
  return out;
}

}  // namespace

std::optional<uint64_t> AwaitedObject(ObjectReader& objects, uint64_t frame) {
  const Layout::Frame& f = objects.layout().frame;
  const uint64_t from_top = static_cast<uint64_t>(f.awaited_from_top);
  auto slots = SuspendedSlotsOf(objects, frame);
  if (!slots || slots->top < slots->stack_bottom + 8 * from_top) return std::nullopt;
  auto value = objects.memory().ReadPointer(slots->top - 8 * from_top);
  if (!value) return std::nullopt;
  const uint64_t object = *value & ~f.stackref_tag_mask & ~uint64_t{1};
  return Aligned(object) ? std::optional<uint64_t>(object) : std::nullopt;
}

std::optional<std::vector<uint64_t>> SuspendedFrameReferences(ObjectReader& objects,
                                                              uint64_t frame) {
  auto slots = SuspendedSlotsOf(objects, frame);
  if (!slots) return std::nullopt;
  std::vector<uint64_t> values((slots->top - slots->localsplus) / 8);
  if (!values.empty() && !objects.memory().Read(slots->localsplus, values.data(), values.size() * 8)) {
    return std::nullopt;
  }
  std::vector<uint64_t> owned;
  for (uint64_t value : values) {
    if (value != 0 && (value & objects.layout().frame.stackref_tag_mask) == 0) owned.push_back(value);
  }
  return owned;
}

}  // namespace pyunwind
