#include "gdb_bridge/callback_target.h"

#include <algorithm>
#include <cstring>

#include <string>

#include "core/commands/arguments.h"
#include "core/target/elf_symbols.h"

namespace pyunwind::gdb {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

// Splits off the next white-space separated word of `rest`.
std::string_view NextWord(std::string_view& rest) {
  size_t i = 0;
  while (i < rest.size() && IsSpace(rest[i])) ++i;
  size_t j = i;
  while (j < rest.size() && !IsSpace(rest[j])) ++j;
  std::string_view word = rest.substr(i, j - i);
  rest.remove_prefix(j);
  return word;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

std::optional<uint64_t> ParseNumber(std::string_view word, int base) {
  return ParseUnsigned(word, UINT64_MAX, base);
}

template <typename F>
void ForEachLine(std::string_view text, F&& f) {
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    f(line);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
}

}  // namespace

std::vector<uint64_t> ParseThreadIds(std::string_view text) {
  std::vector<uint64_t> ids;
  std::string_view rest = text;
  for (std::string_view word = NextWord(rest); !word.empty(); word = NextWord(rest)) {
    if (auto id = ParseNumber(word, 10)) ids.push_back(*id);
  }
  return ids;
}

std::vector<NativeFrame> ParseNativeFrames(std::string_view text) {
  std::vector<NativeFrame> frames;
  if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
  if (text.empty()) return frames;
  ForEachLine(text, [&](std::string_view line) {
    NativeFrame frame;
    const size_t tab1 = line.find('\t');
    frame.pc = ParseNumber(Trim(line.substr(0, tab1)), 16).value_or(0);
    if (tab1 != std::string_view::npos) {
      std::string_view rest = line.substr(tab1 + 1);
      const size_t tab2 = rest.find('\t');
      frame.function = std::string(Trim(rest.substr(0, tab2)));
      if (tab2 != std::string_view::npos) frame.module = std::string(Trim(rest.substr(tab2 + 1)));
    }
    frames.push_back(std::move(frame));
  });
  return frames;
}

namespace {

// Whether some 4 KiB page of the read (or the read, where smaller) is all zeros: what GDB
// answers for a part of a core the core left out.
bool HasZeroPage(uint64_t address, const void* bytes, size_t size) {
  constexpr uint64_t kPage = 4096;
  const auto* p = static_cast<const uint8_t*>(bytes);
  size_t done = 0;
  while (done < size) {
    const size_t chunk = std::min<uint64_t>(size - done, kPage - (address + done) % kPage);
    if (std::all_of(p + done, p + done + chunk, [](uint8_t b) { return b == 0; })) return true;
    done += chunk;
  }
  return false;
}

}  // namespace

bool CallbackTarget::ReadMemory(uint64_t address, void* out, size_t size) {
  if (size == 0) return true;
  if (out == nullptr) return false;
  if (proc_mem_.IsOpen() && proc_mem_.Read(address, out, size)) return true;
  if (callbacks_.read_memory == nullptr) return false;
  const bool read = callbacks_.read_memory(callbacks_.ctx, address, out, size) == 1;
  if (!read || Interrupted()) return false;
  // GDB answers zeros for a segment a core holds no bytes of, unless a file it has (the
  // executable, a shared library) covers it; zeros taken for data mislead ("... is not a
  // code object"), a failed read is what LLDB answers there.
  if (HasZeroPage(address, out, size) && InCoreHole(address, size)) return false;
  return true;
}

const std::vector<MemoryRegion>& CallbackTarget::CoreSections() {
  if (!core_sections_) core_sections_ = ParseCoreSections(Command("maint info sections"));
  return *core_sections_;
}

bool CallbackTarget::InCoreHole(uint64_t address, size_t size) {
  const std::vector<MemoryRegion>& sections = CoreSections();
  if (std::all_of(sections.begin(), sections.end(),
                  [](const MemoryRegion& s) { return s.readable; })) {
    return false;  // no core, or one that holds every segment (gcore's)
  }
  if (!LeftOutOfCore(address, size, sections, {})) return false;
  if (!file_sections_) file_sections_ = ParseFileSections(Command("info files"));
  return LeftOutOfCore(address, size, sections, *file_sections_);
}

bool CallbackTarget::Interrupted() {
  if (!interrupted_ && callbacks_.interrupted != nullptr) {
    interrupted_ = callbacks_.interrupted(callbacks_.ctx) != 0;
  }
  return interrupted_;
}

const char* CallbackTarget::TextAnswer(const char* text) {
  return text != nullptr && !Interrupted() ? text : nullptr;
}

std::string CallbackTarget::DebuggerVersion() {
  if (callbacks_.debugger_version == nullptr) return "";
  const char* text = TextAnswer(callbacks_.debugger_version(callbacks_.ctx));
  return text != nullptr ? text : "";
}

// A live process's symbol from its executable's own ELF file, where Debian's and pyenv's
// CPython have theirs: GDB's look-up through Python costs 0.3-0.5 ms for the first two
// symbols of a session (bench/README.md), this about 0.05 ms. Where CPython is a shared
// library, GDB is asked.
std::optional<uint64_t> CallbackTarget::LocalSymbol(std::string_view name) {
  if (!executable_) executable_ = OpenProcessExecutable(callbacks_.live_pid);
  if (!*executable_) return std::nullopt;
  const ProcessExecutable& executable = **executable_;
  if (auto value = FindElfSymbol(executable.image, name)) return *value + executable.load_bias;
  return std::nullopt;
}

std::optional<uint64_t> CallbackTarget::FindSymbol(std::string_view name) {
  if (proc_mem_.IsOpen()) {
    if (auto address = LocalSymbol(name)) return address;
  }
  if (callbacks_.find_symbol == nullptr) return std::nullopt;
  std::string name_z(name);
  uint64_t address = 0;
  const bool found = callbacks_.find_symbol(callbacks_.ctx, name_z.c_str(), &address) == 1;
  if (!found || Interrupted() || address == 0) return std::nullopt;
  return address;
}
std::string CallbackTarget::Command(const char* command) {
  if (callbacks_.debugger_command == nullptr) return {};
  const char* text = TextAnswer(callbacks_.debugger_command(callbacks_.ctx, command));
  if (text == nullptr) return {};
  return std::string(text);  // valid until the next callback
}

const std::vector<GdbMapping>& CallbackTarget::Mappings() {
  if (!mappings_) mappings_ = ParseInfoProcMappings(Command("info proc mappings"));
  return *mappings_;
}

std::vector<MemoryRegion> CallbackTarget::MemoryRegions() {
  if (!regions_) {
    // A live process's mappings have permissions and are all its memory; a
    // core's (its NT_FILE note) have none and list files only: its memory is
    // its loadN sections, which GDB lists (slowly, with every objfile's) for both.
    const bool live = !Mappings().empty() && Mappings().front().perms;
    regions_ = RegionsOf(live ? std::vector<MemoryRegion>() : CoreSections(), Mappings());
    if (regions_->empty()) {
      // A remote stub that lists no mappings (qemu-user's): the executable's own segments,
      // from its program headers, which the auxiliary vector locates.
      const ProgramHeadersOfAuxv auxv = ParseInfoAuxv(Command("info auxv"));
      if (auxv.phdr && auxv.phent && auxv.phnum) {
        regions_ = ProgramSegments(*this, *auxv.phdr, *auxv.phnum, *auxv.phent, auxv.execfn);
      }
    }
  }
  return *regions_;
}

std::vector<LoadedModule> CallbackTarget::Modules() {
  if (!modules_) modules_ = ModulesOfMappings(*this, FileMappingsOf(Mappings()));
  return *modules_;
}

std::vector<NativeFrame> CallbackTarget::NativeFrames(uint64_t thread_id) {
  if (callbacks_.native_frames == nullptr) return {};
  const char* text = TextAnswer(callbacks_.native_frames(callbacks_.ctx, thread_id));
  if (text == nullptr) return {};
  return ParseNativeFrames(text);
}

std::optional<uint64_t> CallbackTarget::StackPointer(uint64_t thread_id) {
  if (callbacks_.stack_pointer == nullptr) return std::nullopt;
  uint64_t sp = 0;
  const bool known = callbacks_.stack_pointer(callbacks_.ctx, thread_id, &sp) == 1;
  if (!known || Interrupted() || sp == 0) return std::nullopt;
  return sp;
}

std::vector<uint64_t> CallbackTarget::ThreadIds() {
  if (!thread_ids_) {
    const char* text = nullptr;
    if (callbacks_.thread_ids != nullptr) text = TextAnswer(callbacks_.thread_ids(callbacks_.ctx));
    thread_ids_ = text == nullptr ? std::vector<uint64_t>() : ParseThreadIds(text);
  }
  return *thread_ids_;
}

std::optional<std::string> CallbackTarget::ThreadName(uint64_t thread_id) {
  if (callbacks_.thread_name == nullptr) return std::nullopt;
  const char* name = TextAnswer(callbacks_.thread_name(callbacks_.ctx, thread_id));
  if (name == nullptr || *name == '\0') return std::nullopt;
  return std::string(name, strnlen(name, 4096));
}

}  // namespace pyunwind::gdb
