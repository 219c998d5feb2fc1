// Every command, once: its name, what it does, its options and the function that runs it.
// The parser (options.h), each command's help, which commands take --outfile, and the list
// both front-ends register (AllCommands, commands.h) are all made from this table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/commands/commands.h"
#include "core/commands/options.h"

namespace pyunwind {

using CommandRunner = CommandOutput (*)(const ParsedArgs& args, CommandContext& context);

struct CommandSpec {
  std::string_view name;
  std::string_view summary;      // one line
  std::string_view description;  // the help under the usage line, wrapped by hand
  std::vector<OptionSpec> options = {};
  std::string_view operands = {};  // the usage of its operands ("[N]", "NAME"); empty: none
  size_t max_operands = 0;
  CommandRunner run = nullptr;
  // Registered only under the "pyunwind" prefix ("pyunwind version"): its plain name is
  // LLDB's own command.
  bool prefix_only = false;
  // False for a command that needs no process (it runs with none selected).
  bool reads_target = true;
};

const std::vector<CommandSpec>& CommandTable();

// The command called `name`; null when there is none.
const CommandSpec* FindCommand(std::string_view name);

// How `help` names the command: "py-bt", "pyunwind version".
std::string HelpName(const CommandSpec& command);
// What `help NAME` prints: the usage, the description and the options.
std::string HelpText(const CommandSpec& command);

// The option of the commands whose output can be large (a million tasks, every frame's
// locals of every thread): their output goes to a file (RunCommand).
inline constexpr std::string_view kOutfileOption = "--outfile";
bool TakesOutfile(const CommandSpec& command);

}  // namespace pyunwind
