#include "core/commands/commands.h"

#include <fmt/format.h>

#include "core/base/printable.h"
#include "core/commands/command_table.h"
#include "core/commands/output_file.h"
#include "core/session/stop_cache.h"

namespace pyunwind {

CommandOutput Failure(std::string_view message) {
  // Messages quote what the target chose (paths, names) and what the user typed.
  return {fmt::format("pyunwind: {}\n", PrintableText(message)), true};
}

std::string ErrorLine(std::string_view text) {
  std::string line(text);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  constexpr std::string_view kPrefix = "error: ";
  if (std::string_view(line).substr(0, kPrefix.size()) == kPrefix) line.erase(0, kPrefix.size());
  return line.empty() ? "pyunwind: the command failed" : line;
}

CommandOutput NoProcessFailure() {
  return Failure("no process: attach to a process or load a core file first");
}

// Each debugger's own word for it ("process interrupt", "interrupt") would
// make the two outputs differ; Ctrl-C stops the process in both.
CommandOutput ProcessRunningFailure() {
  return Failure("the process is running: stop it first (Ctrl-C)");
}

const std::vector<CommandInfo>& AllCommands() {
  static const std::vector<CommandInfo> commands = [] {
    std::vector<CommandInfo> out;
    for (const CommandSpec& command : CommandTable()) {
      out.push_back({std::string(command.name), std::string(command.summary), HelpText(command),
                     command.prefix_only, command.reads_target});
    }
    return out;
  }();
  return commands;
}

bool CommandReadsTarget(std::string_view name) {
  const CommandSpec* command = FindCommand(name);
  return command == nullptr || command->reads_target;
}

namespace {

// Runs the command with its output going to `path`: the pieces it writes as it goes and the
// text it returns; a failure is printed as usual.
CommandOutput RunCommandToFile(const CommandSpec& command, const ParsedArgs& args,
                               const std::string& path, CommandContext& context) {
  auto created = OutputFile::Create(path);
  if (!created.ok()) return Failure(fmt::format("{}: {}", command.name, created.error().message));
  OutputFile& file = *created;
  CommandContext to_file = context;
  to_file.output_is_terminal = false;  // no colour codes in a file
  to_file.write_output = [&file](std::string_view piece) { file.Write(piece); };
  CommandOutput output = command.run(args, to_file);
  context.selected_python_frame = to_file.selected_python_frame;
  context.select_native_frame = to_file.select_native_frame;
  if (output.failed) return output;
  file.Write(output.text);
  auto written = file.Close();
  if (!written.ok()) return Failure(fmt::format("{}: {}", command.name, written.error().message));
  return {fmt::format("{}: output written to {} ({} bytes)\n", command.name, PrintableText(path),
                      *written),
          false};
}

// The command's words taken apart by its options (command_table.cc), then the command,
// its output to the debugger or, with --outfile FILE, to FILE.
CommandOutput RunCommandHereOrToFile(std::string_view name, const std::vector<std::string>& args,
                                     CommandContext& context) {
  const CommandSpec* command = FindCommand(name);
  if (command == nullptr) return Failure(fmt::format("unknown command '{}'", name));
  auto parsed = ParseOptions(command->name, HelpName(*command), command->options,
                             command->max_operands, args);
  if (!parsed.ok()) return Failure(parsed.error().message);
  if (TakesOutfile(*command)) {
    if (std::optional<std::string> path = parsed->Text(kOutfileOption)) {
      return RunCommandToFile(*command, *parsed, *path, context);
    }
  }
  return command->run(*parsed, context);
}

}  // namespace

CommandOutput RunCommand(std::string_view name, const std::vector<std::string>& args,
                         CommandContext& context) {
  CommandOutput output = RunCommandHereOrToFile(name, args, context);
  // Whatever it printed or chose: the user stopped it, and its reads failed from then on.
  if (context.target.Interrupted()) {
    context.selected_python_frame.reset();
    context.select_native_frame.reset();
    return Failure("interrupted");
  }
  return output;
}

CommandOutput RunCommand(std::string_view name, const std::vector<std::string>& args,
                         CommandContext& context, FrameSelections& selections, StopCache& cache,
                         const ProcessStop& stop) {
  const std::optional<uint64_t> thread = context.selected_thread_id;
  if (thread) context.selected_python_frame = selections.Get(stop, *thread);
  context.stop_cache = &cache;
  context.stop = stop;
  CommandOutput output = RunCommand(name, args, context);
  cache.EndCommand(context.target);
  if (thread && context.selected_python_frame) {
    selections.Set(stop, *thread, *context.selected_python_frame);
  }
  return output;
}

}  // namespace pyunwind
