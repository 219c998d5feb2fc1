// Two 1 MiB-aligned stretches of 1 MiB, each with its first half mapped (bytes i * 7 + 1) and
// its second half not; prints their addresses, one a line, then waits to be read.
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void) {
  const uintptr_t mib = 1 << 20;
  uint8_t* area = mmap(NULL, 4 * mib, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (area == MAP_FAILED) return 1;
  uint8_t* first = (uint8_t*)(((uintptr_t)area + mib - 1) & ~(mib - 1));
  for (int line = 0; line < 2; ++line) {
    uint8_t* start = first + line * mib;
    for (uintptr_t i = 0; i < mib / 2; ++i) start[i] = (uint8_t)(i * 7 + 1);
    if (munmap(start + mib / 2, mib / 2) != 0) return 1;
    printf("%p\n", (void*)start);
  }
  fflush(stdout);
  for (;;) pause();
}
