// The C ABI of pyunwind_c_api.h: a CallbackTarget, the core's command
// runner, and a wall that no C++ exception crosses.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/base/result.h"
#include "core/commands/arguments.h"
#include "core/commands/commands.h"
#include "core/commands/native.h"
#include "core/session/kept_state.h"
#include "core/target/page_arena.h"
#include "core/target/python_files.h"
#include "gdb_bridge/callback_target.h"
#include "gdb_bridge/pyunwind_c_api.h"
#include "gdb_bridge/worker_relay.h"

namespace {

char* CopyToMalloc(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return out;
}

std::string Dump(const nlohmann::json& json) {
  // Replace invalid UTF-8 rather than throw.
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string BuildCommandsJson() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& info : pyunwind::AllCommands()) {
    list.push_back({{"name", info.name},
                    {"summary", info.summary},
                    {"help", info.help},
                    {"prefix_only", info.prefix_only}});
  }
  return Dump(list);
}

pyunwind::ProcessStop StopOf(const pyunwind_stop& stop) {
  return {stop.process, stop.instance, stop.stop_id};
}

// Runs a command behind the exception wall; with `stop`, as a debugger runs
// it (its state, the selections kept between commands).
pyunwind::CommandOutput RunGuarded(const pyunwind_callbacks* callbacks, const char* command_name,
                                   const char* argument_line, int64_t selected_thread_id,
                                   const pyunwind_stop* stop, int is_terminal,
                                   int64_t* native_frame, bool output_printed_meanwhile = false) {
  try {
    if (callbacks == nullptr || callbacks->read_memory == nullptr) {
      return pyunwind::Failure("no memory reader was given to pyunwind_run_command");
    }
    // Asked from a callback of a command that runs on a worker, which holds what
    // the commands keep (KeptState tells the same to a call on the same thread).
    if (pyunwind::gdb::WorkerRelay::Serving()) {
      return pyunwind::Failure("a pyunwind command is already running");
    }
    if (command_name == nullptr || command_name[0] == '\0') {
      return pyunwind::Failure("no command name was given");
    }
    const bool reads_target = pyunwind::CommandReadsTarget(command_name);
    if (reads_target && stop != nullptr && stop->state == PYUNWIND_NO_PROCESS) {
      return pyunwind::NoProcessFailure();
    }
    if (reads_target && stop != nullptr && stop->state == PYUNWIND_RUNNING) {
      return pyunwind::ProcessRunningFailure();
    }
    pyunwind::gdb::CallbackTarget target(*callbacks);
    pyunwind::CommandContext context{target, std::nullopt, is_terminal != 0};
    context.debugger = target.DebuggerVersion();
    if (callbacks->write_output != nullptr) {
      context.write_output = [callbacks](std::string_view piece) {
        callbacks->write_output(callbacks->ctx, piece.data(), piece.size());
      };
      context.output_printed_meanwhile = output_printed_meanwhile;
    }
    if (selected_thread_id >= 0) context.selected_thread_id = static_cast<uint64_t>(selected_thread_id);
    const std::vector<std::string> args =
        pyunwind::SplitCommandLine(argument_line == nullptr ? "" : argument_line);
    if (stop == nullptr) return pyunwind::RunCommand(command_name, args, context);
    if (stop->selected_native_frame >= 0) {
      context.selected_native_frame = static_cast<size_t>(stop->selected_native_frame);
    }
    pyunwind::CommandOutput output;
    {
      auto kept = pyunwind::KeptState::Take();
      if (!kept.ok()) return pyunwind::Failure(kept.error().message);
      output = pyunwind::RunCommand(command_name, args, context, kept->selections(),
                                    kept->stops(), StopOf(*stop));
    }
    if (native_frame != nullptr && context.select_native_frame && !output.failed) {
      *native_frame = static_cast<int64_t>(*context.select_native_frame);
    }
    return output;
  } catch (const std::bad_alloc&) {
    return pyunwind::Failure("out of memory");
  } catch (const std::exception& e) {
    return pyunwind::Failure(std::string("internal error: ") + e.what());
  } catch (...) {
    return pyunwind::Failure("internal error");
  }
}

// RunGuarded; where the library reads a live process itself, on a worker while
// this thread serves its callbacks and prints its output as it comes
// (worker_relay.h). A command reading through callbacks alone gains nothing:
// each read would be a trip to this thread and back.
pyunwind::CommandOutput RunServed(const pyunwind_callbacks* callbacks, const char* command_name,
                                  const char* argument_line, int64_t selected_thread_id,
                                  const pyunwind_stop* stop, int is_terminal,
                                  int64_t* native_frame) {
  if (callbacks == nullptr || callbacks->live_pid == 0 || callbacks->read_memory == nullptr ||
      callbacks->write_output == nullptr || pyunwind::gdb::WorkerRelay::Serving()) {
    return RunGuarded(callbacks, command_name, argument_line, selected_thread_id, stop,
                      is_terminal, native_frame);
  }
  try {
    pyunwind::gdb::WorkerRelay relay(*callbacks);
    pyunwind::CommandOutput output;
    const bool ran = relay.Run([&] {
      output = RunGuarded(&relay.relayed(), command_name, argument_line, selected_thread_id, stop,
                          is_terminal, native_frame, /*output_printed_meanwhile=*/true);
    });
    if (ran) return output;
  } catch (...) {
  }
  return RunGuarded(callbacks, command_name, argument_line, selected_thread_id, stop, is_terminal,
                    native_frame);
}

