#include "gdb_bridge/gdb_listings.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "core/commands/arguments.h"

namespace pyunwind::gdb {
namespace {

uint64_t Hex(const std::ssub_match& match) {
  return ParseUnsigned(match.str(), UINT64_MAX, 16).value_or(0);
}

bool HasWord(const std::string& words, const std::string& word) {
  std::istringstream in(words);
  std::string w;
  while (in >> w) {
    if (w == word) return true;
  }
  return false;
}

// Calls on_line(line) for each line of `text`, then on_row(match) if it matches `row`.
template <typename OnLine, typename OnRow>
void ForEachRow(std::string_view text, const std::regex& row, OnLine on_line, OnRow on_row) {
  std::istringstream in{std::string(text)};
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (on_line(line) && std::regex_match(line, m, row)) on_row(m);
  }
}

bool AnyLine(const std::string&) { return true; }

}  // namespace

std::vector<GdbMapping> ParseInfoProcMappings(std::string_view text) {
  // "  0x55d0c000  0x55d0d000  0x1000  0x0  r--p  /usr/bin/python3.11" (Perms column optional)
  static const std::regex row(
      R"(^\s*0x([0-9a-fA-F]+)\s+0x([0-9a-fA-F]+)\s+0x[0-9a-fA-F]+\s+0x([0-9a-fA-F]+))"
      R"((?:\s+([r-][w-][x-][ps-]))?\s*(.*)$)");
  std::vector<GdbMapping> mappings;
  ForEachRow(text, row, AnyLine, [&](const std::smatch& m) {
    GdbMapping mapping{Hex(m[1]), Hex(m[2]), Hex(m[3]), std::nullopt, m[5].str()};
    if (m[4].matched) mapping.perms = m[4].str();
    while (!mapping.name.empty() && std::isspace(static_cast<unsigned char>(mapping.name.back()))) {
      mapping.name.pop_back();
    }
    mappings.push_back(std::move(mapping));
  });
  return mappings;
}

std::vector<MemoryRegion> ParseCoreSections(std::string_view text) {
  // " [12]     0x7f00->0x7f10 at 0x00001000: load3 ALLOC LOAD READONLY HAS_CONTENTS"
  static const std::regex row(
      R"(^\s*\[\s*\d+\]\s+0x([0-9a-fA-F]+)->0x([0-9a-fA-F]+)\s+at\s+0x[0-9a-fA-F]+:\s+)"
      R"((load\d+\w*)\s*(.*)$)");
  std::vector<MemoryRegion> sections;
  bool in_core = false;  // the rows under "Core file:", not the executable's
  const auto under_core_file = [&](const std::string& line) {
    if (line.rfind("Core file:", 0) == 0) {
      in_core = true;
    } else if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0]))) {
      in_core = false;
    }
    return in_core;
  };
  ForEachRow(text, row, under_core_file, [&](const std::smatch& m) {
    const std::string flags = m[4].str();
    sections.push_back(MemoryRegion{Hex(m[1]), Hex(m[2]), HasWord(flags, "HAS_CONTENTS"),
                                    !HasWord(flags, "READONLY"), ""});
  });
  return sections;
}

std::vector<MemoryRegion> ParseFileSections(std::string_view text) {
  static const std::regex row(
      R"(^\s*0x([0-9a-fA-F]+)\s+-\s+0x([0-9a-fA-F]+)\s+is\s+(\S+)(?:\s+in\s+.*)?$)");
  std::vector<MemoryRegion> sections;
  bool in_files = false;
  const auto under_exec_file = [&](const std::string& line) {
    if (line.rfind("Local exec file:", 0) == 0) {
      in_files = true;
    } else if (!line.empty() && !std::isspace(static_cast<unsigned char>(line[0]))) {
      in_files = false;
    }
    return in_files;
  };
  ForEachRow(text, row, under_exec_file, [&](const std::smatch& m) {
    const std::string name = m[3].str();
    for (const char* empty : {".bss", ".tbss", ".sbss", ".lbss"}) {
      if (name.rfind(empty, 0) == 0) return;
    }
    if (Hex(m[2]) > Hex(m[1])) {
      sections.push_back(MemoryRegion{Hex(m[1]), Hex(m[2]), true, false, name});
    }
  });
  return sections;
}

