// The LLDB entry point: `plugin load libpyunwind_lldb.so` calls
// lldb::PluginInitialize, which registers every pyunwind command. Each command
// hands its arguments to the core with an LldbTarget for the selected process.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <lldb/API/SBCommandInterpreter.h>
#include <lldb/API/SBCommandReturnObject.h>
#include <lldb/API/SBDebugger.h>
#include <lldb/API/SBProcess.h>
#include <lldb/API/SBTarget.h>
#include <lldb/API/SBThread.h>

#include "core/commands/commands.h"
#include "core/session/kept_state.h"
#include "core/target/page_arena.h"
#include "lldb_plugin/args.h"
#include "lldb_plugin/command_line_output.h"
#include "lldb_plugin/frame_provider.h"
#include "lldb_plugin/lldb_target.h"
#include "lldb_plugin/sb_api.h"

namespace lldb {
// The one symbol this library exports (see BUILD: -fvisibility=hidden and
// exports.lds).
__attribute__((visibility("default"))) bool PluginInitialize(SBDebugger debugger);
}  // namespace lldb

namespace pyunwind_lldb {
namespace {

// Why the selected process cannot be read (the core's words, as GDB says
// them), or nullopt when it can.
std::optional<pyunwind::CommandOutput> WhyUnreadable(lldb::SBTarget& target,
                                                     lldb::SBProcess& process) {
  if (!target.IsValid() || !process.IsValid()) return pyunwind::NoProcessFailure();
  switch (process.GetState()) {
    case lldb::eStateStopped:
    case lldb::eStateCrashed:
    case lldb::eStateSuspended:
      return std::nullopt;  // a core file is eStateStopped
    case lldb::eStateRunning:
    case lldb::eStateStepping:
    case lldb::eStateLaunching:
    case lldb::eStateAttaching:
      return pyunwind::ProcessRunningFailure();
    default:  // invalid, unloaded, connected, detached, exited
      return pyunwind::NoProcessFailure();
  }
}

bool OutputIsTerminal(lldb::SBDebugger& debugger) {
  if (!debugger.GetUseColor()) return false;
  FILE* out = debugger.GetOutputFileHandle();
  return out != nullptr && isatty(fileno(out)) == 1;
}

// Hands a command's output (ending with a newline) to LLDB. Printf("%s") runs it through
// vsnprintf twice into a copy of the whole text (LLDB's Stream::PrintfVarArg): 44 MB of
// py-tasks --json cost about 0.2 s and 44 MB more that way. AppendMessage appends the text
// as it is, then a newline (after dropping trailing white space), so text that ends in one
// newline after a non-blank character goes that way, byte for byte the same.
void Print(lldb::SBCommandReturnObject& result, std::string& text) {
  const size_t n = text.size();
  if (n >= 2 && text[n - 1] == '\n' && std::isspace(static_cast<unsigned char>(text[n - 2])) == 0) {
    text.pop_back();
    result.AppendMessage(text.c_str());
  } else {
    result.Printf("%s", text.c_str());
  }
}

// A piece of output handed over before the command returns (CommandContext::write_output), in
// slices that fit LLDB's 1 KiB format buffer: each is formatted once, with no copy of the
// whole, and LLDB's own copy of the output grows as it comes.
void PrintPiece(lldb::SBCommandReturnObject& result, std::string_view piece) {
  constexpr size_t kSlice = 1000;
  for (size_t at = 0; at < piece.size(); at += kSlice) {
    const size_t n = std::min(kSlice, piece.size() - at);
    result.Printf("%.*s", static_cast<int>(n), piece.data() + at);
  }
}

bool Fail(lldb::SBCommandReturnObject& result, const char* message) {
  // LLDB prints "error: " + message on one line: that prefix is LLDB's own
  // (every failed command has it); the message is the same as in GDB.
  result.SetError(message);
  result.SetStatus(lldb::eReturnStatusFailed);
  return false;
}

// "lldb version 14.0.6" (the first line of SBDebugger::GetVersionString).
std::string DebuggerVersion() {
  const char* version = lldb::SBDebugger::GetVersionString();
  std::string text = version != nullptr ? version : "";
  if (const size_t newline = text.find('\n'); newline != std::string::npos) text.resize(newline);
  return text;
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
    if (!pyunwind::CommandReadsTarget(name_)) {
      process = lldb::SBProcess();  // read nothing
    } else if (auto why = WhyUnreadable(target, process)) {
      return Fail(result, pyunwind::ErrorLine(why->text).c_str());
    }

    LldbTarget lldb_target(target, process, debugger.GetCommandInterpreter());
    pyunwind::CommandContext context{lldb_target, std::nullopt, OutputIsTerminal(debugger)};
    context.debugger = DebuggerVersion();
    context.front_end_notes = {lldb_target.MemorySourceNote(), pyunwind_lldb::FrameProviderNote()};
    lldb::SBThread thread = process.IsValid() ? process.GetSelectedThread() : lldb::SBThread();
    if (thread.IsValid()) {
      context.selected_thread_id = thread.GetThreadID();
      lldb::SBFrame frame = thread.GetSelectedFrame();
      if (frame.IsValid()) context.selected_native_frame = frame.GetFrameID();
    }
    // Where the text goes: the console, or the result (command_line_output.h). Decided at
    // the first text, as deciding walks the stack: a command that fails or prints nothing
    // does not pay for it.
    std::optional<lldb::SBFile> console;
    auto console_file = [&]() -> lldb::SBFile& {
      if (!console) console = CommandLineOutputFile(debugger, result);
      return *console;
    };
    bool printed = false;
    context.write_output = [&](std::string_view piece) {
      if (piece.empty()) return;
      if (console_file().IsValid()) {
        WriteAll(*console, piece);
      } else {
        PrintPiece(result, piece);
      }
      printed = true;
    };
    // The stop id counting expression evaluations too: an expression that
    // runs code in the target may change its memory.
    const pyunwind::ProcessStop stop{process.GetProcessID(), process.GetUniqueID(),
                                     process.GetStopID(true)};
    auto kept = pyunwind::KeptState::Take();
    if (!kept.ok()) {
      return Fail(result, pyunwind::ErrorLine(pyunwind::Failure(kept.error().message).text).c_str());
    }
    pyunwind::CommandOutput output =
        pyunwind::RunCommand(name_, args, context, kept->selections(), kept->stops(), stop);
    if (thread.IsValid() && context.select_native_frame) {
      thread.SetSelectedFrame(static_cast<uint32_t>(*context.select_native_frame));
    }
    if (output.failed) return Fail(result, pyunwind::ErrorLine(output.text).c_str());
    if (!output.text.empty()) {
      if (console_file().IsValid()) {
        WriteAll(*console, output.text);
      } else {
        Print(result, output.text);
      }
    }
    result.SetStatus(output.text.empty() && !printed ? lldb::eReturnStatusSuccessFinishNoResult
                                                     : lldb::eReturnStatusSuccessFinishResult);
    return true;
  }

