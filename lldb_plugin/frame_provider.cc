#include "lldb_plugin/frame_provider.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <lldb/API/SBCommandInterpreter.h>
#include <lldb/API/SBCommandReturnObject.h>

#include "core/target/python_files.h"

namespace pyunwind_lldb {
namespace {

constexpr const char* kScript = "pyunwind_lldb_frames.py";

// An anchor in this library, for dladdr.
void Anchor() {}

// lldb::SBTarget::RegisterScriptedFrameProvider(const char*, SBStructuredData, SBError&),
// LLDB 22's frame-provider call (the headers here are 14's: found by name, never called).
constexpr const char* kRegisterProviderSymbol =
    "_ZN4lldb8SBTarget29RegisterScriptedFrameProviderEPKcNS_16SBStructuredDataERNS_7SBErrorE";

// The directory this library was loaded from, or "".
std::string OwnDirectory() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Anchor), &info) == 0 || info.dli_fname == nullptr) return "";
  std::string path = info.dli_fname;
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

// A path as one double-quoted LLDB command argument.
std::string Quoted(const std::string& path) {
  std::string out = "\"";
  for (char c : path) {
    if (c == '"' || c == '\\' || c == '`') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool OptedOut() {
  const char* opt = std::getenv(kFrameProviderEnv);
  return opt && std::strcmp(opt, "0") == 0;
}

bool HasFrameProviders() { return dlsym(RTLD_DEFAULT, kRegisterProviderSymbol) != nullptr; }

}  // namespace

std::string FrameProviderNote() {
  if (!HasFrameProviders()) {
    return "this LLDB has no frame providers (LLDB 22 and later): its bt shows no Python "
           "frames; py-bt --native does";
  }
  if (OptedOut()) {
    return std::string("LLDB's bt shows no Python frames: ") + kFrameProviderEnv + "=0";
  }
  return std::string("LLDB's bt shows the Python frames (the frame provider ") + kScript +
         "; " + kFrameProviderEnv + "=0 turns it off)";
}

void ImportFrameProvider(lldb::SBDebugger& debugger) {
  if (OptedOut() || !HasFrameProviders()) return;
  const std::string dir = OwnDirectory();
  const std::string script = (dir.empty() ? std::string(".") : dir) + "/" + kScript;
  if (::access(script.c_str(), R_OK) != 0) {
    std::fprintf(stderr, "warning: pyunwind: no %s beside the plugin: bt shows no Python frames\n",
                 script.c_str());
    return;
  }
  lldb::SBCommandInterpreter interpreter = debugger.GetCommandInterpreter();
  lldb::SBCommandReturnObject result;
  interpreter.HandleCommand(("command script import " + Quoted(script)).c_str(), result);
  if (!result.Succeeded()) {
    const char* why = result.GetError();
    std::fprintf(stderr, "warning: pyunwind: bt shows no Python frames: %s%s",
                 why && *why ? why : "command script import failed\n",
                 why && *why && why[std::strlen(why) - 1] == '\n' ? "" : "\n");
  }
}

}  // namespace pyunwind_lldb

// For the provider script, through ctypes (exports.lds): whether a target's module files say
// it runs Python: 1, 0, or -1 when they cannot tell (core/target/python_files.h); the same
// answer the GDB library gives its script (gdb_bridge/pyunwind_c_api.h).
extern "C" __attribute__((visibility("default"))) int pyunwind_python_in_module_files(
    const char* const* paths, size_t count) {
  return pyunwind::PythonInModuleFilesForC(paths, count);
}
