#include "core/base/prefault.h"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <utility>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older headers lack the names
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

namespace pyunwind {

void PrefaultForWrite(void* data, size_t size) {
  if (data == nullptr || size < kPrefaultMinBytes) return;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto start = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (start + page - 1) & ~(page - 1);
  const uintptr_t end = (start + size) & ~(page - 1);
  if (end <= first) return;
  madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_WRITE);
}

namespace {

struct OwnImage {
  uintptr_t code;          // an address in it
  bool populated = false;  // every read-only segment's madvise succeeded
};

// dl_iterate_phdr's callback: populates the read-only segments of the object whose
// segments hold `code` (data: an OwnImage), and stops there.
int PopulateImageHolding(dl_phdr_info* info, size_t /*size*/, void* data) {
  OwnImage& own = *static_cast<OwnImage*>(data);
  auto segment = [&](const ElfW(Phdr)& phdr) {
    const uintptr_t start = info->dlpi_addr + phdr.p_vaddr;
    return std::pair{start, start + phdr.p_memsz};
  };
  bool holds = false;
  for (int i = 0; i < info->dlpi_phnum && !holds; ++i) {
    const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
    const auto [start, end] = segment(phdr);
    holds = phdr.p_type == PT_LOAD && own.code >= start && own.code < end;
  }
  if (!holds) return 0;
  static const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  own.populated = true;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
    if (phdr.p_type != PT_LOAD || (phdr.p_flags & PF_W) != 0) continue;
    const auto [start, end] = segment(phdr);
    const uintptr_t first = start & ~(page - 1);
    if (madvise(reinterpret_cast<void*>(first), end - first, MADV_POPULATE_READ) != 0) {
      own.populated = false;
    }
  }
  return 1;
}

}  // namespace

bool PopulateOwnImage() {
  OwnImage own{reinterpret_cast<uintptr_t>(&PopulateOwnImage)};
  dl_iterate_phdr(PopulateImageHolding, &own);
  return own.populated;
}

}  // namespace pyunwind
