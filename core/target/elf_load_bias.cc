#include "core/target/elf_load_bias.h"

#include <elf.h>

#include <cstring>
#include <set>
#include <vector>

namespace pyunwind {

std::optional<uint64_t> ElfLoadBias(Target& target, uint64_t base) {
  Elf64_Ehdr header;
  if (!target.ReadMemory(base, &header, sizeof header)) return std::nullopt;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return std::nullopt;
  }
  constexpr uint16_t kMaxProgramHeaders = 256;  // a sane file has a dozen
  if (header.e_phentsize < sizeof(Elf64_Phdr) || header.e_phnum == 0 ||
      header.e_phnum > kMaxProgramHeaders) {
    return std::nullopt;
  }
  // One read for the whole table: each read may be a call into the debugger.
  std::vector<unsigned char> table(size_t{header.e_phentsize} * header.e_phnum);
  if (!target.ReadMemory(base + header.e_phoff, table.data(), table.size())) return std::nullopt;
  for (uint16_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, table.data() + size_t{i} * header.e_phentsize, sizeof ph);
    // The mapping at file offset 0 holds this first PT_LOAD.
    if (ph.p_type == PT_LOAD) return base - (ph.p_vaddr - ph.p_offset);
  }
  return std::nullopt;
}

std::vector<LoadedModule> ModulesOfMappings(Target& target,
                                            const std::vector<FileMapping>& mappings) {
  std::vector<LoadedModule> modules;
  std::set<std::string> seen;
  for (const FileMapping& mapping : mappings) {
    if (mapping.offset != 0 || mapping.path.empty() || mapping.path[0] != '/') continue;
    if (!seen.insert(mapping.path).second) continue;
    if (auto bias = ElfLoadBias(target, mapping.start)) {
      modules.push_back(LoadedModule{mapping.path, *bias});
    }
  }
  return modules;
}

}  // namespace pyunwind
