#include "core/walk/frames.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <unordered_set>
#include <vector>

namespace pyunwind {
namespace {

template <typename T>
T FieldAt(const uint8_t* raw, size_t raw_size, int32_t offset) {
  T value{};
  if (offset >= 0 && offset + sizeof(T) <= raw_size) std::memcpy(&value, raw + offset, sizeof(T));
  return value;
}

void StopWalk(Thread& thread, std::string reason) {
  thread.truncated = true;
  thread.error = std::move(reason);
}

// The code object of a frame and the index of its current instruction in it
// (no line yet: the caller looks up the line, or the whole position, once).
struct CodePoint {
  const CodeInfo* code = nullptr;  // owned by the CodeCache
  int64_t instruction_index = 0;
};
Result<CodePoint> CodePointOf(CodeCache& codes, uint64_t code_address, uint64_t instruction,
                              int32_t tlbc_index) {
  PYU_ASSIGN_OR_RETURN(const CodeInfo* code, codes.Get(code_address));
  PYU_ASSIGN_OR_RETURN(uint64_t bytecode, codes.BytecodeFor(*code, tlbc_index));
  return CodePoint{code, (static_cast<int64_t>(instruction) - static_cast<int64_t>(bytecode)) / 2};
}

}  // namespace

Result<FramePosition> ReadFramePosition(ObjectReader& objects, CodeCache& codes,
                                        uint64_t frame_address) {
  const Layout::Frame& f = objects.layout().frame;
  uint8_t raw[256];
  const size_t frame_size = std::min(sizeof(raw), static_cast<size_t>(f.size));
  if (frame_address % 8 != 0 || !objects.memory().Read(frame_address, raw, frame_size)) {
    return MakeError(fmt::format("cannot read the frame at {:#x}", frame_address));
  }
  const uint64_t code_address = FieldAt<uint64_t>(raw, frame_size, f.executable) & ~f.stackref_tag_mask;
  const uint64_t instruction = FieldAt<uint64_t>(raw, frame_size, f.instr_ptr);
  const int32_t tlbc_index =
      f.tlbc_index == kAbsent ? 0 : FieldAt<int32_t>(raw, frame_size, f.tlbc_index);
  PYU_ASSIGN_OR_RETURN(CodePoint point, CodePointOf(codes, code_address, instruction, tlbc_index));
  FramePosition out;
  out.code_address = code_address;
  out.code = point.code;
  out.instruction_index = point.instruction_index;
  out.line = LineForInstruction(point.code->lines, point.code->first_line, point.instruction_index);
  return out;
}

namespace {

// A frame found on the chain, before it becomes a Frame: the chain is
// followed first and the frames made after, into a vector sized once (a deep
// stack would otherwise be copied at every doubling, and fresh memory is what
// a debugger's heap pays most for; bench/README.md).
struct ChainedFrame {
  uint64_t frame_address = 0;
  uint64_t code_address = 0;
  const CodeInfo* code = nullptr;  // owned by the CodeCache
  int64_t instruction_index = 0;
  bool is_entry = false;
};

// Follows the chain from `frame_address`; a reason to stop early goes to
// `thread` (StopWalk), the frames read until then are returned.
std::vector<ChainedFrame> FollowChain(ObjectReader& objects, CodeCache& codes,
                                      uint64_t frame_address, size_t max_frames, Thread& thread) {
  const Layout::Frame& f = objects.layout().frame;
  const size_t frame_size = static_cast<size_t>(f.size);
  std::vector<uint8_t> raw(frame_size);
  std::unordered_set<uint64_t> seen;
  std::vector<ChainedFrame> chain;
  size_t visited = 0;
  while (frame_address != 0) {
    if (visited++ >= max_frames) {
      StopWalk(thread, fmt::format("more than {} frames: the rest are not shown", max_frames));
      break;
    }
    if (!objects.memory().budget().Spend(Work::kFrames, 1)) {
      StopWalk(thread, *objects.memory().budget().Reason());
      break;
    }
    if (!seen.insert(frame_address).second) {
      StopWalk(thread, fmt::format("the frame chain loops back to {:#x}", frame_address));
      break;
    }
    if (frame_address % 8 != 0 || !objects.memory().Read(frame_address, raw.data(), frame_size)) {
      StopWalk(thread, fmt::format("cannot read the frame at {:#x}", frame_address));
      break;
    }
    const uint8_t* bytes = raw.data();
    const uint64_t previous = FieldAt<uint64_t>(bytes, frame_size, f.previous);
    const uint64_t code_address =
        FieldAt<uint64_t>(bytes, frame_size, f.executable) & ~f.stackref_tag_mask;
    const uint64_t instruction = FieldAt<uint64_t>(bytes, frame_size, f.instr_ptr);
    const int owner = f.owner == kAbsent ? 0 : FieldAt<uint8_t>(bytes, frame_size, f.owner);

    if (owner >= f.owner_first_internal) {  // an entry shim the C stack owns
      // 3.12+: one shim per eval-loop call, just outside the frames that call runs.
      if (!chain.empty()) chain.back().is_entry = true;
      frame_address = previous;
      continue;
    }
    const int32_t tlbc_index =
        f.tlbc_index == kAbsent ? 0 : FieldAt<int32_t>(bytes, frame_size, f.tlbc_index);
    auto point = CodePointOf(codes, code_address, instruction, tlbc_index);
    if (!point.ok()) {
      StopWalk(thread, fmt::format("frame {:#x}: {}", frame_address, point.error().message));
      break;
    }
    // A frame whose first instructions (copying free variables, making the
    // generator) have not run yet is incomplete: sys._current_frames() and
    // tracebacks leave it out (_PyFrame_IsIncomplete). So is 3.13+'s
    // init-cleanup shim (_Py_InitCleanup, file and name "__init__", no line),
    // pushed by CALL_ALLOC_AND_ENTER_INIT between a class call and __init__:
    // a thread-owned frame that waits at instruction 0, below its
    // _co_firsttraceable of 4 (tests/e2e/constructors_test.cc).
    const bool incomplete =
        owner != f.owner_generator && point->instruction_index < point->code->first_traceable;
    if (!incomplete) {
      chain.push_back({frame_address, code_address, point->code, point->instruction_index,
                       f.is_entry != kAbsent && FieldAt<uint8_t>(bytes, frame_size, f.is_entry) != 0});
    }
    frame_address = previous;
  }
  return chain;
}

}  // namespace

void WalkFrames(ObjectReader& objects, CodeCache& codes, uint64_t frame_address,
                size_t max_frames, Thread& thread) {
  const std::vector<ChainedFrame> chain =
      FollowChain(objects, codes, frame_address, max_frames, thread);
  thread.frames.reserve(thread.frames.size() + chain.size());
  for (const ChainedFrame& chained : chain) {
    const CodeInfo& info = *chained.code;
    Frame& out = thread.frames.emplace_back();
    out.code_names = info.names;
    const SourcePosition source =
        PositionForInstruction(info.lines, info.first_line, chained.instruction_index);
    out.line = source.line;
    out.end_line = source.end_line;
    out.column = source.column;
    out.end_column = source.end_column;
    out.frame_address = chained.frame_address;
    out.code_address = chained.code_address;
    out.is_entry = chained.is_entry;
  }
}

}  // namespace pyunwind
