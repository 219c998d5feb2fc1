// What GDB's CLI says about the target's memory, for the regions and file
// mappings the core asks for (GDB's Python API has no call for either):
//   - `info proc mappings`: the file-backed mappings (of a live process from
//     /proc/PID/maps, of a core from its NT_FILE note), with permissions where
//     GDB prints them;
//   - `maint info sections`: a core's loadN segments, with READONLY and
//     HAS_CONTENTS flags;
//   - `info files`: the sections of the executable and shared libraries GDB
//     reads from their files.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/target/elf_load_bias.h"
#include "core/target/target.h"

namespace pyunwind::gdb {

struct GdbMapping {
  uint64_t start = 0;
  uint64_t end = 0;
  uint64_t offset = 0;
  std::optional<std::string> perms;  // "r-xp"; absent where GDB prints none (a core)
  std::string name;                  // the file; empty for anonymous memory
};

// The rows of `info proc mappings`; other lines are skipped.
std::vector<GdbMapping> ParseInfoProcMappings(std::string_view text);

// The loadN sections under "Core file:" in `maint info sections`, as regions
// (readable: HAS_CONTENTS; writable: not READONLY), unnamed.
std::vector<MemoryRegion> ParseCoreSections(std::string_view text);

// The rows under "Local exec file:" of `info files` ("0x400238 - 0x400253 is
// .interp", "0x55009c7380 - 0x5500adadd0 is .text in /lib/.../libc.so.6"): the
// ranges GDB reads from the executable's or a shared library's file, as
// regions named after the section. Sections that hold no bytes in their file
// (.bss, .tbss, ...) are left out: GDB would read them as zeros too.
std::vector<MemoryRegion> ParseFileSections(std::string_view text);

// Whether some byte of [address, address + size) lies in a core section that
// holds no bytes (one of `core_sections` that is not readable: a segment the
// core left out, as qemu-user and the kernel do with read-only file mappings,
// which GDB reads as zeros) and in none of `file_sections`.
bool LeftOutOfCore(uint64_t address, uint64_t size,
                   const std::vector<MemoryRegion>& core_sections,
                   const std::vector<MemoryRegion>& file_sections);

// What `info auxv` says of the program's ELF headers: AT_PHDR, AT_PHENT, AT_PHNUM and the
// file name AT_EXECFN (rows "3    AT_PHDR    Program headers for program    0x400040").
struct ProgramHeadersOfAuxv {
  std::optional<uint64_t> phdr;
  std::optional<uint64_t> phent;
  std::optional<uint64_t> phnum;
  std::string execfn;
};
ProgramHeadersOfAuxv ParseInfoAuxv(std::string_view text);

// The target's regions: a core's sections named after the mapping that holds
// each, or else (a live process, a remote target) the mappings themselves.
std::vector<MemoryRegion> RegionsOf(std::vector<MemoryRegion> core_sections,
                                    const std::vector<GdbMapping>& mappings);

// The mappings of files, for ModulesOfMappings.
std::vector<FileMapping> FileMappingsOf(const std::vector<GdbMapping>& mappings);

}  // namespace pyunwind::gdb
