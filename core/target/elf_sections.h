// Reading a section's address out of an ELF file on disk: CPython 3.12+
// places _PyRuntime in its own ".PyRuntime" section, which finds the
// runtime of a binary whose symbols were stripped.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pyunwind {

// The link-time address of section `name` in the ELF file at `path`, or
// nullopt when the file cannot be read, is not a 64-bit ELF, or lacks it.
std::optional<uint64_t> FindElfSection(const std::string& path, std::string_view name);

}  // namespace pyunwind
