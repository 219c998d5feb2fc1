#include "core/target/elf_load_bias.h"

#include <elf.h>

#include <cstring>
#include <set>
#include <vector>

#include "core/base/limits.h"

namespace pyunwind {

std::optional<uint64_t> ElfLoadBias(Target& target, uint64_t base) {
  Elf64_Ehdr header;
  if (!target.ReadMemory(base, &header, sizeof header)) return std::nullopt;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 || header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return std::nullopt;
  }
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

std::vector<MemoryRegion> ProgramSegments(Target& target, uint64_t phdr, uint64_t phnum,
                                          uint64_t phent, const std::string& name) {
  if (phent < sizeof(Elf64_Phdr) || phent > 4096 || phnum == 0 || phnum > kMaxProgramHeaders) {
    return {};
  }
  std::vector<unsigned char> table(phent * phnum);
  if (!target.ReadMemory(phdr, table.data(), table.size())) return {};
  std::vector<Elf64_Phdr> headers(phnum);
  for (uint64_t i = 0; i < phnum; ++i) {
    std::memcpy(&headers[i], table.data() + i * phent, sizeof(Elf64_Phdr));
  }
  std::optional<uint64_t> bias;
  for (const Elf64_Phdr& ph : headers) {
    if (ph.p_type == PT_PHDR) bias = phdr - ph.p_vaddr;
  }
  if (!bias) return {};
  constexpr uint64_t kPage = 4096;
  std::vector<MemoryRegion> segments;
  for (const Elf64_Phdr& ph : headers) {
    if (ph.p_type != PT_LOAD || ph.p_memsz == 0) continue;
    const uint64_t start = (ph.p_vaddr + *bias) & ~(kPage - 1);
    const uint64_t end = ph.p_vaddr + *bias + ph.p_memsz;
    if (end <= start) continue;  // wraps
    segments.push_back(MemoryRegion{start, (end + kPage - 1) & ~(kPage - 1),
                                    (ph.p_flags & PF_R) != 0, (ph.p_flags & PF_W) != 0, name});
  }
  return segments;
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
