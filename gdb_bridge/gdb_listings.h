// What GDB's CLI says about the target's memory, for the regions and file
// mappings the core asks for (GDB's Python API has no call for either):
//   - `info proc mappings`: the file-backed mappings (of a live process from
//     /proc/PID/maps, of a core from its NT_FILE note), with permissions where
//     GDB prints them;
//   - `maint info sections`: a core's loadN segments, with READONLY and
//     HAS_CONTENTS flags.
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

// The target's regions: a core's sections named after the mapping that holds
// each, or else (a live process, a remote target) the mappings themselves.
std::vector<MemoryRegion> RegionsOf(std::vector<MemoryRegion> core_sections,
                                    const std::vector<GdbMapping>& mappings);

// The mappings of files, for ModulesOfMappings.
std::vector<FileMapping> FileMappingsOf(const std::vector<GdbMapping>& mappings);

}  // namespace pyunwind::gdb