  std::string name_;
};

bool RegisterCommands(lldb::SBDebugger& debugger) {
  lldb::SBCommandInterpreter interpreter = debugger.GetCommandInterpreter();
  if (!interpreter.IsValid()) return false;
  // Every command also as "pyunwind <name>", as in GDB; "pyunwind version" only so.
  lldb::SBCommand prefix = interpreter.AddMultiwordCommand(
      "pyunwind", "pyunwind: the Python stacks of a CPython process or core file.");
  bool all_added = prefix.IsValid();
  auto add = [&](const pyunwind::CommandInfo& info, auto&& adder) {
    // LLDB owns `impl` from here on (it keeps it in a shared_ptr), also when
    // adding fails. This overload makes the command not auto-repeat on Enter.
    auto* impl = new PyunwindCommand(info.name);
    lldb::SBCommand command = adder(info.name.c_str(), impl, info.summary.c_str());
    if (!command.IsValid()) {
      all_added = false;
      return;
    }
    if (!info.help.empty()) command.SetHelpLong(info.help.c_str());
  };
  for (const pyunwind::CommandInfo& info : pyunwind::AllCommands()) {
    if (!info.prefix_only) {
      add(info, [&](const char* name, PyunwindCommand* impl, const char* help) {
        return interpreter.AddCommand(name, impl, help);
      });
    }
    if (prefix.IsValid()) {
      add(info, [&](const char* name, PyunwindCommand* impl, const char* help) {
        return prefix.AddCommand(name, impl, help);
      });
    }
  }
  return all_added;
}

}  // namespace
}  // namespace pyunwind_lldb

bool lldb::PluginInitialize(lldb::SBDebugger debugger) {
  try {
    // An LLDB that cannot serve the plugin (sb_api.h) gets one line and no commands; true
    // because false would add LLDB's own "plug-in refused to load" line.
    if (const std::string why = pyunwind_lldb::WhyLldbCannotServe(); !why.empty()) {
      std::fprintf(stderr, "error: %s\n", why.c_str());
      return true;
    }
    if (!pyunwind_lldb::RegisterCommands(debugger)) return false;
    pyunwind_lldb::ImportFrameProvider(debugger);
    pyunwind::PageArena::PrepareSlabInBackground();
    // The process's first stack walk loads the unwinder (libgcc_s) and reads LLDB's unwind
    // tables, 0.4-0.5 ms: walked once here, on the thread that runs commands, and not in the
    // first command's output (command_line_output.h).
    pyunwind_lldb::RunForApiClient();
    return true;
  } catch (...) {
    return false;
  }
}
