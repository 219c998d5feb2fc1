#include "core/target/memory.h"

#include <algorithm>
#include <new>

namespace pyunwind {

bool RemoteMemory::FetchFromTarget(uint64_t address, void* out, size_t size) {
  if (stats_.target_bytes + size > byte_budget_) {
    budget_exhausted_ = true;
    return false;
  }
  return CountedFetch(address, out, size);
}

bool RemoteMemory::CountedFetch(uint64_t address, void* out, size_t size) {
  ++stats_.target_reads;
  stats_.target_bytes += size;
  if (target_.ReadMemory(address, out, size)) return true;
  ++stats_.failed_reads;
  return false;
}

uint64_t RemoteMemory::PagesPerFetch() const {
  const uint64_t asked = target_.PagesPerFetch();
  uint64_t pages = 1;  // the largest power of two not above what the target asks, at most 16
  while (pages * 2 <= std::min(asked, kMaxPagesPerFetch)) pages *= 2;
  return pages;
}

uint8_t* RemoteMemory::AllocatePages(size_t count) {
  uint8_t* pages = arena_.Allocate(count);
  if (pages == nullptr) throw std::bad_alloc();
  return pages;
}

const RemoteMemory::Page& RemoteMemory::GetPage(uint64_t page_address) {
  if (page_address == last_page_address_) {
    ++stats_.cache_hits;
    return *last_page_;
  }
  auto found = pages_.find(page_address);
  if (found != pages_.end()) {
    ++stats_.cache_hits;
    last_page_address_ = page_address;
    last_page_ = &found->second;
    return found->second;
  }
  ++stats_.cache_misses;
  const uint64_t pages_per_fetch = PagesPerFetch();
  if (pages_.size() + pages_per_fetch > kMaxCachedPages) DropPages();

  // Try a block of pages first: neighbouring structures (frames on a data
  // stack, objects in an arena) tend to be read next. A block of one page is
  // the page itself. Either is read straight into the arena's pages (not
  // zeroed first: a read fills them, and a page that cannot be read keeps none).
  const uint64_t block_size = kPageSize * pages_per_fetch;
  const uint64_t block_start = page_address & ~(block_size - 1);
  bool fetched = false;
  if (pages_per_fetch > 1 && !blocks_not_whole_.count(block_start)) {
    uint8_t* block = AllocatePages(pages_per_fetch);
    fetched = FetchFromTarget(block_start, block, block_size);
    if (fetched) {
      for (uint64_t offset = 0; offset < block_size; offset += kPageSize) {
        pages_.try_emplace(block_start + offset, Page{true, block + offset});
      }
    } else {
      arena_.GiveBack(block, pages_per_fetch);
      blocks_not_whole_.insert(block_start);
    }
  }
  if (!fetched) {
    uint8_t* bytes = AllocatePages(1);
    const bool readable = FetchFromTarget(page_address, bytes, kPageSize);
    if (!readable) arena_.GiveBack(bytes, 1);
    pages_.insert_or_assign(page_address, Page{readable, readable ? bytes : nullptr});
  }
  const Page& page = pages_.at(page_address);
  last_page_address_ = page_address;
  last_page_ = &page;
  return page;
}

bool RemoteMemory::Read(uint64_t address, void* out, size_t size) {
  if (size == 0) return true;
  if (address + size < address) return false;  // wraps around
  if (!budget_.Spend(Work::kBytesRead, size)) return false;
  auto* dest = static_cast<uint8_t*>(out);
  while (size > 0) {
    const uint64_t page_address = address & ~(kPageSize - 1);
    const uint64_t in_page = address - page_address;
    const size_t chunk = std::min<uint64_t>(size, kPageSize - in_page);
    const Page& page = GetPage(page_address);
    if (!page.readable) return false;
    std::memcpy(dest, page.bytes + in_page, chunk);
    dest += chunk;
    address += chunk;
    size -= chunk;
  }
  return true;
}

bool RemoteMemory::ReadUncached(uint64_t address, void* out, size_t size) {
  return CountedFetch(address, out, size);
}

std::optional<std::string> RemoteMemory::BudgetWarning() const {
  if (budget_exhausted_) {
    return "the read budget for one command ran out: output is incomplete...truncated";
  }
  return budget_.Reason();
}

}  // namespace pyunwind
