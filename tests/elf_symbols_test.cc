// FindElfSymbol and OpenProcessExecutable: a live process's symbol found from its own
// executable file, placed where the process runs it (this test's executable, PIE or not).
#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <vector>

#include "core/target/elf_symbols.h"
#include "core/target/proc_executable.h"

// A global with a name of its own, as _PyRuntime is one in python.
extern "C" {
__attribute__((used, visibility("default"))) int pyunwind_elf_symbols_test_marker = 42;
}

namespace pyunwind {
namespace {

TEST(ElfSymbols, ASymbolOfThisProcessIsWhereItRuns) {
  auto executable = OpenProcessExecutable(static_cast<uint64_t>(getpid()));
  ASSERT_TRUE(executable.has_value());
  auto value = FindElfSymbol(executable->image, "pyunwind_elf_symbols_test_marker");
  ASSERT_TRUE(value.has_value());
  EXPECT_EQ(*value + executable->load_bias,
            reinterpret_cast<uint64_t>(&pyunwind_elf_symbols_test_marker));
  // Names are whole: neither a prefix nor a longer name matches.
  EXPECT_FALSE(FindElfSymbol(executable->image, "pyunwind_elf_symbols_test_mark").has_value());
  EXPECT_FALSE(FindElfSymbol(executable->image, "pyunwind_elf_symbols_test_marker2").has_value());
  EXPECT_FALSE(FindElfSymbol(executable->image, "").has_value());
}

// libc has no .symtab, only .dynsym and its GNU hash table: each name is found where the
// dynamic linker placed it (dladdr's default version, not its older one; no IFUNC, whose
// dlsym gives the implementation chosen), and a name it does not export is not.
TEST(ElfSymbols, ALibrarysExportsThroughItsHashTable) {
  Dl_info info{};
  ASSERT_NE(dladdr(reinterpret_cast<void*>(&getpid), &info), 0);
  auto image = ElfImage::Map(info.dli_fname);
  ASSERT_TRUE(image.ok()) << image.error().message;
  auto sections = image->SectionHeaders();
  ASSERT_TRUE(sections.ok());
  bool has_gnu_hash = false;
  for (const Elf64_Shdr& section : *sections) has_gnu_hash |= section.sh_type == SHT_GNU_HASH;
  ASSERT_TRUE(has_gnu_hash) << info.dli_fname;
  const auto base = reinterpret_cast<uint64_t>(info.dli_fbase);  // its first segment is at 0
  for (const char* name : {"getpid", "malloc", "free", "abort", "dladdr", "environ"}) {
    void* address = dlsym(RTLD_DEFAULT, name);
    ASSERT_NE(address, nullptr) << name;
    Dl_info owner{};
    ASSERT_NE(dladdr(address, &owner), 0);
    if (owner.dli_fbase != info.dli_fbase) continue;  // not libc's (dladdr is libc's since 2.34)
    auto value = FindElfSymbol(*image, name);
    ASSERT_TRUE(value.has_value()) << name;
    EXPECT_EQ(*value + base, reinterpret_cast<uint64_t>(address)) << name;
  }
  EXPECT_FALSE(FindElfSymbol(*image, "pyunwind_no_such_symbol").has_value());
  EXPECT_FALSE(FindElfSymbol(*image, "getpi").has_value());
}

TEST(ElfSymbols, NoProcessNoExecutable) {
  EXPECT_FALSE(OpenProcessExecutable(0).has_value());
  EXPECT_FALSE(OpenProcessExecutable(uint64_t{1} << 40).has_value());  // no such pid
}

// A file of an ELF header, section headers (null, .dynsym, .dynstr and, given a fourth, a
// .gnu.hash), one symbol named _PyRuntime and, for the hash table, its four words, one bloom
// word, one bucket and one chain entry. A test changes the fields, then looks the name up.
struct TinyElf {
  static constexpr std::string_view kName = "_PyRuntime";

  explicit TinyElf(int section_count) {
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = ELFCLASS64;
    header.e_ident[EI_DATA] = ELFDATA2LSB;
    header.e_type = ET_DYN;
    header.e_shoff = 512;
    header.e_shentsize = sizeof(Elf64_Shdr);
    header.e_shnum = section_count;
    sections[1].sh_type = SHT_DYNSYM;
    sections[1].sh_offset = 1024;
    sections[1].sh_size = 2 * sizeof(Elf64_Sym);
    sections[1].sh_entsize = sizeof(Elf64_Sym);
    sections[1].sh_link = 2;
    sections[2].sh_type = SHT_STRTAB;
    sections[2].sh_offset = 2048;
    sections[2].sh_size = 16;
    sections[3].sh_type = SHT_GNU_HASH;
    sections[3].sh_offset = 3072;
    sections[3].sh_size = sizeof hash_table;
    sections[3].sh_link = 1;
    symbol.st_name = 1;
    symbol.st_shndx = 5;
    symbol.st_value = 0x1234;
    std::memcpy(file.data() + 2048, "\0_PyRuntime\0", 12);
  }

