// The executable of a live process on this host, as the process runs it: for a front-end
// whose debugger is slow to look up a symbol (GDB through Python: 0.3-0.5 ms for the first
// two of a session), where CPython is linked into the executable (Debian's, pyenv's).
#pragma once

#include <cstdint>
#include <optional>

#include "core/target/elf_image.h"

namespace pyunwind {

struct ProcessExecutable {
  ElfImage image;
  uint64_t load_bias = 0;  // added to the file's addresses in the process
};

// /proc/PID/exe (the file the process maps, even if replaced or deleted on disk since),
// placed where the kernel loaded it: the entry point it gave the process (AT_ENTRY in
// /proc/PID/auxv) against the file's own. nullopt where either cannot be read.
std::optional<ProcessExecutable> OpenProcessExecutable(uint64_t pid);

}  // namespace pyunwind
