#include "core/target/elf_sections.h"

#include "core/target/elf_image.h"

namespace pyunwind {

std::optional<uint64_t> FindElfSection(const std::string& path, std::string_view name) {
  auto image = ElfImage::Map(path);
  if (!image.ok()) return std::nullopt;
  auto section = image->Section(name);
  if (!section.ok() || section->sh_addr == 0) return std::nullopt;
  return section->sh_addr;
}

}  // namespace pyunwind
