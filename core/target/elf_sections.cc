#include "core/target/elf_sections.h"

#include <elf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace pyunwind {
namespace {

constexpr size_t kMaxSections = 1 << 16;
constexpr size_t kMaxNamesSize = 1 << 20;

class File {
 public:
  explicit File(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  bool ReadAt(uint64_t offset, void* out, size_t size) const {
    return fd_ >= 0 && ::pread(fd_, out, size, static_cast<off_t>(offset)) == static_cast<ssize_t>(size);
  }

 private:
  int fd_;
};

}  // namespace

std::optional<uint64_t> FindElfSection(const std::string& path, std::string_view name) {
  File file(path);
  Elf64_Ehdr header;
  if (!file.ReadAt(0, &header, sizeof header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_shentsize != sizeof(Elf64_Shdr) ||
      header.e_shnum == 0 || header.e_shnum > kMaxSections || header.e_shstrndx >= header.e_shnum) {
    return std::nullopt;
  }
  std::vector<Elf64_Shdr> sections(header.e_shnum);
  if (!file.ReadAt(header.e_shoff, sections.data(), sections.size() * sizeof(Elf64_Shdr))) {
    return std::nullopt;
  }
  const Elf64_Shdr& names_section = sections[header.e_shstrndx];
  if (names_section.sh_size == 0 || names_section.sh_size > kMaxNamesSize) return std::nullopt;
  std::vector<char> names(names_section.sh_size + 1, '\0');
  if (!file.ReadAt(names_section.sh_offset, names.data(), names_section.sh_size)) return std::nullopt;
  for (const Elf64_Shdr& section : sections) {
    if (section.sh_name >= names_section.sh_size) continue;
    if (std::string_view(&names[section.sh_name]) == name && section.sh_addr != 0) {
      return section.sh_addr;
    }
  }
  return std::nullopt;
}

}  // namespace pyunwind
