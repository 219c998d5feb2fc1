#include "core/target/elf_symbols.h"

#include <cstring>
#include <vector>

namespace pyunwind {
namespace {

// A symbol table, its names and, for .dynsym, its versions (.gnu.version: a 16-bit word per
// symbol whose top bit marks an older, non-default version such as dladdr@GLIBC_2.2.5 beside
// dladdr@@GLIBC_2.34).
struct SymbolTable {
  std::string_view symbols;  // Elf64_Sym entries
  std::string_view strings;
  std::string_view versions;  // empty where there are none

  uint64_t count() const { return symbols.size() / sizeof(Elf64_Sym); }
  Elf64_Sym at(uint64_t i) const {
    Elf64_Sym symbol;
    std::memcpy(&symbol, symbols.data() + i * sizeof(Elf64_Sym), sizeof symbol);
    return symbol;
  }
  bool IsOlderVersion(uint64_t i) const {
    uint16_t version = 0;
    if (versions.size() / 2 > i) std::memcpy(&version, versions.data() + i * 2, 2);
    return (version & 0x8000) != 0;
  }
  // Whether symbol `i` is a definition named `name`.
  bool Defines(uint64_t i, std::string_view name) const {
    const Elf64_Sym symbol = at(i);
    if (symbol.st_shndx == SHN_UNDEF || symbol.st_name >= strings.size()) return false;
    const std::string_view candidate = strings.substr(symbol.st_name);
    return candidate.size() > name.size() && candidate.compare(0, name.size(), name) == 0 &&
           candidate[name.size()] == '\0';
  }
};

// The definitions of one name met so far: the default version wins over an older one.
struct Candidates {
  std::optional<uint64_t> older;
  std::optional<uint64_t> Take(const SymbolTable& table, uint64_t i) {
    if (!table.IsOlderVersion(i)) return table.at(i).st_value;
    if (!older) older = table.at(i).st_value;
    return std::nullopt;
  }
};

// The symbol table `table`, its names (section sh_link) and, given, its versions;
// nullopt where damaged.
std::optional<SymbolTable> TableOf(const ElfImage& image, const std::vector<Elf64_Shdr>& sections,
                                   const Elf64_Shdr& table, const Elf64_Shdr* versions) {
  if (table.sh_entsize != sizeof(Elf64_Sym) || table.sh_link >= sections.size()) {
    return std::nullopt;
  }
  const Elf64_Shdr& names = sections[table.sh_link];
  const std::optional<std::string_view> symbols = image.SectionBytes(table);
  const std::optional<std::string_view> strings = image.SectionBytes(names);
  if (!symbols || names.sh_type != SHT_STRTAB || !strings) return std::nullopt;
  std::optional<std::string_view> version_words;
  if (versions != nullptr) version_words = image.SectionBytes(*versions);
  return SymbolTable{*symbols, *strings, version_words.value_or(std::string_view())};
}

std::optional<uint64_t> ScanFor(const SymbolTable& table, std::string_view name) {
  Candidates found;
  for (uint64_t i = 0; i < table.count(); ++i) {
    if (!table.Defines(i, name)) continue;
    if (auto value = found.Take(table, i)) return value;
  }
  return found.older;
}

uint32_t GnuHash(std::string_view name) {
  uint32_t hash = 5381;
  for (const unsigned char c : name) hash = hash * 33 + c;
  return hash;
}

struct HashAnswer {
  bool damaged = false;  // only a scan of the table can tell whether the name is there
  std::optional<uint64_t> value;
};

// `name` in `table` through its GNU hash table `hash_section`, as the dynamic linker looks
// it up: one bucket's chain instead of every symbol (python3.11's .dynsym has 2,200, their
// names 40 KB).
HashAnswer HashFor(std::string_view hash_section, const SymbolTable& table,
                   std::string_view name) {
  auto word = [&](uint64_t offset) -> std::optional<uint32_t> {
    if (offset > hash_section.size() || hash_section.size() - offset < 4) return std::nullopt;
    uint32_t value;
    std::memcpy(&value, hash_section.data() + offset, 4);
    return value;
  };
  const auto buckets = word(0), first_hashed = word(4), bloom_words = word(8);
  if (!buckets || !first_hashed || !bloom_words || *buckets == 0) return {true, std::nullopt};
  const uint64_t buckets_at = 16 + uint64_t{*bloom_words} * 8;
  const uint64_t chains_at = buckets_at + uint64_t{*buckets} * 4;
  const uint32_t hash = GnuHash(name);
  // The bloom filter is skipped: the bucket's chain answers as surely, in a page or two.
  const std::optional<uint32_t> start = word(buckets_at + uint64_t{hash % *buckets} * 4);
  if (!start) return {true, std::nullopt};
  // A chain runs through consecutive symbols up to an entry with its low bit set.
  Candidates found;
  for (uint64_t index = *start; index >= *first_hashed && index < table.count(); ++index) {
    const std::optional<uint32_t> chained = word(chains_at + (index - *first_hashed) * 4);
    if (!chained) return {true, std::nullopt};
    if ((*chained | 1) == (hash | 1) && table.Defines(index, name)) {
      if (auto value = found.Take(table, index)) return {false, value};
    }
    if (*chained & 1) break;
  }
  return {false, found.older};
}

}  // namespace

std::optional<uint64_t> FindElfSymbol(const ElfImage& image, std::string_view name) {
  if (name.empty()) return std::nullopt;
  auto sections = image.SectionHeaders();
  if (!sections.ok()) return std::nullopt;
  auto linked_to = [&](size_t table, Elf64_Word type) -> const Elf64_Shdr* {
    for (const Elf64_Shdr& section : *sections) {
      if (section.sh_type == type && section.sh_link == table) return &section;
    }
    return nullptr;
  };
  for (const Elf64_Word type : {SHT_DYNSYM, SHT_SYMTAB}) {
    for (size_t i = 0; i < sections->size(); ++i) {
      if ((*sections)[i].sh_type != type) continue;
      const std::optional<SymbolTable> table =
          TableOf(image, *sections, (*sections)[i], linked_to(i, SHT_GNU_versym));
      if (!table) continue;
      // .dynsym through its GNU hash table where there is one and it is whole.
      const Elf64_Shdr* hash = linked_to(i, SHT_GNU_HASH);
      const std::optional<std::string_view> hash_bytes =
          hash != nullptr ? image.SectionBytes(*hash) : std::nullopt;
      if (hash_bytes) {
        const HashAnswer answer = HashFor(*hash_bytes, *table, name);
        if (answer.value) return answer.value;
        if (!answer.damaged) continue;
      }
      if (auto value = ScanFor(*table, name)) return value;
    }
  }
  return std::nullopt;
}

}  // namespace pyunwind
