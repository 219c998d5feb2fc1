#include "core/target/elf_image.h"

#include <fmt/format.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <utility>

namespace pyunwind {
namespace {

constexpr size_t kMaxTableEntries = 1 << 16;
constexpr uint64_t kMaxNamesSize = 1 << 20;

// `count` entries of `entry_size` bytes at `offset` lie inside `size` bytes.
bool TableFits(uint64_t offset, uint64_t count, uint64_t entry_size, size_t size) {
  return count <= kMaxTableEntries && offset <= size && count * entry_size <= size - offset;
}

}  // namespace

Result<ElfImage> ElfImage::Map(const std::string& path, std::string_view kind) {
  // The path may be the target's choice (a module a core names).
  return Map(RegularFile::Open(path), path, kind);
}

Result<ElfImage> ElfImage::Map(const RegularFile& file, const std::string& path,
                               std::string_view kind) {
  switch (file.failure()) {
    case RegularFile::Failure::kCannotOpen:
      return MakeError(fmt::format("cannot open {} {}", kind, path));
    case RegularFile::Failure::kNotRegular:
      return MakeError(fmt::format("{} {} is not a regular file", kind, path));
    case RegularFile::Failure::kNone:
      break;
  }
  if (file.size() == 0) return MakeError(fmt::format("{} {} is empty", kind, path));
  void* mapping = ::mmap(nullptr, file.size(), PROT_READ, MAP_PRIVATE, file.fd(), 0);
  if (mapping == MAP_FAILED) return MakeError(fmt::format("cannot map {} {}", kind, path));
  ElfImage image;
  image.bytes_ = static_cast<const uint8_t*>(mapping);
  image.size_ = static_cast<size_t>(file.size());
  image.mapped_ = true;
  PYU_RETURN_IF_ERROR(image.Check(kind));
  return image;
}

Result<ElfImage> ElfImage::Over(const uint8_t* bytes, size_t size, std::string_view kind) {
  ElfImage image;
  image.bytes_ = bytes;
  image.size_ = size;
  PYU_RETURN_IF_ERROR(image.Check(kind));
  return image;
}

ElfImage::ElfImage(ElfImage&& other) noexcept { *this = std::move(other); }

ElfImage& ElfImage::operator=(ElfImage&& other) noexcept {
  if (this != &other) {
    if (mapped_) ::munmap(const_cast<uint8_t*>(bytes_), size_);
    bytes_ = std::exchange(other.bytes_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, false);
    header_ = other.header_;
  }
  return *this;
}

ElfImage::~ElfImage() {
  if (mapped_) ::munmap(const_cast<uint8_t*>(bytes_), size_);
}

Status ElfImage::Check(std::string_view kind) {
  if (size_ < sizeof header_) return MakeError(fmt::format("not an ELF {}: too short", kind));
  std::memcpy(&header_, bytes_, sizeof header_);
  if (std::memcmp(header_.e_ident, ELFMAG, SELFMAG) != 0 ||
      header_.e_ident[EI_CLASS] != ELFCLASS64) {
    return MakeError(fmt::format("not a 64-bit ELF {}", kind));
  }
  // Every read of the target (pointers, layouts) is little-endian, as on x86-64 and arm64.
  if (header_.e_ident[EI_DATA] != ELFDATA2LSB) {
    return MakeError(fmt::format("a big-endian ELF {}: pyunwind reads little-endian targets only", kind));
  }
  return Ok{};
}

Result<std::vector<Elf64_Phdr>> ElfImage::ProgramHeaders() const {
  if (header_.e_phentsize != sizeof(Elf64_Phdr) ||
      !TableFits(header_.e_phoff, header_.e_phnum, sizeof(Elf64_Phdr), size_)) {
    return MakeError("the program headers are cut off");
  }
  std::vector<Elf64_Phdr> out(header_.e_phnum);
  std::memcpy(out.data(), bytes_ + header_.e_phoff, out.size() * sizeof(Elf64_Phdr));
  return out;
}

Result<std::vector<Elf64_Shdr>> ElfImage::SectionHeaders() const {
  if (header_.e_shentsize != sizeof(Elf64_Shdr) || header_.e_shnum == 0 ||
      header_.e_shstrndx >= header_.e_shnum ||
      !TableFits(header_.e_shoff, header_.e_shnum, sizeof(Elf64_Shdr), size_)) {
    return MakeError("the section headers are cut off");
  }
  std::vector<Elf64_Shdr> out(header_.e_shnum);
  std::memcpy(out.data(), bytes_ + header_.e_shoff, out.size() * sizeof(Elf64_Shdr));
  return out;
}

std::optional<std::string_view> ElfImage::SectionBytes(const Elf64_Shdr& section) const {
  if (section.sh_offset > size_ || section.sh_size > size_ - section.sh_offset) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(bytes_ + section.sh_offset),
                          section.sh_size);
}

Result<Elf64_Shdr> ElfImage::Section(std::string_view name) const {
  PYU_ASSIGN_OR_RETURN(std::vector<Elf64_Shdr> sections, SectionHeaders());
  const Elf64_Shdr& names = sections[header_.e_shstrndx];
  const std::optional<std::string_view> names_bytes = SectionBytes(names);
  if (names.sh_size == 0 || names.sh_size > kMaxNamesSize || !names_bytes) {
    return MakeError("the section names are cut off");
  }
  const char* table = names_bytes->data();
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_name >= names.sh_size) continue;
    const size_t room = names.sh_size - section.sh_name;
    const std::string_view candidate(table + section.sh_name, strnlen(table + section.sh_name, room));
    if (candidate == name) return section;
  }
  return MakeError(fmt::format("no section {}", name));
}

}  // namespace pyunwind
