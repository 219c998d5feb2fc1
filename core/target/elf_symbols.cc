#include "core/target/elf_symbols.h"

#include <cstring>
#include <vector>

namespace pyunwind {
namespace {

// The symbol `name` defined in the symbol table `table`, whose names are in section sh_link.
std::optional<uint64_t> FindIn(const ElfImage& image, const std::vector<Elf64_Shdr>& sections,
                               const Elf64_Shdr& table, std::string_view name) {
  auto inside = [&](const Elf64_Shdr& s) {
    return s.sh_offset <= image.size() && s.sh_size <= image.size() - s.sh_offset;
  };
  if (table.sh_entsize != sizeof(Elf64_Sym) || table.sh_link >= sections.size() ||
      !inside(table)) {
    return std::nullopt;
  }
  const Elf64_Shdr& names = sections[table.sh_link];
  if (names.sh_type != SHT_STRTAB || !inside(names)) return std::nullopt;
  const char* strings = reinterpret_cast<const char*>(image.bytes() + names.sh_offset);
  const uint8_t* symbols = image.bytes() + table.sh_offset;
  for (uint64_t i = 0; i < table.sh_size / sizeof(Elf64_Sym); ++i) {
    Elf64_Sym symbol;
    std::memcpy(&symbol, symbols + i * sizeof(Elf64_Sym), sizeof symbol);
    if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= names.sh_size) continue;
    const char* candidate = strings + symbol.st_name;
    const size_t room = names.sh_size - symbol.st_name;
    if (name.size() < room && std::memcmp(candidate, name.data(), name.size()) == 0 &&
        candidate[name.size()] == '\0') {
      return symbol.st_value;
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> FindElfSymbol(const ElfImage& image, std::string_view name) {
  if (name.empty()) return std::nullopt;
  auto sections = image.SectionHeaders();
  if (!sections.ok()) return std::nullopt;
  for (const Elf64_Word type : {SHT_DYNSYM, SHT_SYMTAB}) {
    for (const Elf64_Shdr& section : *sections) {
      if (section.sh_type != type) continue;
      if (auto value = FindIn(image, *sections, section, name)) return value;
    }
  }
  return std::nullopt;
}

}  // namespace pyunwind
