// The commands both debuggers offer (py-bt, ...), parsed and run in one
// place so that LLDB and GDB print the same thing for the same input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/target.h"

namespace pyunwind {

struct CommandContext {
  Target& target;
  // The OS thread id (LWP) of the thread selected in the debugger, if any.
  std::optional<uint64_t> selected_thread_id;
  // Colour is used only when the debugger writes to a terminal.
  bool output_is_terminal = false;
};

struct CommandOutput {
  std::string text;     // what to print, ending with a newline
  bool failed = false;  // text is then one error line
};

struct CommandInfo {
  std::string name;
  std::string summary;  // one line
  std::string help;     // usage and options
};

// Every command the front-ends register, with its help text.
const std::vector<CommandInfo>& AllCommands();

// Runs `name` (e.g. "py-bt") with `args` (already split, without the name).
CommandOutput RunCommand(std::string_view name, const std::vector<std::string>& args,
                         CommandContext& context);

// Splits a command line the way a shell would (quotes, backslashes).
std::vector<std::string> SplitCommandLine(std::string_view line);

}  // namespace pyunwind
