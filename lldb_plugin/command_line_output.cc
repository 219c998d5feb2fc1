#include "lldb_plugin/command_line_output.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <string_view>

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

// Deep enough for LLDB's command line (about 20 frames from main to a command) and for a
// script's call through Python; a deeper stack is taken as an API client's.
constexpr int kMaxFrames = 128;

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

}  // namespace

bool RunForApiClient() {
  void* frames[kMaxFrames];
  const int count = backtrace(frames, kMaxFrames);
  if (count >= kMaxFrames) return true;
  for (int i = 1; i < count; ++i) {
    // A return address: the call is the byte before it.
    const uintptr_t pc = reinterpret_cast<uintptr_t>(frames[i]) - 1;
    Dl_info info{};
    void* symbol = nullptr;  // the ElfW(Sym) of dli_sname
    if (dladdr1(reinterpret_cast<void*>(pc), &info, &symbol, RTLD_DL_SYMENT) == 0) continue;
    if (InLibpython(info)) return true;
    const char* name = ExportAt(pc, info, static_cast<const ElfW(Sym)*>(symbol));
    if (name == nullptr) continue;
    for (std::string_view prefix : kHandleCommand) {
      if (std::string_view(name).starts_with(prefix)) return true;
    }
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
