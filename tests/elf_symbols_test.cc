// FindElfSymbol and OpenProcessExecutable: a live process's symbol found from its own
// executable file, placed where the process runs it (this test's executable, PIE or not).
#include <elf.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstring>
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

TEST(ElfSymbols, NoProcessNoExecutable) {
  EXPECT_FALSE(OpenProcessExecutable(0).has_value());
  EXPECT_FALSE(OpenProcessExecutable(uint64_t{1} << 40).has_value());  // no such pid
}

// Symbol tables whose offsets, sizes or names point outside the file give nothing.
TEST(ElfSymbols, DamagedTablesGiveNothing) {
  // An ELF header, three section headers (null, .dynsym, .dynstr), a symbol, its name.
  std::vector<uint8_t> file(4096);
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_type = ET_DYN;
  header.e_shoff = 512;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = 3;
  header.e_shstrndx = 2;
  Elf64_Shdr sections[3] = {};
  sections[1].sh_type = SHT_DYNSYM;
  sections[1].sh_offset = 1024;
  sections[1].sh_size = 2 * sizeof(Elf64_Sym);
  sections[1].sh_entsize = sizeof(Elf64_Sym);
  sections[1].sh_link = 2;
  sections[2].sh_type = SHT_STRTAB;
  sections[2].sh_offset = 2048;
  sections[2].sh_size = 16;
  Elf64_Sym symbol{};
  symbol.st_name = 1;
  symbol.st_shndx = 5;
  symbol.st_value = 0x1234;
  std::memcpy(file.data() + 2048, "\0_PyRuntime\0", 12);
  auto write = [&] {
    std::memcpy(file.data(), &header, sizeof header);
    std::memcpy(file.data() + 512, sections, sizeof sections);
    std::memcpy(file.data() + 1024 + sizeof(Elf64_Sym), &symbol, sizeof symbol);
  };
  auto find = [&] {
    write();
    auto image = ElfImage::Over(file.data(), file.size());
    EXPECT_TRUE(image.ok());
    return image.ok() ? FindElfSymbol(*image, "_PyRuntime") : std::nullopt;
  };
  EXPECT_EQ(find(), 0x1234u);  // the intact file
  symbol.st_shndx = SHN_UNDEF;  // a reference, not a definition
  EXPECT_EQ(find(), std::nullopt);
  symbol.st_shndx = 5;
  symbol.st_name = 20;  // past the names
  EXPECT_EQ(find(), std::nullopt);
  symbol.st_name = 1;
  sections[2].sh_size = 8;  // the name cut off by its table's end
  EXPECT_EQ(find(), std::nullopt);
  sections[2].sh_size = 16;
  sections[1].sh_size = 1 << 20;  // the table past the file's end
  EXPECT_EQ(find(), std::nullopt);
  sections[1].sh_size = 2 * sizeof(Elf64_Sym);
  sections[1].sh_link = 7;  // no such names section
  EXPECT_EQ(find(), std::nullopt);
  sections[1].sh_link = 2;
  sections[1].sh_entsize = 16;  // not Elf64_Sym
  EXPECT_EQ(find(), std::nullopt);
}

}  // namespace
}  // namespace pyunwind
