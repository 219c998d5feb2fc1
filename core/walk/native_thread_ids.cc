#include "core/walk/native_thread_ids.h"

#include <fmt/format.h>

#include <cstring>
#include <set>
#include <unordered_set>

#include "core/base/address.h"

namespace pyunwind {
namespace {

// How much of a struct pthread is searched: glibc's tid is at 0x2d0 (x86-64) or 0xd0
// (aarch64), after the thread control block.
constexpr size_t kSearchedBytes = 1024;
constexpr size_t kIdWidth = 4;  // pid_t

}  // namespace

void AssignNativeIdsFromPthreads(RemoteMemory& memory, std::vector<Thread*>& threads,
                                 std::vector<std::string>& warnings) {
  if (threads.empty()) return;
  const std::vector<uint64_t> listed = memory.target().ThreadIds();
  const std::unordered_set<uint64_t> lwps(listed.begin(), listed.end());
  if (lwps.empty()) return;
  std::vector<std::vector<uint8_t>> blocks;
  for (const Thread* thread : threads) {
    std::vector<uint8_t> block(kSearchedBytes);
    if (!thread->python_id || !Aligned(*thread->python_id) ||
        !memory.Read(*thread->python_id, block.data(), block.size())) {
      warnings.push_back("the OS thread ids are unknown: a thread's struct pthread cannot be read");
      return;
    }
    blocks.push_back(std::move(block));
  }
  auto id_at = [&](size_t thread, size_t offset) {
    uint32_t id = 0;
    std::memcpy(&id, blocks[thread].data() + offset, kIdWidth);
    return uint64_t{id};
  };
  // The first offset where every thread holds a listed id, no two the same.
  for (size_t offset = 0; offset + kIdWidth <= kSearchedBytes; offset += kIdWidth) {
    std::set<uint64_t> ids;
    bool all = true;
    for (size_t i = 0; i < threads.size() && all; ++i) {
      const uint64_t id = id_at(i, offset);
      all = id != 0 && lwps.count(id) != 0 && ids.insert(id).second;
    }
    if (!all) continue;
    for (size_t i = 0; i < threads.size(); ++i) threads[i]->native_id = id_at(i, offset);
    return;
  }
  warnings.push_back(
      "the OS thread ids are unknown: no offset of struct pthread holds the debugger's thread ids");
}

}  // namespace pyunwind
