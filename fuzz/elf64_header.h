// The header of a little-endian x86-64 ELF64 file, for the files the fuzz seeds and the tests
// build (a core of pages, a module that holds only a section).
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>

namespace pyunwind::fuzz {

// Identity, machine, version and the sizes of the header and of its table entries set for a
// file of `type` (ET_CORE, ET_DYN); where the tables are and how many entries they hold are
// the caller's.
inline Elf64_Ehdr X86_64ElfHeader(uint16_t type) {
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = type;
  header.e_machine = EM_X86_64;
  header.e_version = EV_CURRENT;
  header.e_ehsize = sizeof header;
  header.e_phentsize = sizeof(Elf64_Phdr);
  header.e_shentsize = sizeof(Elf64_Shdr);
  return header;
}

}  // namespace pyunwind::fuzz
