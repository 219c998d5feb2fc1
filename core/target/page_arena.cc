#include "core/target/page_arena.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>

#include <cstdint>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/base/prefault.h"

namespace pyunwind {
namespace {

// Linux 5.14's madvise advice; older kernel headers (the glibc 2.31 sysroot's, Linux 5.10:
// toolchain/README.md) lack the name, and an older kernel answers EINVAL, ignored below.
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

constexpr size_t kSlabBytes = PageArena::kPageSize * PageArena::kPagesPerSlab;

uint8_t* MapSlab() {
  // Twice the size, then trimmed to a slab aligned on its size: a huge page can back it.
  void* mapped = mmap(nullptr, 2 * kSlabBytes, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(mapped);
  const uintptr_t aligned = (start + kSlabBytes - 1) & ~(kSlabBytes - 1);
  if (aligned > start) munmap(mapped, aligned - start);
  munmap(reinterpret_cast<void*>(aligned + kSlabBytes), start + kSlabBytes - aligned);
  auto* slab = reinterpret_cast<void*>(aligned);
  // Both only advice, each ignored where the kernel lacks it: a huge page where transparent
  // huge pages are not "never"; faulted in now on Linux 5.14 and later, else page by page.
  madvise(slab, kSlabBytes, MADV_HUGEPAGE);
  madvise(slab, kSlabBytes, MADV_POPULATE_WRITE);
  return static_cast<uint8_t*>(slab);
}

// Slabs of arenas gone (the target ran since, the command ended), kept for the next: a slab
// already faulted in costs nothing to use again. About as many as a full page cache uses.
class SlabPool {
 public:
  static constexpr size_t kKeptSlabs = 4;

  uint8_t* Take() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!kept_.empty()) {
        uint8_t* slab = kept_.back();
        kept_.pop_back();
        return slab;
      }
    }
    return MapSlab();
  }
  void Give(uint8_t* slab) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (kept_.size() < kKeptSlabs) {
        kept_.push_back(slab);
        return;
      }
    }
    munmap(slab, kSlabBytes);
  }
  size_t Size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return kept_.size();
  }

 private:
  std::mutex mutex_;
  std::vector<uint8_t*> kept_;
};

SlabPool& Pool() {
  static auto* pool = new SlabPool();  // never destroyed: arenas may outlive static destructors
  return *pool;
}

// The thread PrepareSlabInBackground starts, joined when the library is unloaded or the
// process exits (this object's destructor): LLDB unloads its plugins (dlclose) when it exits,
// which must not unmap code the thread still runs.
class SlabPreparer {
 public:
  ~SlabPreparer() {
    if (thread_.joinable()) thread_.join();
  }
  void Start() {
    std::call_once(started_, [this] {
      // The debugger's signals (SIGINT, SIGCHLD) stay on its own threads.
      sigset_t all, previous;
      sigfillset(&all);
      pthread_sigmask(SIG_SETMASK, &all, &previous);
      try {
        thread_ = std::thread([] {
          PopulateOwnImage();
          if (uint8_t* slab = MapSlab()) Pool().Give(slab);
        });
      } catch (const std::system_error&) {
        // No thread to spare: the first arena maps its slab itself.
      }
      pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    });
  }

 private:
  std::once_flag started_;
  std::thread thread_;
};

}  // namespace

void PageArena::PrepareSlabInBackground() {
  static SlabPreparer preparer;
  preparer.Start();
}

size_t PageArena::KeptSlabs() { return Pool().Size(); }

PageArena::~PageArena() {
  for (const Slab& slab : slabs_) Pool().Give(slab.base);
}

uint8_t* PageArena::Allocate(size_t count) {
  if (count == 0 || count > kPagesPerSlab) return nullptr;
  while (current_ < slabs_.size() && slabs_[current_].used_pages + count > kPagesPerSlab) {
    ++current_;
  }
  if (current_ == slabs_.size()) {
    uint8_t* base = Pool().Take();
    if (base == nullptr) return nullptr;
    slabs_.push_back({base, 0});
  }
  Slab& slab = slabs_[current_];
  uint8_t* pages = slab.base + slab.used_pages * kPageSize;
  slab.used_pages += count;
  return pages;
}

void PageArena::GiveBack(uint8_t* pages, size_t count) {
  if (current_ == slabs_.size()) return;
  Slab& slab = slabs_[current_];
  if (count <= slab.used_pages && pages == slab.base + (slab.used_pages - count) * kPageSize) {
    slab.used_pages -= count;
  }
}

void PageArena::Reset() {
  for (Slab& slab : slabs_) slab.used_pages = 0;
  current_ = 0;
}

}  // namespace pyunwind
