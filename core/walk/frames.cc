#include "core/walk/frames.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/base/prefault.h"

namespace pyunwind {
namespace {

template <typename T>
T FieldAt(const uint8_t* raw, size_t raw_size, int32_t offset) {
  T value{};
  if (offset >= 0 && offset + sizeof(T) <= raw_size) std::memcpy(&value, raw + offset, sizeof(T));
  return value;
}

// The head of a _PyInterpreterFrame read, up to its localsplus (its fields end within the
// first 100 bytes in every version; a layout's larger size is cut to this).
constexpr size_t kFrameHeadBytes = 256;

// Whether every field the walk reads lies in a frame's head (a layout from the target's debug
// offsets may say otherwise, however unlike any CPython).
bool FieldsInHead(const Layout::Frame& f) {
  auto fits = [](int32_t offset, int32_t width) {
    return offset == kAbsent || (offset >= 0 && offset + width <= int32_t{kFrameHeadBytes});
  };
  return fits(f.previous, 8) && fits(f.executable, 8) && fits(f.instr_ptr, 8) &&
         fits(f.owner, 1) && fits(f.tlbc_index, 4) && fits(f.is_entry, 1) && fits(f.lasti, 4);
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
// Where the frame whose head is `raw` runs: a _PyInterpreterFrame's instruction
// pointer, or a PyFrameObject's f_lasti (in bytes before 3.10; -1 before the first).
// 2.7's code units are bytes.
Result<CodePoint> CodePointOf(CodeCache& codes, const Layout& l, const uint8_t* raw,
                              size_t raw_size) {
  const Layout::Frame& f = l.frame;
  const uint64_t code_address = FieldAt<uint64_t>(raw, raw_size, f.executable) & ~f.stackref_tag_mask;
  PYU_ASSIGN_OR_RETURN(const CodeInfo* code, codes.Get(code_address));
  if (UsesFrameObjects(l)) {
    const int32_t lasti = FieldAt<int32_t>(raw, raw_size, f.lasti);
    const int64_t index = lasti < 0                ? -1
                          : f.lasti_in_code_units ? lasti
                                                  : lasti / l.code.bytes_per_unit;
    return CodePoint{code, index};
  }
  const uint64_t instruction = FieldAt<uint64_t>(raw, raw_size, f.instr_ptr);
  const int32_t tlbc_index =
      f.tlbc_index == kAbsent ? 0 : FieldAt<int32_t>(raw, raw_size, f.tlbc_index);
  PYU_ASSIGN_OR_RETURN(uint64_t bytecode, codes.BytecodeFor(*code, tlbc_index));
  return CodePoint{code, (static_cast<int64_t>(instruction) - static_cast<int64_t>(bytecode)) / 2};
}

}  // namespace

Result<FramePosition> ReadFramePosition(ObjectReader& objects, CodeCache& codes,
                                        uint64_t frame_address) {
  const Layout::Frame& f = objects.layout().frame;
  uint8_t raw[kFrameHeadBytes];
  const size_t frame_size = std::min(kFrameHeadBytes, static_cast<size_t>(f.size));
  if (!FieldsInHead(f)) {
    return MakeError(fmt::format("the layout puts a frame's fields past its first {} bytes",
                                 kFrameHeadBytes));
  }
  if (frame_address % 8 != 0 || !objects.memory().Read(frame_address, raw, frame_size)) {
    return UnreadableMemory(fmt::format("cannot read the frame at {:#x}", frame_address));
  }
  const uint64_t code_address = FieldAt<uint64_t>(raw, frame_size, f.executable) & ~f.stackref_tag_mask;
  PYU_ASSIGN_OR_RETURN(CodePoint point, CodePointOf(codes, objects.layout(), raw, frame_size));
  FramePosition out;
  out.code_address = code_address;
  out.code = point.code;
  out.instruction_index = point.instruction_index;
  out.line = LineForInstruction(*point.code->lines, point.code->first_line, point.instruction_index);
  return out;
}

namespace {

// How far a thread's chain of frames can be followed: the number of links (frames and
// entry shims) from the innermost on, and why the walk stops there if not at the end.
struct ChainExtent {
  size_t links = 0;
  std::optional<std::string> stop_reason;
};

// The frame after `frame_address` on the chain (its `previous`), the frame's head read into
// `raw` (kFrameHeadBytes); none where the frame cannot be read.
std::optional<uint64_t> ReadLink(ObjectReader& objects, uint64_t frame_address, uint8_t* raw) {
  const Layout::Frame& f = objects.layout().frame;
  const size_t frame_size = std::min(kFrameHeadBytes, static_cast<size_t>(f.size));
  if (frame_address % 8 != 0 || !objects.memory().Read(frame_address, raw, frame_size)) {
    return std::nullopt;
  }
  return FieldAt<uint64_t>(raw, frame_size, f.previous);
}

// The first pass over the chain: where it ends, a cycle found by Brent's algorithm (no
// memory per frame: a set of the addresses seen was a fresh page every 100 frames, and
// fresh pages are what a debugger pays most for, bench/README.md). A cycle stops the chain
// just before its first address repeats, as a set of the addresses seen would.
ChainExtent MeasureChain(ObjectReader& objects, uint64_t frame_address, size_t max_frames,
                         uint8_t* raw) {
  ChainExtent extent;
  // Brent: each address is compared with `tortoise`, `distance` links before it, which moves
  // up to the address at hand whenever that distance reaches a power of two.
  uint64_t tortoise = frame_address;
  size_t distance = 0;
  size_t power = 1;
  for (uint64_t address = frame_address; address != 0;) {
    if (extent.links >= max_frames) {
      extent.stop_reason = fmt::format("more than {} frames: the rest are not shown", max_frames);
      return extent;
    }
    if (!objects.memory().budget().Spend(Work::kFrames, 1)) {
      extent.stop_reason = *objects.memory().budget().Reason();
      return extent;
    }
    if (extent.links > 0 && address == tortoise) {
      // A cycle of `distance` links. Its first address is where a cursor from the start
      // meets one `distance` links ahead; every link read here was read above (cached).
      uint64_t behind = frame_address;
      uint64_t ahead = frame_address;
      for (size_t i = 0; i < distance; ++i) ahead = ReadLink(objects, ahead, raw).value_or(0);
      size_t before_cycle = 0;
      while (behind != ahead && ahead != 0 && before_cycle < extent.links) {
        behind = ReadLink(objects, behind, raw).value_or(0);
        ahead = ReadLink(objects, ahead, raw).value_or(0);
        ++before_cycle;
      }
      extent.links = before_cycle + distance;
      extent.stop_reason = fmt::format("the frame chain loops back to {:#x}", behind);
      return extent;
    }
    const std::optional<uint64_t> previous = ReadLink(objects, address, raw);
    if (!previous) {
      extent.stop_reason = fmt::format("cannot read the frame at {:#x}", address);
      return extent;
    }
    ++extent.links;
    if (distance == power) {
      tortoise = address;
      power *= 2;
      distance = 0;
    }
    address = *previous;
    ++distance;
  }
  return extent;
}

}  // namespace

void WalkFrames(ObjectReader& objects, CodeCache& codes, uint64_t frame_address,
                size_t max_frames, Thread& thread) {
  const Layout::Frame& f = objects.layout().frame;
  const size_t frame_size = std::min(kFrameHeadBytes, static_cast<size_t>(f.size));
  uint8_t raw[kFrameHeadBytes];
  if (!FieldsInHead(f)) {
    StopWalk(thread, fmt::format("the layout puts a frame's fields past its first {} bytes",
                                 kFrameHeadBytes));
    return;
  }
  // Two passes over the chain (the second reads it from the page cache): the frames then go
  // into a vector sized once, without a copy at each doubling of a deep stack.
  const ChainExtent extent = MeasureChain(objects, frame_address, max_frames, raw);
  const size_t first = thread.frames.size();
  thread.frames.reserve(first + extent.links);
  PrefaultForWrite(thread.frames.data() + first, extent.links * sizeof(Frame));
  for (size_t link = 0; link < extent.links; ++link) {
    const std::optional<uint64_t> previous = ReadLink(objects, frame_address, raw);
    if (!previous) {  // read in the first pass, so only if the cache could not keep it
      StopWalk(thread, fmt::format("cannot read the frame at {:#x}", frame_address));
      return;
    }
    const uint64_t code_address =
        FieldAt<uint64_t>(raw, frame_size, f.executable) & ~f.stackref_tag_mask;
    const int owner = f.owner == kAbsent ? 0 : FieldAt<uint8_t>(raw, frame_size, f.owner);
    if (owner >= f.owner_first_internal) {  // an entry shim the C stack owns
      // 3.12+: one shim per eval-loop call, just outside the frames that call runs.
      if (thread.frames.size() > first) thread.frames.back().is_entry = true;
      frame_address = *previous;
      continue;
    }
    auto point = CodePointOf(codes, objects.layout(), raw, frame_size);
    if (!point.ok()) {
      StopWalk(thread, fmt::format("frame {:#x}: {}", frame_address, point.error().message));
      return;
    }
    // A frame whose first instructions (copying free variables, making the
    // generator) have not run yet is incomplete: sys._current_frames() and
    // tracebacks leave it out (_PyFrame_IsIncomplete). So is 3.13+'s
    // init-cleanup shim (_Py_InitCleanup, file and name "__init__", no line),
    // pushed by CALL_ALLOC_AND_ENTER_INIT between a class call and __init__:
    // a thread-owned frame that waits at instruction 0, below its
    // _co_firsttraceable of 4 (tests/e2e/constructors_test.cc).
    // A PyFrameObject (3.10 and older) is whole from its creation, and each runs in an
    // eval-loop call of its own.
    const bool frame_object = UsesFrameObjects(objects.layout());
    const bool incomplete = !frame_object && owner != f.owner_generator &&
                            point->instruction_index < point->code->first_traceable;
    if (!incomplete) {
      const CodeInfo& info = *point->code;
      Frame& out = thread.frames.emplace_back();
      if (thread.code_names_kept.empty() || thread.code_names_kept.back() != info.names) {
        thread.code_names_kept.push_back(info.names);
      }
      out.code_names = info.names.get();
      const SourcePosition source =
          PositionForInstruction(*info.lines, info.first_line, point->instruction_index);
      out.line = source.line;
      out.end_line = source.end_line;
      out.column = source.column;
      out.end_column = source.end_column;
      out.frame_address = frame_address;
      out.code_address = code_address;
      out.is_entry = frame_object ||
                     (f.is_entry != kAbsent && FieldAt<uint8_t>(raw, frame_size, f.is_entry) != 0);
    }
    frame_address = *previous;
  }
  if (extent.stop_reason) StopWalk(thread, *extent.stop_reason);
}

}  // namespace pyunwind
