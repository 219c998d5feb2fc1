// A coroutine's frame, for both ways CPython keeps one: embedded in the
// coroutine object with a state byte (3.11+), or a PyFrameObject it points
// at, whose state follows from f_lasti, the top of its value stack and the
// instruction after it (3.10 and older, as _PyGen_yf reads them).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/objects/objects.h"
#include "core/walk/code_objects.h"

namespace pyunwind {

struct CoroutineState {
  uint64_t frame = 0;     // 0: the coroutine has finished
  bool created = false;   // not started: shown at its first line
  bool awaiting = false;  // suspended in `await` (`yield from`)
};

// The frame of coroutine `coro` and what it is doing; null where unreadable.
std::optional<CoroutineState> ReadCoroutineFrame(ObjectReader& objects, CodeCache& codes,
                                                 uint64_t coro);

// The address of the frame coroutine `coro` runs, as the walk of a thread shows it.
std::optional<uint64_t> FrameOfCoroutine(ObjectReader& objects, uint64_t coro);

// What a frame suspended in `await` or `yield from` waits for: the top of its value stack.
std::optional<uint64_t> AwaitedObject(ObjectReader& objects, uint64_t frame);

// The strong references a suspended coroutine frame holds: its fast locals, cells and value
// stack up to the top it stored when it yielded (not above: what it yielded is gone); 3.14+
// tag the references they do not own (borrowed, deferred, immortal, ints), which are left out.
std::optional<std::vector<uint64_t>> SuspendedFrameReferences(ObjectReader& objects,
                                                              uint64_t frame);

}  // namespace pyunwind
