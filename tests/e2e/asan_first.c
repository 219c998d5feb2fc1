// Preloaded after libasan into the uninstrumented debuggers of `bazel test --config=asan`,
// which load pyunwind's instrumented plugin and bridge.
//
// Why: ASan's runtime initialises itself on the first call it intercepts unless its own
// constructor runs first, and in GDB it does not: libp11-kit (GnuTLS, under libdebuginfod)
// is constructed earlier and calls newlocale(), which takes glibc's setlocale lock and then
// malloc(). ASan's start-up inside that lock calls dlerror(), whose message translation
// read-locks the same lock, fails (the thread holds it for writing), unlocks it anyway and
// leaves it corrupted; GDB's own setlocale() in main() then waits forever. Initialising ASan
// before the first newlocale() keeps its start-up out of the lock.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <locale.h>
#include <stddef.h>

// ASan's public initialiser (what every instrumented module's constructor calls); weak, so
// that this library still loads, and only forwards, without libasan.
extern void __asan_init(void) __attribute__((weak));

typedef locale_t (*newlocale_fn)(int, const char*, locale_t);

// Not instrumented itself: it runs before ASan's shadow memory exists.
__attribute__((no_sanitize_address))
locale_t newlocale(int category_mask, const char* locale, locale_t base) {
  static newlocale_fn next_newlocale;
  if (__asan_init) __asan_init();
  if (next_newlocale == NULL) next_newlocale = (newlocale_fn)dlsym(RTLD_NEXT, "newlocale");
  return next_newlocale(category_mask, locale, base);
}