bool LeftOutOfCore(uint64_t address, uint64_t size,
                   const std::vector<MemoryRegion>& core_sections,
                   const std::vector<MemoryRegion>& file_sections) {
  const uint64_t end = address + size < address ? UINT64_MAX : address + size;
  for (const MemoryRegion& hole : core_sections) {
    if (hole.readable || hole.end <= address || end <= hole.start) continue;
    // The part of the read in this hole must be covered by file sections, which may
    // follow one another with gaps (alignment) between them.
    uint64_t at = std::max(address, hole.start);
    const uint64_t stop = std::min(end, hole.end);
    while (at < stop) {
      const MemoryRegion* cover = nullptr;
      for (const MemoryRegion& file : file_sections) {
        if (file.start <= at && at < file.end) {
          cover = &file;
          break;
        }
      }
      if (cover == nullptr) return true;
      at = cover->end;
    }
  }
  return false;
}

ProgramHeadersOfAuxv ParseInfoAuxv(std::string_view text) {
  // "5    AT_PHNUM   Number of program headers   9"; AT_EXECFN's value is followed by its string.
  static const std::regex row(
      R"(^\s*(\d+)\s+AT_\w+\s.*?\s(0x[0-9a-fA-F]+|\d+)(?:\s+\"(.*)\")?\s*$)");
  ProgramHeadersOfAuxv auxv;
  ForEachRow(text, row, AnyLine, [&](const std::smatch& m) {
    const std::string value = m[2].str();
    const std::optional<uint64_t> number =
        value.rfind("0x", 0) == 0 ? ParseUnsigned(value.substr(2), UINT64_MAX, 16)
                                  : ParseUnsigned(value, UINT64_MAX, 10);
    const auto type = ParseUnsigned(m[1].str(), UINT64_MAX, 10);
    if (!type || !number) return;
    if (*type == 3) auxv.phdr = number;   // AT_PHDR
    if (*type == 4) auxv.phent = number;  // AT_PHENT
    if (*type == 5) auxv.phnum = number;  // AT_PHNUM
    if (*type == 31 && m[3].matched) auxv.execfn = m[3].str();  // AT_EXECFN
  });
  return auxv;
}

std::vector<MemoryRegion> RegionsOf(std::vector<MemoryRegion> core_sections,
                                    const std::vector<GdbMapping>& mappings) {
  if (!core_sections.empty()) {
    std::vector<const GdbMapping*> named;
    for (const GdbMapping& m : mappings) {
      if (!m.name.empty()) named.push_back(&m);
    }
    std::sort(named.begin(), named.end(),
              [](const GdbMapping* a, const GdbMapping* b) { return a->start < b->start; });
    for (MemoryRegion& region : core_sections) {
      for (const GdbMapping* m : named) {
        if (m->start <= region.start && region.start < m->end) {
          region.name = m->name;
          break;
        }
      }
    }
    return core_sections;
  }
  std::vector<MemoryRegion> regions;
  for (const GdbMapping& m : mappings) {
    const std::string perms = m.perms.value_or("r");
    if (m.end <= m.start) continue;
    regions.push_back(MemoryRegion{m.start, m.end, perms.find('r') != std::string::npos,
                                   perms.find('w') != std::string::npos, m.name});
  }
  return regions;
}

std::vector<FileMapping> FileMappingsOf(const std::vector<GdbMapping>& mappings) {
  std::vector<FileMapping> files;
  for (const GdbMapping& m : mappings) {
    if (!m.name.empty()) files.push_back(FileMapping{m.start, m.offset, m.name});
  }
  return files;
}

}  // namespace pyunwind::gdb