  static uint32_t NameHash() {
    uint32_t hash = 5381;
    for (const unsigned char c : kName) hash = hash * 33 + c;
    return hash;
  }

  std::optional<uint64_t> Find() {
    std::memcpy(file.data(), &header, sizeof header);
    std::memcpy(file.data() + 512, sections, sizeof sections);
    std::memcpy(file.data() + 1024 + sizeof(Elf64_Sym), &symbol, sizeof symbol);
    std::memcpy(file.data() + 3072, hash_table, sizeof hash_table);
    auto image = ElfImage::Over(file.data(), file.size());
    EXPECT_TRUE(image.ok());
    return image.ok() ? FindElfSymbol(*image, kName) : std::nullopt;
  }

  std::vector<uint8_t> file = std::vector<uint8_t>(4096);
  Elf64_Ehdr header{};
  Elf64_Shdr sections[4] = {};
  Elf64_Sym symbol{};
  // buckets, first hashed symbol, bloom words, bloom shift; bloom; bucket 0; chain of symbol 1.
  uint32_t hash_table[8] = {1, 1, 1, 6, 0, 0, 1, NameHash() | 1};
};

// Symbol tables whose offsets, sizes or names point outside the file give nothing.
TEST(ElfSymbols, DamagedTablesGiveNothing) {
  TinyElf elf(3);  // no hash table: .dynsym is scanned
  EXPECT_EQ(elf.Find(), 0x1234u);  // the intact file
  elf.symbol.st_shndx = SHN_UNDEF;  // a reference, not a definition
  EXPECT_EQ(elf.Find(), std::nullopt);
  elf.symbol.st_shndx = 5;
  elf.symbol.st_name = 20;  // past the names
  EXPECT_EQ(elf.Find(), std::nullopt);
  elf.symbol.st_name = 1;
  elf.sections[2].sh_size = 8;  // the name cut off by its table's end
  EXPECT_EQ(elf.Find(), std::nullopt);
  elf.sections[2].sh_size = 16;
  elf.sections[1].sh_size = 1 << 20;  // the table past the file's end
  EXPECT_EQ(elf.Find(), std::nullopt);
  elf.sections[1].sh_size = 2 * sizeof(Elf64_Sym);
  elf.sections[1].sh_link = 7;  // no such names section
  EXPECT_EQ(elf.Find(), std::nullopt);
  elf.sections[1].sh_link = 2;
  elf.sections[1].sh_entsize = 16;  // not Elf64_Sym
  EXPECT_EQ(elf.Find(), std::nullopt);
}

// A .dynsym with a GNU hash table: the name is found through its bucket's chain; a table
// whose chain says the name is not there is believed, as the dynamic linker believes it;
// a damaged table (no buckets, chains past its end) leaves the symbols to be scanned.
TEST(ElfSymbols, HashTableIsFollowedAndCheckedAgainstItsBounds) {
  TinyElf elf(4);
  uint32_t* table = elf.hash_table;
  const uint32_t hash = TinyElf::NameHash();
  EXPECT_EQ(elf.Find(), 0x1234u);
  table[7] = (hash + 2) | 1;  // another name's hash: not in this table
  EXPECT_EQ(elf.Find(), std::nullopt);
  table[7] = hash | 1;
  table[6] = 7;  // the bucket starts past the symbols
  EXPECT_EQ(elf.Find(), std::nullopt);
  table[6] = 1;
  table[0] = 0;  // no buckets: damaged, scanned
  EXPECT_EQ(elf.Find(), 0x1234u);
  table[0] = 1;
  table[2] = 1000;  // bloom words past the table's end: damaged, scanned
  EXPECT_EQ(elf.Find(), 0x1234u);
  table[2] = 1;
  elf.sections[3].sh_size = 28;  // the chain cut off: the name not found by hash, then scanned
  EXPECT_EQ(elf.Find(), 0x1234u);
}

}  // namespace
}  // namespace pyunwind