// The text handed back: an error is one line.
char* Finish(pyunwind::CommandOutput output, int* failed) {
  if (failed != nullptr) *failed = output.failed ? 1 : 0;
  try {
    if (output.failed) return CopyToMalloc(pyunwind::ErrorLine(output.text) + "\n");
    if (!output.text.empty() && output.text.back() != '\n') output.text += '\n';
    return CopyToMalloc(output.text);
  } catch (...) {
    return nullptr;
  }
}

}  // namespace

extern "C" {

PYUNWIND_API int pyunwind_abi_version(void) { return PYUNWIND_ABI_VERSION; }

PYUNWIND_API void pyunwind_prepare(void) {
  pyunwind::PageArena::PrepareSlabInBackground();
  pyunwind::gdb::WorkerRelay::StartWorker();
}

PYUNWIND_API const char* pyunwind_commands(void) {
  try {
    static const std::string* json = new std::string(BuildCommandsJson());
    return json->c_str();
  } catch (...) {
    return "[]";
  }
}

PYUNWIND_API char* pyunwind_run_command(const struct pyunwind_callbacks* callbacks,
                                        const char* command_name,
                                        const char* argument_line,
                                        int64_t selected_thread_id, int is_terminal,
                                        int* failed) {
  return Finish(RunServed(callbacks, command_name, argument_line, selected_thread_id, nullptr,
                          is_terminal, nullptr),
                failed);
}

PYUNWIND_API char* pyunwind_run_command_at(const struct pyunwind_callbacks* callbacks,
                                           const char* command_name,
                                           const char* argument_line,
                                           const struct pyunwind_stop* stop, int is_terminal,
                                           int64_t* native_frame, int* failed) {
  if (native_frame != nullptr) *native_frame = -1;
  return Finish(RunServed(callbacks, command_name, argument_line,
                          stop != nullptr ? stop->selected_thread_id : -1, stop, is_terminal,
                          native_frame),
                failed);
}

PYUNWIND_API char* pyunwind_python_frames_by_native_frame(
    const struct pyunwind_callbacks* callbacks, int64_t selected_thread_id) {
  try {
    nlohmann::json by_level = nlohmann::json::object();
    if (callbacks != nullptr && callbacks->read_memory != nullptr && selected_thread_id >= 0) {
      pyunwind::gdb::CallbackTarget target(*callbacks);
      pyunwind::CommandContext context{target, static_cast<uint64_t>(selected_thread_id), false};
      for (const auto& [level, text] : pyunwind::PythonFramesByNativeFrame(context)) {
        by_level[std::to_string(level)] = text;
      }
    }
    return CopyToMalloc(Dump(by_level));
  } catch (...) {
    return CopyToMalloc("{}");
  }
}

PYUNWIND_API char* pyunwind_python_frames_by_native_frame_at(
    const struct pyunwind_callbacks* callbacks, const struct pyunwind_stop* stop,
    int* has_python) {
  if (has_python != nullptr) *has_python = -1;
  try {
    nlohmann::json by_level = nlohmann::json::object();
    if (callbacks != nullptr && callbacks->read_memory != nullptr && stop != nullptr &&
        stop->state == PYUNWIND_STOPPED && !pyunwind::gdb::WorkerRelay::Serving()) {
      pyunwind::gdb::CallbackTarget target(*callbacks);
      auto kept = pyunwind::KeptState::Take();
      if (!kept.ok()) return CopyToMalloc("{}");
      pyunwind::StopCache& stops = kept->stops();
      // Whether there is a runtime at all: the session of this stop (kept, or
      // opened here and kept for the frames below and the next commands).
      auto session = stops.SessionAt(target, StopOf(*stop));
      stops.EndCommand(target);
      // bt stopped by Ctrl-C: whether there is Python is not known.
      if (target.Interrupted()) return CopyToMalloc("{}");
      if (has_python != nullptr) {
        const bool none = !session.ok() && session.error().kind == pyunwind::ErrorKind::kNoRuntime;
        *has_python = session.ok() ? 1 : none ? 0 : -1;
      }
      if (session.ok() && stop->selected_thread_id >= 0) {
        pyunwind::CommandContext context{target, static_cast<uint64_t>(stop->selected_thread_id),
                                         false};
        context.stop_cache = &stops;
        context.stop = StopOf(*stop);
        const auto frames = pyunwind::PythonFramesByNativeFrame(context);
        stops.EndCommand(target);
        if (target.Interrupted()) return CopyToMalloc("{}");
        for (const auto& [level, text] : frames) by_level[std::to_string(level)] = text;
      }
    }
    return CopyToMalloc(Dump(by_level));
  } catch (...) {
    return CopyToMalloc("{}");
  }
}

PYUNWIND_API int pyunwind_python_in_module_files(const char* const* paths, size_t count) {
  return pyunwind::PythonInModuleFilesForC(paths, count);
}

PYUNWIND_API void pyunwind_free(char* text) { std::free(text); }

}  // extern "C"
