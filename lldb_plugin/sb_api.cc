#include "lldb_plugin/sb_api.h"

#include <cxxabi.h>
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace pyunwind_lldb {
namespace {

// An anchor in this library, for dladdr.
void Anchor() {}

bool PreadAll(int fd, void* out, size_t size, uint64_t offset) {
  char* p = static_cast<char*>(out);
  while (size > 0) {
    ssize_t n = ::pread(fd, p, size, static_cast<off_t>(offset));
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

// The lldb::SB* symbols this library leaves undefined (its .dynsym on disk), or an error.
std::vector<std::string> UndefinedSbSymbols(std::string* error) {
  std::vector<std::string> names;
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Anchor), &info) == 0 || info.dli_fname == nullptr) {
    *error = "cannot find the plugin's own file (dladdr)";
    return names;
  }
  const int fd = ::open(info.dli_fname, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = std::string("cannot open the plugin's own file ") + info.dli_fname;
    return names;
  }
  Elf64_Ehdr ehdr;
  std::vector<Elf64_Shdr> sections;
  bool ok = PreadAll(fd, &ehdr, sizeof ehdr, 0) && std::memcmp(ehdr.e_ident, ELFMAG, SELFMAG) == 0 &&
            ehdr.e_ident[EI_CLASS] == ELFCLASS64 && ehdr.e_shentsize == sizeof(Elf64_Shdr) &&
            ehdr.e_shnum > 0 && ehdr.e_shnum < 4096;
  if (ok) {
    sections.resize(ehdr.e_shnum);
    ok = PreadAll(fd, sections.data(), sections.size() * sizeof(Elf64_Shdr), ehdr.e_shoff);
  }
  for (size_t i = 0; ok && i < sections.size(); ++i) {
    const Elf64_Shdr& dynsym = sections[i];
    if (dynsym.sh_type != SHT_DYNSYM || dynsym.sh_link >= sections.size() ||
        dynsym.sh_entsize != sizeof(Elf64_Sym) || dynsym.sh_size > (64u << 20)) {
      continue;
    }
    const Elf64_Shdr& strtab = sections[dynsym.sh_link];
    if (strtab.sh_size > (64u << 20)) break;
    std::vector<Elf64_Sym> symbols(dynsym.sh_size / sizeof(Elf64_Sym));
    std::string strings(strtab.sh_size, '\0');
    ok = PreadAll(fd, symbols.data(), symbols.size() * sizeof(Elf64_Sym), dynsym.sh_offset) &&
         PreadAll(fd, strings.data(), strings.size(), strtab.sh_offset);
    for (size_t s = 0; ok && s < symbols.size(); ++s) {
      const Elf64_Sym& sym = symbols[s];
      if (sym.st_shndx != SHN_UNDEF || ELF64_ST_BIND(sym.st_info) == STB_WEAK ||
          sym.st_name >= strings.size()) {
        continue;
      }
      const char* name = strings.c_str() + sym.st_name;
      if (std::strncmp(name, "_ZN4lldb", 8) == 0 || std::strncmp(name, "_ZNK4lldb", 9) == 0) {
        names.emplace_back(name);
      }
    }
    break;
  }
  ::close(fd);
  if (!ok) *error = std::string("cannot read the dynamic symbols of ") + info.dli_fname;
  return names;
}

std::string Demangled(const std::string& name) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  if (status != 0 || demangled == nullptr) return name;
  std::string out = demangled;
  std::free(demangled);
  return out;
}

// SBDebugger::GetVersionString() of the LLDB in this process ("lldb version 19.1.7 ..."), or
// "" when this process has no such symbol.
std::string LoadedLldbVersion() {
  using GetVersionString = const char* (*)();
  void* symbol = dlsym(RTLD_DEFAULT, "_ZN4lldb10SBDebugger16GetVersionStringEv");
  if (symbol == nullptr) return "";
  const char* version = reinterpret_cast<GetVersionString>(symbol)();
  if (version == nullptr) return "";
  std::string text = version;
  if (auto newline = text.find('\n'); newline != std::string::npos) text.resize(newline);
  return text;
}

// A liblldb loaded with RTLD_LOCAL (Python's `import lldb` loads _lldb.so, which needs
// liblldb, into a local scope) does not bind the plugin's SB calls. Promotes the first loaded
// liblldb (or _lldb module) to the global scope (dlopen RTLD_NOLOAD | RTLD_GLOBAL: no second copy is loaded);
// true if one was promoted.
bool PromoteLoadedLiblldb() {
  std::string path;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        const char* name = info->dlpi_name;
        const char* base = name ? std::strrchr(name, '/') : nullptr;
        base = base ? base + 1 : name;
        // liblldb-N.so.1, or Python's _lldb.cpython-*.so (a link to it).
        if (base && ((std::strncmp(base, "liblldb", 7) == 0 &&
                      std::strncmp(base, "liblldbIntelFeatures", 20) != 0) ||
                     std::strncmp(base, "_lldb.", 6) == 0)) {
          *static_cast<std::string*>(data) = name;
          return 1;
        }
        return 0;
      },
      &path);
  if (path.empty()) return false;
  return dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_GLOBAL) != nullptr;
}

}  // namespace

int LldbMajorOf(const std::string& version) {
  static constexpr std::string_view kPrefix = "lldb version ";
  const size_t at = version.find(kPrefix);
  if (at == std::string::npos) return -1;
  size_t i = at + kPrefix.size();
  if (i >= version.size() || version[i] < '0' || version[i] > '9') return -1;
  int major = 0;
  for (; i < version.size() && version[i] >= '0' && version[i] <= '9' && major < 100000; ++i) {
    major = major * 10 + (version[i] - '0');
  }
  return major;
}

std::string WhyLldbCannotServe() {
  std::string version = LoadedLldbVersion();
  if (version.empty() && PromoteLoadedLiblldb()) version = LoadedLldbVersion();
  const std::string lldb = version.empty() ? std::string("this LLDB") : "this LLDB (" + version + ")";
  if (const int major = LldbMajorOf(version); major >= 0 && major < kOldestLldbMajor) {
    return "pyunwind: not loaded: " + lldb + " is older than LLDB " +
           std::to_string(kOldestLldbMajor) + ", the oldest pyunwind supports";
  }

  std::string error;
  std::vector<std::string> needed = UndefinedSbSymbols(&error);
  if (!error.empty()) return "pyunwind: not loaded: " + error;
  if (const char* extra = std::getenv(kRequireSymbolsEnv); extra && *extra) {
    std::string list = extra;
    for (size_t start = 0; start <= list.size();) {
      size_t comma = list.find(',', start);
      if (comma == std::string::npos) comma = list.size();
      if (comma > start) needed.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  std::vector<std::string> missing;
  for (const std::string& name : needed) {
    if (dlsym(RTLD_DEFAULT, name.c_str()) == nullptr) missing.push_back(name);
  }
  if (missing.empty()) return "";
  std::string line = "pyunwind: not loaded: " + lldb + " lacks " + Demangled(missing[0]) +
                     ", which pyunwind calls";
  if (missing.size() > 1) {
    line += " (and " + std::to_string(missing.size() - 1) + " more of the " +
            std::to_string(needed.size()) + " SB API symbols it uses)";
  }
  return line;
}

}  // namespace pyunwind_lldb
