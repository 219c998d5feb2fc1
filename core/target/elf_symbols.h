// A symbol's value out of an ELF file's own symbol tables, for a front-end whose debugger
// is slow to look one up (GDB through Python: 0.2-0.4 ms for the first).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/target/elf_image.h"

namespace pyunwind {

// The link-time value of the symbol `name` defined in `image` (.dynsym through its GNU hash
// table, as the dynamic linker finds it, then .symtab); nullopt where neither table defines it
// or the tables are damaged. Of several versions the default one (name@@VERSION) is given.
std::optional<uint64_t> FindElfSymbol(const ElfImage& image, std::string_view name);

}  // namespace pyunwind
