// The C ABI of pyunwind_c_api.h: a CallbackTarget, the core's command
// runner, and a wall that no C++ exception crosses.
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>

#include <nlohmann/json.hpp>

#include "core/commands/commands.h"
#include "gdb_bridge/callback_target.h"
#include "gdb_bridge/pyunwind_c_api.h"

namespace {

char* CopyToMalloc(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, text.data(), text.size());
  out[text.size()] = '\0';
  return out;
}

// One error line: newlines folded into spaces, one newline at the end.
std::string ErrorLine(std::string message) {
  for (char& c : message) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!message.empty() && message.back() == ' ') message.pop_back();
  if (message.empty()) message = "pyunwind: unknown error";
  return message + "\n";
}

std::string BuildCommandsJson() {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& info : pyunwind::AllCommands()) {
    list.push_back({{"name", info.name}, {"summary", info.summary}, {"help", info.help}});
  }
  // Replace invalid UTF-8 rather than throw.
  return list.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

extern "C" {

PYUNWIND_API int pyunwind_abi_version(void) { return PYUNWIND_ABI_VERSION; }

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
  return pyunwind_run_command_ex(callbacks, command_name, argument_line, selected_thread_id,
                                 is_terminal, nullptr, nullptr, failed);
}

PYUNWIND_API char* pyunwind_run_command_ex(const struct pyunwind_callbacks* callbacks,
                                           const char* command_name,
                                           const char* argument_line,
                                           int64_t selected_thread_id, int is_terminal,
                                           int64_t* python_frame, int64_t* native_frame,
                                           int* failed) {
  if (native_frame != nullptr) *native_frame = -1;
  std::string text;
  bool is_failure = true;
  try {
    if (callbacks == nullptr || callbacks->read_memory == nullptr) {
      text = ErrorLine("pyunwind: no memory reader was given to pyunwind_run_command");
    } else if (command_name == nullptr || command_name[0] == '\0') {
      text = ErrorLine("pyunwind: no command name was given");
    } else {
      pyunwind::gdb::CallbackTarget target(*callbacks);
      pyunwind::CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
      if (selected_thread_id >= 0) {
        context.selected_thread_id = static_cast<uint64_t>(selected_thread_id);
      }
      context.output_is_terminal = is_terminal != 0;
      if (python_frame != nullptr && *python_frame >= 0) {
        context.selected_python_frame = static_cast<size_t>(*python_frame);
      }
      std::vector<std::string> args =
          pyunwind::SplitCommandLine(argument_line == nullptr ? "" : argument_line);
      pyunwind::CommandOutput output = pyunwind::RunCommand(command_name, args, context);
      is_failure = output.failed;
      if (python_frame != nullptr) {
        *python_frame = context.selected_python_frame
                            ? static_cast<int64_t>(*context.selected_python_frame) : -1;
      }
      if (native_frame != nullptr && context.select_native_frame) {
        *native_frame = static_cast<int64_t>(*context.select_native_frame);
      }
      text = is_failure ? ErrorLine(std::move(output.text)) : std::move(output.text);
      if (!text.empty() && text.back() != '\n') text += '\n';
    }
  } catch (const std::bad_alloc&) {
    text = ErrorLine("pyunwind: out of memory");
    is_failure = true;
  } catch (const std::exception& e) {
    try {
      text = ErrorLine(std::string("pyunwind: internal error: ") + e.what());
    } catch (...) {
      text = "pyunwind: internal error\n";
    }
    is_failure = true;
  } catch (...) {
    text = "pyunwind: internal error\n";
    is_failure = true;
  }
  if (failed != nullptr) *failed = is_failure ? 1 : 0;
  try {
    return CopyToMalloc(text);
  } catch (...) {
    return nullptr;
  }
}

PYUNWIND_API void pyunwind_free(char* text) { std::free(text); }

}  // extern "C"
