#include "core/target/elf_symbols.h"

#include <cstring>
#include <vector>

namespace pyunwind {
namespace {

// The symbol `name` defined in the symbol table `table`, whose names are in section sh_link.
std::optional<uint64_t> FindIn(const ElfImage& image, const std::vector<Elf64_Shdr>& sections,
                               const Elf64_Shdr& table, std::string_view name) {
  if (table.sh_entsize != sizeof(Elf64_Sym) || table.sh_link >= sections.size()) {
    return std::nullopt;
  }
  const Elf64_Shdr& names = sections[table.sh_link];
  const std::optional<std::string_view> symbols = image.SectionBytes(table);
  const std::optional<std::string_view> strings = image.SectionBytes(names);
  if (!symbols || names.sh_type != SHT_STRTAB || !strings) return std::nullopt;
  for (uint64_t i = 0; i < symbols->size() / sizeof(Elf64_Sym); ++i) {
    Elf64_Sym symbol;
    std::memcpy(&symbol, symbols->data() + i * sizeof(Elf64_Sym), sizeof symbol);
    if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= strings->size()) continue;
    const char* candidate = strings->data() + symbol.st_name;
    const size_t room = strings->size() - symbol.st_name;
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
