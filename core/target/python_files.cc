#include "core/target/python_files.h"

#include <string_view>

#include "core/target/elf_image.h"

namespace pyunwind {
namespace {

bool IsPythonFileName(std::string_view path) {
  const size_t slash = path.rfind('/');
  const std::string_view name = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (name.substr(0, 9) == "libpython") return true;
  return name.size() > 6 && name.substr(0, 6) == "python" && name[6] >= '0' && name[6] <= '9';
}

// Whether a string table of `image` (.dynstr, .strtab) holds the name _PyRuntime.
bool NamesRuntime(const ElfImage& image) {
  constexpr std::string_view kNeedle("\0_PyRuntime\0", 12);
  auto sections = image.SectionHeaders();
  if (!sections.ok()) return false;
  for (const Elf64_Shdr& section : *sections) {
    if (section.sh_type != SHT_STRTAB) continue;
    const std::optional<std::string_view> names = image.SectionBytes(section);
    if (names && names->find(kNeedle) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

PythonInFiles PythonInModuleFiles(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (IsPythonFileName(path)) return PythonInFiles::kYes;
  }
  bool all_read = !paths.empty();
  for (const std::string& path : paths) {
    auto image = ElfImage::Map(path);
    if (!image.ok()) {
      all_read = false;
      continue;
    }
    if (NamesRuntime(*image)) return PythonInFiles::kYes;
  }
  return all_read ? PythonInFiles::kNo : PythonInFiles::kUnknown;
}

int PythonInModuleFilesForC(const char* const* paths, size_t count) noexcept {
  try {
    std::vector<std::string> list;
    for (size_t i = 0; paths != nullptr && i < count; ++i) {
      if (paths[i] != nullptr) list.emplace_back(paths[i]);
    }
    return static_cast<int>(PythonInModuleFiles(list));
  } catch (...) {  // out of memory: undecided
    return static_cast<int>(PythonInFiles::kUnknown);
  }
}

}  // namespace pyunwind
