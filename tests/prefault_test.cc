// core/base/prefault.h: PopulateOwnImage maps in every read-only page of the loaded file
// that holds it (here the test's own executable), as /proc/self/pagemap shows.
#include "core/base/prefault.h"

#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

namespace pyunwind {
namespace {

struct Segment {
  uintptr_t start, end;
};

// The read-only loadable segments of the object holding PopulateOwnImage.
std::vector<Segment> ReadOnlySegmentsOfOwnImage() {
  struct Found {
    uintptr_t code;
    std::vector<Segment> segments;
  } found{reinterpret_cast<uintptr_t>(&PopulateOwnImage), {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto& f = *static_cast<Found*>(data);
        std::vector<Segment> read_only;
        bool holds = false;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
          if (phdr.p_type != PT_LOAD) continue;
          const uintptr_t start = info->dlpi_addr + phdr.p_vaddr;
          holds |= f.code >= start && f.code < start + phdr.p_memsz;
          if ((phdr.p_flags & PF_W) == 0) read_only.push_back({start, start + phdr.p_memsz});
        }
        if (holds) f.segments = read_only;
        return holds ? 1 : 0;
      },
      &found);
  return found.segments;
}

// Pages of [start, end) that /proc/self/pagemap says are not mapped.
size_t PagesNotPresent(int pagemap, Segment segment) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  size_t absent = 0;
  for (uintptr_t p = segment.start & ~(page - 1); p < segment.end; p += page) {
    uint64_t entry = 0;
    if (pread(pagemap, &entry, sizeof(entry), static_cast<off_t>(p / page * sizeof(entry))) !=
        static_cast<ssize_t>(sizeof(entry))) {
      return SIZE_MAX;
    }
    absent += (entry >> 63) == 0;  // bit 63: page present
  }
  return absent;
}

TEST(PopulateOwnImage, MapsEveryReadOnlyPageOfItsFile) {
  const std::vector<Segment> segments = ReadOnlySegmentsOfOwnImage();
  ASSERT_FALSE(segments.empty());
  const int pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(pagemap, 0) << std::strerror(errno);
  // Unmapped first (the file's pages stay in the page cache; code run from here on faults
  // its pages back), so that pages the program already ran cannot pass for populated ones.
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  size_t absent = 0;
  for (const Segment& segment : segments) {
    const uintptr_t first = segment.start & ~(page - 1);
    ASSERT_EQ(madvise(reinterpret_cast<void*>(first), segment.end - first, MADV_DONTNEED), 0);
    absent += PagesNotPresent(pagemap, segment);
  }
  EXPECT_GT(absent, 0u);
  if (!PopulateOwnImage()) {
    close(pagemap);
    GTEST_SKIP() << "madvise(MADV_POPULATE_READ) is refused here (Linux before 5.14?): "
                 << std::strerror(errno);
  }
  for (const Segment& segment : segments) {
    EXPECT_EQ(PagesNotPresent(pagemap, segment), 0u)
        << std::hex << segment.start << "-" << segment.end;
  }
  close(pagemap);
}

}  // namespace
}  // namespace pyunwind
