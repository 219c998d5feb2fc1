// A 64-bit ELF file's bytes, mapped from disk or given, and its header and
// tables, each checked to lie inside those bytes: the one ELF reader that
// section look-ups (elf_sections.h) and core files (elf_core_target.h) share.
#pragma once

#include <elf.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/regular_file.h"
#include "core/base/result.h"

namespace pyunwind {

class ElfImage {
 public:
  // Maps the file at `path` read-only. `kind` names it in errors ("core
  // file": "not a 64-bit ELF core file").
  static Result<ElfImage> Map(const std::string& path, std::string_view kind = "file");
  // Maps a file already open (`path` names it in errors).
  static Result<ElfImage> Map(const RegularFile& file, const std::string& path,
                              std::string_view kind = "file");
  // Over bytes the caller keeps alive (the fuzz target).
  static Result<ElfImage> Over(const uint8_t* bytes, size_t size, std::string_view kind = "file");

  ElfImage(ElfImage&& other) noexcept;
  ElfImage& operator=(ElfImage&& other) noexcept;
  ElfImage(const ElfImage&) = delete;
  ElfImage& operator=(const ElfImage&) = delete;
  ~ElfImage();

  const Elf64_Ehdr& header() const { return header_; }
  const uint8_t* bytes() const { return bytes_; }
  size_t size() const { return size_; }

  Result<std::vector<Elf64_Phdr>> ProgramHeaders() const;
  Result<std::vector<Elf64_Shdr>> SectionHeaders() const;
  // The section named `name`; an error when there is none or names are damaged.
  Result<Elf64_Shdr> Section(std::string_view name) const;
  // The bytes of `section` in the file; nullopt where they lie outside it.
  std::optional<std::string_view> SectionBytes(const Elf64_Shdr& section) const;

 private:
  ElfImage() = default;
  Status Check(std::string_view kind);

  const uint8_t* bytes_ = nullptr;
  size_t size_ = 0;
  bool mapped_ = false;  // bytes_ is a mapping this owns
  Elf64_Ehdr header_{};
};

}  // namespace pyunwind
