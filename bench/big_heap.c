/* A program that is not Python, with a large heap, parked in a few nested calls: what plain `bt`
 * in GDB costs with and without pyunwind's script (bench/stop_cache_benchmark.py).
 *   big_heap MIB READY_FILE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void __attribute__((noinline)) parked(void) {
  for (;;) pause();
}
static void __attribute__((noinline)) middle(int depth) {
  if (depth > 0) middle(depth - 1);
  parked();
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  const size_t mib = strtoull(argv[1], NULL, 10);
  char** blocks = malloc(mib * sizeof *blocks);
  for (size_t i = 0; blocks != NULL && i < mib; ++i) {
    blocks[i] = malloc(1 << 20); /* 1 MiB each: the heap GDB and a runtime scan would face */
    if (blocks[i] != NULL) memset(blocks[i], (int)i | 1, 1 << 20);
  }
  FILE* ready = fopen(argv[2], "w");
  if (ready != NULL) fclose(ready);
  middle(20);
  return 0;
}
