// Loaded modules from a debugger that lists file mappings but not modules
// with their load bias (GDB's Python API): the bias read from each file's ELF
// headers in the target's memory.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/target/target.h"

namespace pyunwind {

// A mapping of a file into the target, as /proc/PID/maps or a core's NT_FILE note has it.
struct FileMapping {
  uint64_t start = 0;
  uint64_t offset = 0;  // file offset of `start`
  std::string path;
};

// The load bias of the ELF file whose first page (file offset 0) is mapped at
// `base`: `base` minus the page-aligned vaddr of its first PT_LOAD. nullopt
// unless the headers are readable ELF64 little-endian ones.
std::optional<uint64_t> ElfLoadBias(Target& target, uint64_t base);

// The segments (PT_LOAD) of the program whose program header table the target holds at
// `phdr`, `phnum` entries of `phent` bytes (auxv's AT_PHDR, AT_PHNUM, AT_PHENT), placed by its
// PT_PHDR entry and named `name`: where the debugger lists no regions (qemu-user's gdbstub),
// the executable's data to search for the runtime. Empty unless the table is readable and
// sane.
std::vector<MemoryRegion> ProgramSegments(Target& target, uint64_t phdr, uint64_t phnum,
                                          uint64_t phent, const std::string& name);

// Where the auxiliary vector puts the program header table (AT_PHDR, AT_PHENT, AT_PHNUM).
struct AuxvProgramHeaders {
  uint64_t phdr = 0;
  uint64_t phent = 0;
  uint64_t phnum = 0;
};

// The auxiliary vector's program-header entries read off the process's first stack, at most
// kMaxAuxvSearchBytes above `stack_pointer` (the main thread's): the kernel and qemu-user put
// the auxiliary vector there, above argv and envp, with AT_PHDR, AT_PHENT and AT_PHNUM in a
// row. For a debugger that lists no regions and gives no auxiliary vector (LLDB on qemu's
// gdbstub); ProgramSegments then checks the table (its PT_PHDR must name its own address).
std::optional<AuxvProgramHeaders> AuxvProgramHeadersOnStack(Target& target, uint64_t stack_pointer);

// Each absolute path mapped from file offset 0, once (its first mapping), with its load bias.
std::vector<LoadedModule> ModulesOfMappings(Target& target, const std::vector<FileMapping>& mappings);

}  // namespace pyunwind
