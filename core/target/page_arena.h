// Memory for the page cache's pages, taken from the system in 2 MiB slabs, each aligned so
// that one huge page can back it, and faulted in with one call. Memory a debugger touches
// for the first time costs it a page fault per 4 KiB, and on a virtual machine one costs
// 10-15 us: py-bt --all on 3,069 frames keeps 300 pages, about 4 ms of faults one page at a
// time; a slab backed by a huge page usually 0.1-0.3 ms (bench/README.md). Pages of a
// slab are contiguous, so a block of pages is read from the target straight into place.
// An arena's slabs outlive it, a few of them (page_arena.cc): the cache of the next stop starts
// on memory already faulted in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pyunwind {

class PageArena {
 public:
  static constexpr size_t kPageSize = 4096;
  static constexpr size_t kPagesPerSlab = 512;  // 2 MiB

  PageArena() = default;
  PageArena(const PageArena&) = delete;
  PageArena& operator=(const PageArena&) = delete;
  ~PageArena();

  // `count` contiguous pages (1 to kPagesPerSlab), not zeroed; null if the system has no
  // memory to give.
  uint8_t* Allocate(size_t count);
  // Gives back the last allocation (`count` pages at `pages`), to be handed out again.
  void GiveBack(uint8_t* pages, size_t count);
  // Every page is free again; the slabs stay, faulted in.
  void Reset();

  size_t SlabCount() const { return slabs_.size(); }

  // Maps and faults in one slab on a thread of its own, for the first arena to take. On a
  // virtual machine faulting in a fresh huge page takes 0.1 ms, or 3-5 ms when the host has
  // to back it first (one command in three on this project's machine, bench/README.md): the
  // front-ends call this when they are loaded, so that the first command does not wait for
  // it. The same thread first maps in the library's own code (PopulateOwnImage), which the
  // first command would otherwise fault in as it runs each part. Once per process; later
  // calls do nothing. The thread is joined when the library is unloaded or the process exits.
  static void PrepareSlabInBackground();
  // How many slabs are kept for the next arena (a freed arena's, a prepared one).
  static size_t KeptSlabs();

 private:
  struct Slab {
    uint8_t* base;
    size_t used_pages;
  };
  std::vector<Slab> slabs_;
  size_t current_ = 0;  // the slab allocations come from
};

}  // namespace pyunwind
