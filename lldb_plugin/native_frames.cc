// LldbTarget::NativeFrames: LLDB's own unwind of a thread (inlined frames,
// signal frames and missing symbols as LLDB handles them), for py-bt --native
// and for py-up / py-down / py-frame to find the eval-loop frame to select;
// LldbTarget::StackPointer: its innermost frame's SP.
#include <algorithm>
#include <string>

#include <lldb/API/SBFileSpec.h>
#include <lldb/API/SBFrame.h>
#include <lldb/API/SBModule.h>
#include <lldb/API/SBSymbol.h>
#include <lldb/API/SBThread.h>

#include "lldb_plugin/lldb_target.h"

namespace pyunwind_lldb {
namespace {

constexpr uint32_t kMaxNativeFrames = 4096;

std::string ModulePath(const lldb::SBFileSpec& spec) {
  char buffer[4096];
  const uint32_t length = spec.GetPath(buffer, sizeof buffer);
  if (length == 0 || length + 1 >= sizeof buffer) {
    const char* name = spec.GetFilename();
    return name ? name : "";
  }
  return std::string(buffer, length);
}

}  // namespace

std::vector<pyunwind::NativeFrame> LldbTarget::NativeFrames(uint64_t thread_id) {
  std::vector<pyunwind::NativeFrame> frames;
  lldb::SBThread thread = process_.GetThreadByID(thread_id);
  if (!thread.IsValid()) return frames;
  const uint32_t count = std::min(thread.GetNumFrames(), kMaxNativeFrames);
  frames.reserve(count);
  for (uint32_t i = 0; i < count && !Interrupted(); ++i) {
    lldb::SBFrame frame = thread.GetFrameAtIndex(i);
    pyunwind::NativeFrame out;
    if (!frame.IsValid()) {
      frames.push_back(out);  // keep the indices the debugger's
      continue;
    }
    out.pc = frame.GetPC();
    const char* name = frame.GetFunctionName();
    if (name == nullptr) {
      lldb::SBSymbol symbol = frame.GetSymbol();
      if (symbol.IsValid()) name = symbol.GetName();
    }
    if (name != nullptr) out.function = name;
    lldb::SBModule module = frame.GetModule();
    if (module.IsValid()) out.module = ModulePath(module.GetFileSpec());
    frames.push_back(std::move(out));
  }
  return frames;
}

std::optional<uint64_t> LldbTarget::StackPointer(uint64_t thread_id) {
  lldb::SBThread thread = process_.GetThreadByID(thread_id);
  if (!thread.IsValid()) return std::nullopt;
  lldb::SBFrame frame = thread.GetFrameAtIndex(0);
  if (!frame.IsValid()) return std::nullopt;
  const uint64_t sp = frame.GetSP();
  if (sp == 0 || sp == LLDB_INVALID_ADDRESS) return std::nullopt;
  return sp;
}

}  // namespace pyunwind_lldb
