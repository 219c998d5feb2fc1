#include "core/target/elf_load_bias.h"

#include <elf.h>

#include <algorithm>
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

std::optional<AuxvProgramHeaders> AuxvProgramHeadersOnStack(Target& target,
                                                            uint64_t stack_pointer) {
  constexpr uint64_t kPage = 4096;
  // Six words: AT_PHDR, its value, AT_PHENT, sizeof(Elf64_Phdr), AT_PHNUM, its value.
  std::vector<uint64_t> words;
  uint64_t address = stack_pointer & ~7ull;
  const uint64_t end = address + kMaxAuxvSearchBytes;
  while (address < end) {
    // Up to the page's end, the page read whole where it can be: the stack ends at the first
    // page that cannot be read.
    const uint64_t chunk_end = std::min(end, (address | (kPage - 1)) + 1);
    std::vector<uint64_t> chunk((chunk_end - address) / 8);
    if (chunk.empty() || !target.ReadMemory(address, chunk.data(), chunk.size() * 8)) break;
    words.insert(words.end(), chunk.begin(), chunk.end());
    address = chunk_end;
  }
  for (size_t i = 0; i + 6 <= words.size(); ++i) {
    if (words[i] == AT_PHDR && words[i + 2] == AT_PHENT && words[i + 3] == sizeof(Elf64_Phdr) &&
        words[i + 4] == AT_PHNUM && words[i + 5] > 0 && words[i + 5] <= kMaxProgramHeaders &&
        words[i + 1] != 0) {
      return AuxvProgramHeaders{words[i + 1], words[i + 3], words[i + 5]};
    }
  }
  return std::nullopt;
}

}  // namespace pyunwind
