// The LLDB entry point: `plugin load libpyunwind_lldb.so` calls
// lldb::PluginInitialize, which registers every pyunwind command. Each command
// hands its arguments to the core with an LldbTarget for the selected process.
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <map>
#include <tuple>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <lldb/API/SBCommandInterpreter.h>
#include <lldb/API/SBCommandReturnObject.h>
#include <lldb/API/SBDebugger.h>
#include <lldb/API/SBProcess.h>
#include <lldb/API/SBTarget.h>
#include <lldb/API/SBThread.h>

#include "core/commands/commands.h"
#include "lldb_plugin/args.h"
#include "lldb_plugin/lldb_target.h"

namespace lldb {
// The one symbol this library exports (see BUILD: -fvisibility=hidden and
// exports.lds).
__attribute__((visibility("default"))) bool PluginInitialize(SBDebugger debugger);
}  // namespace lldb

namespace pyunwind_lldb {
namespace {

constexpr const char* kNoProcess =
    "pyunwind: no process: attach to a process or load a core file first";
constexpr const char* kRunning =
    "pyunwind: the process is running: stop it first (process interrupt)";

// Why the selected process cannot be read, or nullptr when it can.
const char* WhyUnreadable(lldb::SBTarget& target, lldb::SBProcess& process) {
  if (!target.IsValid() || !process.IsValid()) return kNoProcess;
  switch (process.GetState()) {
    case lldb::eStateStopped:
    case lldb::eStateCrashed:
    case lldb::eStateSuspended:
      return nullptr;  // a core file is eStateStopped
    case lldb::eStateRunning:
    case lldb::eStateStepping:
    case lldb::eStateLaunching:
    case lldb::eStateAttaching:
      return kRunning;
    default:  // invalid, unloaded, connected, detached, exited
      return kNoProcess;
  }
}

bool OutputIsTerminal(lldb::SBDebugger& debugger) {
  if (!debugger.GetUseColor()) return false;
  FILE* out = debugger.GetOutputFileHandle();
  return out != nullptr && isatty(fileno(out)) == 1;
}

bool Fail(lldb::SBCommandReturnObject& result, const char* message) {
  result.SetError(message);  // LLDB prints "error: " + message on one line
  result.SetStatus(lldb::eReturnStatusFailed);
  return false;
}

// The Python frame py-up / py-down / py-frame selected, per (process, thread),
// valid only for the stop it was chosen in: LLDB bumps the stop id whenever
// the process resumes, which drops the selection.
struct PythonFrameSelection {
  uint32_t stop_id = 0;
  size_t python_frame = 0;
};
using SelectionKey = std::tuple<lldb::pid_t, uint32_t, lldb::tid_t>;  // pid, unique id, tid

std::map<SelectionKey, PythonFrameSelection>& Selections() {
  static auto* selections = new std::map<SelectionKey, PythonFrameSelection>();
  return *selections;
}

class PyunwindCommand final : public lldb::SBCommandPluginInterface {
 public:
  explicit PyunwindCommand(std::string name) : name_(std::move(name)) {}

  bool DoExecute(lldb::SBDebugger debugger, char** command,
                 lldb::SBCommandReturnObject& result) override {
    try {
      return Run(debugger, command, result);
    } catch (const std::exception& e) {
      std::string message = "pyunwind: internal error in " + name_ + ": " + e.what();
      return Fail(result, message.c_str());
    } catch (...) {
      return Fail(result, "pyunwind: internal error (unknown exception)");
    }
  }

 private:
  bool Run(lldb::SBDebugger& debugger, char** command, lldb::SBCommandReturnObject& result) {
    std::vector<std::string> args = ArgvToVector(command);
    lldb::SBTarget target = debugger.GetSelectedTarget();
    lldb::SBProcess process = target.IsValid() ? target.GetProcess() : lldb::SBProcess();
    if (const char* why = WhyUnreadable(target, process)) return Fail(result, why);

    LldbTarget lldb_target(target, process);
    pyunwind::CommandContext context{lldb_target, std::nullopt, false, std::nullopt, std::nullopt};
    lldb::SBThread thread = process.GetSelectedThread();
    if (thread.IsValid()) context.selected_thread_id = thread.GetThreadID();
    context.output_is_terminal = OutputIsTerminal(debugger);

    const SelectionKey key{process.GetProcessID(), process.GetUniqueID(),
                           thread.IsValid() ? thread.GetThreadID() : LLDB_INVALID_THREAD_ID};
    const uint32_t stop_id = process.GetStopID();
    auto& selections = Selections();
    if (auto it = selections.find(key); it != selections.end()) {
      if (it->second.stop_id == stop_id) {
        context.selected_python_frame = it->second.python_frame;
      } else {
        selections.erase(it);  // the process ran since
      }
    }

    pyunwind::CommandOutput output = pyunwind::RunCommand(name_, args, context);
    if (thread.IsValid() && context.selected_python_frame) {
      selections[key] = {stop_id, *context.selected_python_frame};
    }
    if (thread.IsValid() && context.select_native_frame) {
      thread.SetSelectedFrame(static_cast<uint32_t>(*context.select_native_frame));
    }
    if (output.failed) return Fail(result, ErrorLine(output.text).c_str());
    if (output.text.empty()) {
      result.SetStatus(lldb::eReturnStatusSuccessFinishNoResult);
    } else {
      result.Printf("%s", output.text.c_str());
      result.SetStatus(lldb::eReturnStatusSuccessFinishResult);
    }
    return true;
  }

  std::string name_;
};

bool RegisterCommands(lldb::SBDebugger& debugger) {
  lldb::SBCommandInterpreter interpreter = debugger.GetCommandInterpreter();
  if (!interpreter.IsValid()) return false;
  bool all_added = true;
  for (const pyunwind::CommandInfo& info : pyunwind::AllCommands()) {
    // LLDB owns `impl` from here on (it keeps it in a shared_ptr), also when
    // adding fails. This overload makes the command not auto-repeat on Enter.
    auto* impl = new PyunwindCommand(info.name);
    lldb::SBCommand command =
        interpreter.AddCommand(info.name.c_str(), impl, info.summary.c_str());
    if (!command.IsValid()) {
      all_added = false;
      continue;
    }
    if (!info.help.empty()) command.SetHelpLong(info.help.c_str());
  }
  return all_added;
}

}  // namespace
}  // namespace pyunwind_lldb

bool lldb::PluginInitialize(lldb::SBDebugger debugger) {
  try {
    return pyunwind_lldb::RegisterCommands(debugger);
  } catch (...) {
    return false;
  }
}
