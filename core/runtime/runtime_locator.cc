#include "core/runtime/runtime_locator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <optional>
#include <regex>

#include "core/base/address.h"
#include "core/layout/debug_offsets.h"
#include "core/layout/minor_versions.h"
#include "core/target/elf_sections.h"
#include "core/target/memory_scan.h"
#include "core/objects/objects.h"

namespace pyunwind {
namespace {


// How far a patch release may move the embedded main interpreter from where
// the table's release had it.
constexpr uint64_t kEmbeddedInterpreterSlack = 4096;

// A 3.11/3.12 runtime embeds its main interpreter near a known offset and
// points at it; the interpreter points back at the runtime. Two pointers that
// agree by chance are unlikely.
bool PointsToEmbeddedInterpreter(const Layout& l, uint64_t runtime, uint64_t main) {
  if (main % 8 != 0 || main <= runtime || l.runtime.main_interpreter_embedded < 0) return false;
  // Unsigned: `main` and `runtime` are any two words of the target.
  const uint64_t offset = main - runtime;
  const uint64_t expected = static_cast<uint64_t>(l.runtime.main_interpreter_embedded);
  return offset + kEmbeddedInterpreterSlack >= expected &&
         offset <= expected + kEmbeddedInterpreterSlack;
}

// Where the runtime keeps the interpreter a match is checked through: interpreters.main, or
// in 2.7 and 3.6 (whose "runtime" is pystate.c's interp_head) the head of the list.
int32_t CheckedInterpreter(const Layout& l) {
  return l.runtime.interpreters_main != kAbsent ? l.runtime.interpreters_main
                                                : l.runtime.interpreters_head;
}

// An int of the sys module (sys.hexversion, sys.maxunicode), read through the main
// interpreter's sys dict.
std::optional<int64_t> SysInt(RemoteMemory& memory, const Layout& layout, uint64_t runtime,
                              std::string_view name) {
  ObjectReader objects(memory, layout);
  auto interp = memory.ReadPointer(runtime + CheckedInterpreter(layout));
  if (!interp || *interp == 0) return std::nullopt;
  auto sysdict = memory.ReadPointer(*interp + layout.interp.sysdict);
  if (!sysdict || *sysdict == 0) return std::nullopt;
  auto value = objects.LookupStringKey(*sysdict, name);
  if (!value.ok() || *value == 0) return std::nullopt;
  auto number = objects.ReadInt(*value);
  if (!number.ok()) return std::nullopt;
  return *number;
}

std::optional<uint32_t> HexversionFromSys(RemoteMemory& memory, const Layout& layout,
                                          uint64_t runtime) {
  auto number = SysInt(memory, layout, runtime, "hexversion");
  if (!number || *number <= 0 || *number > 0xffffffff) return std::nullopt;
  return static_cast<uint32_t>(*number);
}

// 2.7 is built with Py_UNICODE of 2 bytes (UCS2, sys.maxunicode 0xffff) or 4 (UCS4,
// 0x10ffff, as pyenv's and Debian's are); the table says 4 until the target tells.
void ReadUnicodeWidth(RemoteMemory& memory, RuntimeLocation& location) {
  Layout& l = location.layout;
  if (l.unicode.legacy_str == kAbsent) return;
  const std::optional<int64_t> maxunicode = SysInt(memory, l, location.address, "maxunicode");
  if (maxunicode == 0xffff) {
    l.unicode.legacy_unit_bytes = 2;
  } else if (maxunicode != 0x10ffff) {
    location.warnings.push_back(
        "sys.maxunicode is unreadable: unicode objects are read as UCS4 (4 bytes a character)");
  }
}

// 3.7-3.10 allocate the main interpreter on the heap. Their runtimes lay out
// alike, so a match is the interpreter's first thread state pointing back at
// it (and the interpreter at the runtime, where it can), then its own
// sys.hexversion naming the table's minor version.
bool HeapInterpreterMatches(RemoteMemory& memory, const Layout& l, uint64_t runtime) {
  auto main = memory.ReadPointer(runtime + CheckedInterpreter(l));
  if (!main || !Aligned(*main) || *main == 0) return false;
  if (l.interp.runtime != kAbsent) {
    auto back = memory.ReadPointer(*main + l.interp.runtime);
    if (!back || *back != runtime) return false;
  }
  auto tstate = memory.ReadPointer(*main + l.interp.threads_head);
  if (!tstate || !Aligned(*tstate) || *tstate == 0) return false;
  auto back = memory.ReadPointer(*tstate + l.tstate.interp);
  if (!back || *back != *main) return false;
  auto hexversion = HexversionFromSys(memory, l, runtime);
  return hexversion && (*hexversion >> 16) == (l.version.hexversion >> 16);
}

bool TableMatches(RemoteMemory& memory, const Layout& l, uint64_t runtime) {
  if (l.runtime.main_interpreter_embedded == kAbsent) {
    return HeapInterpreterMatches(memory, l, runtime);
  }
  auto main = memory.ReadPointer(runtime + l.runtime.interpreters_main);
  if (!main || !PointsToEmbeddedInterpreter(l, runtime, *main)) return false;
  auto back = memory.ReadPointer(*main + l.interp.runtime);
  return back && *back == runtime;
}

// How far from the exported _PyThreadState_Current an interp_head is looked for: both
// are statics of pystate.c, so in the same data section (16 bytes apart in pyenv's 3.6.15,
// 8 in its 2.7.18).
constexpr uint64_t kInterpHeadNeighborhood = 64 * 1024;

// Where pystate.c's autoInterpreterState (the main interpreter, in a process without
// subinterpreters) follows interp_head: the next word (3.6.15), or the one after, with
// autoTLSkey between (2.7.18). Compilers keep a file's statics in order.
constexpr uint64_t kAutoInterpreterAfterHead[] = {8, 16};

// The versions whose interpreter list starts at interp_head (2.7, 3.6), the hinted one first.
std::vector<Layout> InterpHeadTables(uint32_t hexversion_hint) {
  std::vector<Layout> tables;
  for (uint32_t version : VersionsWithoutDebugOffsets()) {
    auto layout = LayoutFromTable(version);
    if (layout.ok() && layout->runtime.interpreters_main == kAbsent) tables.push_back(*layout);
  }
  std::stable_partition(tables.begin(), tables.end(), [&](const Layout& l) {
    return l.version.hexversion >> 16 == hexversion_hint >> 16;
  });
  return tables;
}

// 2.7 and 3.6 have no _PyRuntime: their interpreters are listed from pystate.c's static
// interp_head, found by its symbol, or else among the words near _PyThreadState_Current,
// each candidate checked as a 3.7-3.10 runtime is (a thread state pointing back,
// sys.hexversion).
std::optional<RuntimeLocation> LocateInterpHead(RemoteMemory& memory, uint32_t hexversion_hint) {
  Target& target = memory.target();
  for (const Layout& layout : InterpHeadTables(hexversion_hint)) {
    if (auto head = target.FindSymbol("interp_head");
        head && HeapInterpreterMatches(memory, layout, *head)) {
      return RuntimeLocation{*head, layout, "the interp_head symbol", {}};
    }
    auto current = target.FindSymbol("_PyThreadState_Current");
    if (!current || *current < kInterpHeadNeighborhood) continue;
    for (uint64_t word = *current - kInterpHeadNeighborhood;
         word < *current + kInterpHeadNeighborhood; word += 8) {
      if (memory.target().Interrupted()) return std::nullopt;
      if (HeapInterpreterMatches(memory, layout, word)) {
        return RuntimeLocation{word, layout, "a scan near _PyThreadState_Current", {}};
      }
    }
  }
  return std::nullopt;
}

std::optional<uint32_t> HexversionFromSymbol(Target& target, RemoteMemory& memory) {
  auto address = target.FindSymbol("Py_Version");  // 3.11+: const unsigned long
  if (!address) return std::nullopt;
  auto value = memory.ReadValue<uint64_t>(*address);
  if (!value || (*value >> 24) != 3) return std::nullopt;
  return static_cast<uint32_t>(*value);
}

// "python3.10" / "libpython3.10.so" among the modules names the version of
// a Python we cannot read, so the user learns which one it is.
std::optional<PythonVersion> VersionFromModuleNames(Target& target) {
  static const std::regex kPythonName(R"((?:^|/)(?:lib)?python(\d)\.(\d+)[^/]*$)");
  for (const LoadedModule& module : target.Modules()) {
    std::smatch match;
    if (!std::regex_search(module.path, match, kPythonName)) continue;
    const uint32_t major = std::stoul(match[1].str()), minor = std::stoul(match[2].str());
    if (minor > 255) continue;
    return PythonVersion{(major << 24) | (minor << 16)};
  }
  return std::nullopt;
}

}  // namespace

Result<Layout> IdentifyRuntimeAt(RemoteMemory& memory, uint64_t address, uint32_t hexversion_hint) {
  char cookie[sizeof(kDebugOffsetsCookie) - 1];
  if (!memory.Read(address, cookie, sizeof cookie)) {
    return UnreadableMemory(fmt::format("cannot read _PyRuntime at {:#x}", address));
  }
  if (std::memcmp(cookie, kDebugOffsetsCookie, sizeof cookie) == 0) {
    std::vector<uint8_t> block(kDebugOffsetsMaxSize);
    if (!memory.Read(address, block.data(), block.size())) {
      return UnreadableMemory(fmt::format("cannot read the debug offsets at {:#x}", address));
    }
    return LayoutFromDebugOffsets(block.data(), block.size());
  }
  std::vector<uint32_t> candidates = VersionsWithoutDebugOffsets();
  // The hinted version first.
  std::stable_partition(candidates.begin(), candidates.end(),
                        [&](uint32_t v) { return v >> 16 == hexversion_hint >> 16; });
  for (uint32_t candidate : candidates) {
    auto layout = LayoutFromTable(candidate);
    // A table without interpreters.main (3.6) describes no _PyRuntime.
    if (!layout.ok() || layout->runtime.interpreters_main == kAbsent ||
        !TableMatches(memory, *layout, address)) {
      continue;
    }
    return layout;
  }
  return MakeError(ErrorKind::kRefusedLayout,
                   fmt::format("the memory at {:#x} is not a CPython {} runtime", address,
                               KnownMinorRange("-")));
}

Result<RuntimeLocation> ScanForRuntime(RemoteMemory& memory,
                                       const std::vector<MemoryRegion>& regions) {
  std::vector<Layout> tables;  // with a _PyRuntime (3.7-3.12)
  for (uint32_t version : VersionsWithoutDebugOffsets()) {
    Layout table = *LayoutFromTable(version);
    if (table.runtime.interpreters_main != kAbsent) tables.push_back(std::move(table));
  }
  const std::vector<Layout> head_tables = InterpHeadTables(0);  // 2.7, 3.6: interp_head
  uint64_t cookie_word;
  std::memcpy(&cookie_word, kDebugOffsetsCookie, 8);

  std::optional<RuntimeLocation> found;
  uint64_t previous_word = 0, word_before = 0;  // the two words before `here`
  // Why the first debug-offsets cookie found was refused (a version pyunwind does
  // not read, a damaged block): said if nothing else is found.
  std::optional<Error> cookie_error;
  const ScanOutcome outcome = ScanWritableWords(
      memory, regions, kMaxBytesScannedForRuntime, [&](uint64_t here, uint64_t value) {
        if (value == cookie_word) {
          auto layout = IdentifyRuntimeAt(memory, here, 0);
          if (layout.ok()) {
            found = RuntimeLocation{here, *layout, "a scan for the debug offsets", {}};
            return ScanStep::kStop;
          }
          if (!cookie_error) {
            cookie_error = layout.error().WithContext(
                fmt::format("the _Py_DebugOffsets block at {:#x} is refused: ", here));
          }
          return ScanStep::kContinue;
        }
        const bool plausible = value != 0 && Aligned(value);
        const uint64_t back[] = {previous_word, word_before};  // 8 and 16 bytes before
        word_before = previous_word;
        previous_word = value;
        // 3.7-3.10: interpreters.head and .main side by side point at one interpreter on
        // the heap (a process without subinterpreters).
        const bool head_is_main = plausible && value == back[0];
        // 2.7, 3.6: pystate.c's interp_head is followed by autoInterpreterState, the main
        // interpreter too in a process without subinterpreters.
        for (size_t k = 0; k < std::size(kAutoInterpreterAfterHead); ++k) {
          const uint64_t distance = kAutoInterpreterAfterHead[k];
          if (!plausible || value != back[k] || here < distance) continue;
          for (const Layout& table : head_tables) {
            if (HeapInterpreterMatches(memory, table, here - distance)) {
              found = RuntimeLocation{here - distance, table, "a scan for interp_head", {}};
              return ScanStep::kStop;
            }
          }
        }
        for (const Layout& table : tables) {
          // `here` would be runtime.interpreters.main.
          const uint64_t runtime = here - table.runtime.interpreters_main;
          const bool candidate = table.runtime.main_interpreter_embedded == kAbsent
                                     ? head_is_main
                                     : PointsToEmbeddedInterpreter(table, runtime, value);
          if (!candidate) continue;
          if (TableMatches(memory, table, runtime)) {
            found = RuntimeLocation{runtime, table, "a scan for the runtime's main interpreter", {}};
            return ScanStep::kStop;
          }
        }
        return ScanStep::kContinue;
      });
  if (found) return *found;
  if (outcome.interrupted) return MakeError(ErrorKind::kInterrupted, "interrupted");
  if (outcome.budget_reached) {
    return MakeError(ErrorKind::kNoRuntime,
                     fmt::format("no Python runtime found in the first {} MiB of writable memory",
                                 kMaxBytesScannedForRuntime >> 20));
  }
  if (cookie_error) return *cookie_error;
  return MakeError(ErrorKind::kNoRuntime,
                   "no Python runtime found in the target's writable memory");
}

std::string DescribeLocation(const RuntimeLocation& location) {
  // 2.7 and 3.6 list their interpreters from a static of their own, not a _PyRuntime.
  const char* head =
      location.layout.runtime.interpreters_main == kAbsent ? "interp_head" : "_PyRuntime";
  return fmt::format("{} at {:#x}, found by {}; layout from {}", head, location.address,
                     location.found_by, DescribeLayoutSource(location.layout));
}

Result<RuntimeLocation> LocateRuntime(RemoteMemory& memory) {
  Target& target = memory.target();
  const std::optional<PythonVersion> named = VersionFromModuleNames(target);
  // Py_Version (3.11+), else the minor version a module's name gives as a hint.
  std::optional<uint32_t> symbol_version = HexversionFromSymbol(target, memory);
  const uint32_t hint = symbol_version.value_or(named ? named->hexversion : 0);
  RuntimeLocation location;
  std::optional<Error> symbol_error;
  if (auto address = target.FindSymbol("_PyRuntime")) {
    auto layout = IdentifyRuntimeAt(memory, *address, hint);
    if (layout.ok()) {
      location = {*address, *layout, "the _PyRuntime symbol", {}};
    } else {
      symbol_error = layout.error();
    }
  }
  if (location.address == 0) {
    // A stripped 3.12+ binary still has its runtime in the .PyRuntime section.
    for (const LoadedModule& module : target.Modules()) {
      auto section = FindElfSection(module.path, ".PyRuntime");
      if (!section) continue;
      const uint64_t address = *section + module.load_bias;
      auto layout = IdentifyRuntimeAt(memory, address, hint);
      if (layout.ok()) {
        location = {address, *layout, "the .PyRuntime section of " + module.path, {}};
        break;
      }
    }
  }
  if (location.address == 0) {
    if (auto head = LocateInterpHead(memory, hint)) location = std::move(*head);
  }
  if (location.address == 0) {
    // The program is Python, but one we cannot read: say which.
    if (symbol_version && !PythonVersion{*symbol_version}.AtLeast(3, OldestMinorVersion().minor)) {
      return MakeError(ErrorKind::kUnsupportedVersion,
                       fmt::format("Python {} is not supported: pyunwind reads {}",
                                   PythonVersion{*symbol_version}.ToString(), KnownMinorRange()));
    }
    if (named && FindVersionFile(*named) == nullptr) {
      return MakeError(ErrorKind::kUnsupportedVersion,
                       fmt::format("Python {} is not supported: pyunwind reads {}",
                                   named->MinorString(), KnownMinorRange()));
    }
    if (symbol_error) {
      if (!named) return *symbol_error;
      return symbol_error->WithContext(fmt::format("Python {} (from its file name): ",
                                                   named->MinorString()));
    }
    std::vector<MemoryRegion> regions = target.MemoryRegions();
    if (regions.empty()) {
      // Not kNoRuntime: whether there is one is not known.
      const std::string why = target.WhyNoMemoryRegions();
      return MakeError("no Python runtime found: no _PyRuntime symbol, and " +
                       (why.empty() ? "the debugger cannot list memory regions to search" : why));
    }
    auto scanned = ScanForRuntime(memory, regions);
    if (!scanned.ok()) {
      if (scanned.error().kind != ErrorKind::kNoRuntime) return scanned.error();
      return MakeError(ErrorKind::kNoRuntime, "not a Python process: " + scanned.error().message +
                                                  " and there is no _PyRuntime symbol");
    }
    location = std::move(scanned).value();
  }

  // The tables know the minor version only; find the exact one.
  if (location.layout.source == LayoutSource::kTable) {
    std::optional<uint32_t> exact = symbol_version;
    if (!exact) exact = HexversionFromSys(memory, location.layout, location.address);
    if (exact && (*exact >> 16) == (location.layout.version.hexversion >> 16)) {
      location.layout.version.hexversion = *exact;
    } else {
      location.warnings.push_back(fmt::format(
          "the exact Python version is unknown; the runtime matches the {} layout",
          location.layout.version.MinorString()));
    }
  }
  ReadUnicodeWidth(memory, location);
  PYU_RETURN_IF_ERROR(ValidateLayout(location.layout));
  if (!location.layout.warning.empty()) location.warnings.push_back(location.layout.warning);
  return location;
}

}  // namespace pyunwind
