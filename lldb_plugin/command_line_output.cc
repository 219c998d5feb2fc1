#include "lldb_plugin/command_line_output.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <string_view>
#include <unordered_map>

#include "toolchain/dl_find_object.h"

#include <lldb/API/SBCommandInterpreter.h>
#include <lldb/API/SBError.h>

namespace pyunwind_lldb {
namespace {

// Mangled-name prefixes of the SB calls through which a client runs a command (every
// overload: with or without an execution context).
constexpr std::string_view kHandleCommand[] = {
    "_ZN4lldb20SBCommandInterpreter13HandleCommandE",
    "_ZN4lldb10SBDebugger13HandleCommandE",
};
// Those overloads, the same in LLDB 14 to 22.
constexpr const char* kHandleCommandOverloads[] = {
    "_ZN4lldb10SBDebugger13HandleCommandEPKc",
    "_ZN4lldb20SBCommandInterpreter13HandleCommandEPKcRNS_21SBCommandReturnObjectEb",
    "_ZN4lldb20SBCommandInterpreter13HandleCommandEPKcRNS_18SBExecutionContextERNS_21SBCommandReturnObjectEb",
};

// Deep enough for LLDB's command line (about 20 frames from main to a command) and for a
// script's call through Python; a deeper stack is taken as an API client's.
constexpr int kMaxFrames = 128;

// Return addresses whose answer is kept (KnownCallIsApiClients): LLDB's command line is about
// 20 frames deep, a script's call through Python a few dozen more.
constexpr size_t kMaxKnownCalls = 4096;

bool InLibpython(const Dl_info& info) {
  if (info.dli_fname == nullptr) return false;
  std::string_view path = info.dli_fname;
  path.remove_prefix(path.rfind('/') + 1);  // npos + 1 == 0: no slash
  return path.starts_with("libpython");
}

// The exported function `pc` lies in, by its symbol's extent (dladdr alone names the
// nearest export before `pc`, also for a private function); null where none is known.
const char* ExportAt(uintptr_t pc, const Dl_info& info, const ElfW(Sym) * symbol) {
  if (info.dli_sname == nullptr || info.dli_saddr == nullptr || symbol == nullptr) return nullptr;
  const auto start = reinterpret_cast<uintptr_t>(info.dli_saddr);
  return pc >= start && pc - start < symbol->st_size ? info.dli_sname : nullptr;
}

// Whether the call at `pc` is in libpython or in one of kHandleCommand, by the symbol dladdr
// finds for it.
bool CallIsApiClientsBySymbol(uintptr_t pc) {
  Dl_info info{};
  void* symbol = nullptr;  // the ElfW(Sym) of dli_sname
  if (dladdr1(reinterpret_cast<void*>(pc), &info, &symbol, RTLD_DL_SYMENT) == 0) return false;
  if (InLibpython(info)) return true;
  const char* name = ExportAt(pc, info, static_cast<const ElfW(Sym)*>(symbol));
  if (name == nullptr) return false;
  for (std::string_view prefix : kHandleCommand) {
    if (std::string_view(name).starts_with(prefix)) return true;
  }
  return false;
}

// dladdr goes through a library's exported symbols one by one, and liblldb exports tens of
// thousands: the 20 frames of a command cost 0.2-0.4 ms that way (bench/README.md). Instead,
// where glibc has _dl_find_object (2.35+; looked up at run time, so that the plugin still loads
// on an older one), the library a call is in comes from its table of loaded objects, and the
// overloads' extents from dladdr once.
class CallSites {
 public:
  CallSites() {
    find_object_ = reinterpret_cast<FindObject>(dlsym(RTLD_DEFAULT, "_dl_find_object"));
    for (const char* name : kHandleCommandOverloads) {
      void* address = dlsym(RTLD_DEFAULT, name);
      Dl_info info{};
      void* symbol = nullptr;
      if (address == nullptr ||
          dladdr1(address, &info, &symbol, RTLD_DL_SYMENT) == 0 || symbol == nullptr) {
        find_object_ = nullptr;  // an overload not where expected: ask dladdr, frame by frame
        return;
      }
      const auto start = reinterpret_cast<uintptr_t>(address);
      const uint64_t size = static_cast<const ElfW(Sym)*>(symbol)->st_size;
      handle_command_[handle_commands_++] = {start, start + size};
    }
  }

  bool IsApiClients(uintptr_t pc) const {
    PyunwindDlFindObject found{};
    if (find_object_ == nullptr || find_object_(reinterpret_cast<void*>(pc), &found) != 0) {
      return CallIsApiClientsBySymbol(pc);
    }
    for (size_t i = 0; i < handle_commands_; ++i) {
      if (pc >= handle_command_[i].start && pc < handle_command_[i].end) return true;
    }
    Dl_info info{};
    info.dli_fname = found.dlfo_link_map != nullptr ? found.dlfo_link_map->l_name : nullptr;
    return InLibpython(info);
  }

 private:
  // glibc 2.35's layout: the plugin is compiled against glibc 2.31's headers (toolchain/).
  using FindObject = int (*)(void*, PyunwindDlFindObject*);
  struct Extent {
    uintptr_t start, end;
  };
  FindObject find_object_ = nullptr;
  Extent handle_command_[std::size(kHandleCommandOverloads)] = {};
  size_t handle_commands_ = 0;
};

// CallSites::IsApiClients, each return address asked once: an address keeps its answer while
// its library stays loaded, and neither liblldb nor libpython is unloaded.
bool KnownCallIsApiClients(uintptr_t pc) {
  static const auto* sites = new CallSites();  // never destroyed
  static std::mutex mutex;
  static auto* known = new std::unordered_map<uintptr_t, bool>();  // never destroyed
  {
    std::lock_guard lock(mutex);
    if (auto it = known->find(pc); it != known->end()) return it->second;
  }
  const bool answer = sites->IsApiClients(pc);
  std::lock_guard lock(mutex);
  if (known->size() < kMaxKnownCalls) known->emplace(pc, answer);
  return answer;
}

}  // namespace

bool RunForApiClient() {
  void* frames[kMaxFrames];
  const int count = backtrace(frames, kMaxFrames);
  if (count >= kMaxFrames) return true;
  for (int i = 1; i < count; ++i) {
    // A return address: the call is the byte before it.
    if (KnownCallIsApiClients(reinterpret_cast<uintptr_t>(frames[i]) - 1)) return true;
  }
  return false;
}

lldb::SBFile CommandLineOutputFile(lldb::SBDebugger& debugger,
                                   lldb::SBCommandReturnObject& result) {
  if (!debugger.GetCommandInterpreter().IsActive()) return {};
  if (result.GetOutput(/*only_if_no_immediate=*/true) == nullptr) return {};  // set already
  if (RunForApiClient()) return {};
  return debugger.GetOutputFile();
}

void WriteAll(lldb::SBFile& file, std::string_view text) {
  while (!text.empty()) {
    size_t written = 0;
    const lldb::SBError error =
        file.Write(reinterpret_cast<const uint8_t*>(text.data()), text.size(), &written);
    if (error.Fail() || written == 0) return;
    text.remove_prefix(std::min(written, text.size()));
  }
}

}  // namespace pyunwind_lldb
