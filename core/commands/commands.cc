#include "core/commands/commands.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/printable.h"
#include "core/commands/command_table.h"
#include "core/base/limits.h"
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

// The output limit of command `name`: py-tasks' own (a million tasks, also py-waits'), or
// every other's.
OutputLimit OutputLimitOf(std::string_view name, const CommandContext& context) {
  if (context.output_limit) return *context.output_limit;
  if (name == "py-tasks" || name == "py-waits") return {kMaxOutputBytesForTasks, kMaxOutputLinesForTasks};
  return {};
}

// What passes past the output limit of a command whose output is not cut where it is made
// (py-bt's text and JSON are, FormatOptions::output): room for the warnings and stats that
// follow a cut, which are not counted; at most 64 KiB and 1,024 lines, less for a small limit.
uint64_t SlackBytes(uint64_t limit) { return std::min<uint64_t>(64 << 10, limit / 16 + 4096); }
uint64_t SlackLines(uint64_t limit) { return std::min<uint64_t>(1024, limit / 16 + 64); }

// The last stop for any command's output: every piece and the returned text are counted, and
// text past the limit (and its slack) is cut at a line end and marked. JSON (--json) is
// never cut here: a cut document is no document; its makers keep to the limit themselves.
class OutputBackstop {
 public:
  OutputBackstop(OutputLimit limit, bool json)
      : limit_(limit),
        budget_({limit.bytes + SlackBytes(limit.bytes), limit.lines + SlackLines(limit.lines)}),
        json_(json) {}

  // Whether `piece` may still be printed.
  bool Pass(std::string_view piece) {
    if (json_) return true;
    if (budget_.Exceeded()) return false;
    if (!budget_.Fits(piece.size(), static_cast<uint64_t>(
                                         std::count(piece.begin(), piece.end(), '\n')))) {
      return false;
    }
    budget_.Count(piece);
    return true;
  }
  // The returned text, cut where it passes the limit.
  void Cut(std::string& text) {
    if (json_) return;
    if (!budget_.Exceeded()) {
      const uint64_t bytes = budget_.limit().bytes - budget_.bytes();
      uint64_t lines = budget_.limit().lines - budget_.lines();
      size_t end = 0;
      bool by_lines = false;
      while (end < text.size()) {
        if (lines == 0) {
          by_lines = true;
          break;
        }
        const size_t next = text.find('\n', end);
        const size_t line_end = next == std::string::npos ? text.size() : next + 1;
        if (line_end > bytes) break;
        end = line_end;
        --lines;
      }
      if (end == text.size()) return;
      constexpr uint64_t kPast = UINT64_MAX / 2;  // past any limit: marks which bound it was
      if (by_lines) {
        budget_.Fits(0, kPast);
      } else {
        budget_.Fits(kPast, 0);
      }
      text.resize(end);
    } else {
      text.clear();
    }
    // The command's own limit, as a command cut where its output is made says it.
    OutputBudget said(limit_);
    if (budget_.Bound().find("lines") != std::string::npos) {
      said.Fits(0, UINT64_MAX / 2);
    } else {
      said.Fits(UINT64_MAX / 2, 0);
    }
    text += "...truncated\nwarning: " + said.Reason() + "\n";
  }

 private:
  const OutputLimit limit_;
  OutputBudget budget_;
  const bool json_;
};

bool AsksForJson(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--json") != args.end();
}

}  // namespace

CommandOutput RunCommand(std::string_view name, const std::vector<std::string>& args,
                         CommandContext& context) {
  const OutputLimit limit = OutputLimitOf(name, context);
  OutputBudget budget(limit);
  OutputBackstop backstop(limit, AsksForJson(args));
  CommandContext limited = context;
  limited.output_budget = &budget;
  if (context.write_output) {
    limited.write_output = [&backstop, &context](std::string_view piece) {
      if (backstop.Pass(piece)) context.write_output(piece);
    };
  }
  CommandOutput output = RunCommandHereOrToFile(name, args, limited);
  context.selected_python_frame = limited.selected_python_frame;
  context.select_native_frame = limited.select_native_frame;
  if (!output.failed) backstop.Cut(output.text);
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
