#include "core/walk/data_stack.h"

#include <algorithm>

#include "core/base/address.h"

namespace pyunwind {
namespace {

// struct _PyStackChunk, the same in 3.11 to 3.15 (no debug offsets state it).
struct StackChunkHead {
  uint64_t previous;
  uint64_t size;  // bytes, this head included
  uint64_t top;   // slots of the chunk's data in use; kept when a newer chunk is pushed
};
constexpr uint64_t kSlotBytes = 8;

// _PY_DATA_STACK_CHUNK_SIZE: CPython makes no chunk smaller (a larger one only for a frame
// that needs more), so this much can be read from a chunk's start before its head is known.
constexpr uint64_t kSmallestChunkBytes = 16 * 1024;

}  // namespace

void PrefetchDataStack(RemoteMemory& memory, const Layout& layout, uint64_t tstate) {
  if (layout.tstate.datastack_chunk == kAbsent) return;
  auto chunk = memory.ReadPointer(tstate + layout.tstate.datastack_chunk);
  uint64_t left = kMaxDataStackPrefetchBytes;
  // The bytes left bound the loop: each chunk takes at least a page of them, a chain that
  // loops back included.
  for (bool newest = true; chunk && Aligned(*chunk) && left >= RemoteMemory::kPageSize;
       newest = false) {
    const uint64_t first = std::min(kSmallestChunkBytes, left);
    memory.Prefetch(*chunk, first);
    const auto head = memory.ReadValue<StackChunkHead>(*chunk);
    if (!head) return;
    // The newest chunk's `top` is stale (the thread state keeps the live one): it may be
    // full. An older one holds frames up to its `top`.
    uint64_t used = head->size;
    if (!newest && head->top <= head->size / kSlotBytes) {
      used = std::min(head->size, sizeof(StackChunkHead) + head->top * kSlotBytes);
    }
    used = std::clamp(used, first, left);
    if (used > first) memory.Prefetch(*chunk + first, used - first);
    left -= used;
    chunk = head->previous;
  }
}

}  // namespace pyunwind
