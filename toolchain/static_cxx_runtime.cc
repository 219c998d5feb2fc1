// Three glibc symbols newer than 2.31 that GCC 12's static C++ runtime refers to: Debian 12 built
// libstdc++.a and libgcc_eh.a against glibc 2.36. A shipped library links them statically
// (//toolchain:static_cxx_runtime) and must load on glibc 2.31 (toolchain/README.md), so it
// defines them itself, hidden: only its own copy of libstdc++ and libgcc sees them, never the
// debugger or the C library of the process, and on a newer glibc the process's own are untouched.
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "toolchain/dl_find_object.h"

#if !(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
// glibc 2.32's __libc_single_threaded is nonzero while the process has one thread, and
// libstdc++ then skips atomic operations (ext/atomicity.h: shared_ptr and std::string reference
// counts, locale facets) and the lock of a function-local static's guard (guard.cc). Here it is
// 0, always: libstdc++ always takes the thread-safe path, which is correct whatever the number
// of threads (a debugger has several); it only forgoes a shortcut glibc 2.31 cannot offer.
extern "C" {
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;
}
#endif

#if !(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35))
// glibc 2.35's _dl_find_object, which GCC 12's unwinder (unwind-dw2-fde-dip.c, built where it
// exists) calls, and only it, to find the unwind table (PT_GNU_EH_FRAME) of the object that holds
// a pc while a C++ exception is thrown. This one walks the loaded objects with dl_iterate_phdr,
// as that unwinder itself does where glibc has no _dl_find_object.

namespace {

struct Search {
  uintptr_t pc;
  uintptr_t start, end;
  uintptr_t eh_frame;
  bool found;
};

int VisitObject(struct dl_phdr_info* info, size_t, void* data) {
  Search* search = static_cast<Search*>(data);
  uintptr_t start = UINTPTR_MAX, end = 0, eh_frame = 0;
  bool holds_pc = false;
  for (size_t i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
    const uintptr_t begin = info->dlpi_addr + phdr.p_vaddr;
    if (phdr.p_type == PT_LOAD) {
      if (begin < start) start = begin;
      if (begin + phdr.p_memsz > end) end = begin + phdr.p_memsz;
      if (search->pc >= begin && search->pc < begin + phdr.p_memsz) holds_pc = true;
    } else if (phdr.p_type == PT_GNU_EH_FRAME) {
      eh_frame = begin;
    }
  }
  if (!holds_pc) return 0;
  *search = {search->pc, start, end, eh_frame, true};
  return 1;
}

}  // namespace

extern "C" __attribute__((visibility("hidden"))) int _dl_find_object(void* address,
                                                                    PyunwindDlFindObject* result) {
  Search search = {reinterpret_cast<uintptr_t>(address), 0, 0, 0, false};
  dl_iterate_phdr(VisitObject, &search);
  if (!search.found) return -1;
  Dl_info dl_info;
  struct link_map* map = nullptr;
  if (dladdr1(address, &dl_info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0) {
    map = nullptr;
  }
  *result = {};
  result->dlfo_map_start = reinterpret_cast<void*>(search.start);
  result->dlfo_map_end = reinterpret_cast<void*>(search.end);
  result->dlfo_link_map = map;
  result->dlfo_eh_frame = reinterpret_cast<void*>(search.eh_frame);
  return 0;
}
#endif

#if !(__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 36))
// glibc 2.36's arc4random, which libstdc++'s std::random_device (random.cc) calls for its
// "arc4random" source. The same contract: 32 random bits from the kernel (getrandom, glibc 2.25;
// /dev/urandom where the kernel has no getrandom), never failing.
extern "C" __attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t value = 0;
  for (;;) {
    const ssize_t got = getrandom(&value, sizeof value, 0);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
    if (got < 0 && errno != EINTR) break;
  }
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    const ssize_t got = read(fd, &value, sizeof value);
    close(fd);
    if (got == static_cast<ssize_t>(sizeof value)) return value;
  }
  // No source of randomness at all (a kernel older than 3.17 without /dev): the clock.
  struct timespec now = {};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint32_t>(now.tv_nsec ^ (now.tv_sec * 2654435761u));
}
#endif
