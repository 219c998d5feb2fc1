// The commands both debuggers offer (py-bt, ...), parsed and run in one
// place so that LLDB and GDB print the same thing for the same input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/render/output_writer.h"
#include "core/session/frame_selections.h"
#include "core/target/target.h"

namespace pyunwind {

class StopCache;

struct CommandContext {
  Target& target;
  // The OS thread id (LWP) of the thread selected in the debugger, if any.
  std::optional<uint64_t> selected_thread_id = std::nullopt;
  // Colour is used only when the debugger writes to a terminal.
  bool output_is_terminal = false;
  // The Python frame of the selected thread that py-up / py-down / py-frame
  // selected (0 = innermost, as py-bt numbers them); nullopt = none yet, which
  // means frame 0. The front-end keeps it per (process, thread) between
  // commands and drops it when the process resumes; commands that show "the
  // selected Python frame" (py-list, py-locals) read it, py-up / py-down /
  // py-frame set it.
  std::optional<size_t> selected_python_frame = std::nullopt;
  // The debugger's selected frame in the selected thread (its frame number, 0 =
  // innermost), where py-up / py-down start when no Python frame was selected
  // since (core/commands/native.h, StartingPosition); nullopt where unknown.
  std::optional<size_t> selected_native_frame = std::nullopt;
  // Out: the native frame (the debugger's frame number in the selected thread)
  // whose eval loop runs the Python frame just selected; the front-end selects
  // it so that `frame variable` / `info frame` mean the same frame.
  std::optional<size_t> select_native_frame = std::nullopt;
  // Where what was read at this stop is kept between commands (core/session/stop_cache.h),
  // set by the front-ends' RunCommand; null: the command reads for itself.
  StopCache* stop_cache = nullptr;
  ProcessStop stop = {};
  // The debugger pyunwind runs in and its version, for `pyunwind version`
  // ("GDB 13.1", "lldb version 14.0.6"); empty where unknown.
  std::string debugger = {};
  // What the front-end says about itself under `py-bt -v` (e.g. whether LLDB's own bt shows
  // the Python frames).
  std::vector<std::string> front_end_notes = {};
  // Where a command with large output (py-bt's text, py-tasks --json) may print it in
  // pieces before it returns; the text it returns follows them. Empty: every byte is
  // in the returned text. Only output that cannot fail any more goes here.
  OutputWriter write_output = {};
  // Whether write_output returns at once and the front-end prints the piece while the
  // command goes on (GDB: gdb_bridge/worker_relay.h). py-bt --all then hands its text over
  // a thread at a time; where printing holds the command up (LLDB), in big pieces only.
  bool output_printed_meanwhile = false;
  // What the command may print (core/base/limits.h); nullopt: its default, py-tasks' own
  // or the one of every other command. Tests lower it.
  std::optional<OutputLimit> output_limit = std::nullopt;
  // Set by RunCommand: what the command printed so far against that limit. The makers of a
  // large output stop adding at it (FormatOptions::output).
  OutputBudget* output_budget = nullptr;
};

struct CommandOutput {
  std::string text;     // what to print, ending with a newline
  bool failed = false;  // text is then one error line
};

// A failed command's output: "pyunwind: <message>" on one line.
CommandOutput Failure(std::string_view message);

// A failed output's text as the one line a debugger prints: line breaks
// folded into spaces, no final newline, no leading "error: " (LLDB adds its
// own); never empty.
std::string ErrorLine(std::string_view text);

// What both front-ends say, word for word, when there is nothing to read.
CommandOutput NoProcessFailure();
CommandOutput ProcessRunningFailure();

struct CommandInfo {
  std::string name;
  std::string summary;  // one line
  std::string help;     // usage and options
  // Registered only under the "pyunwind" prefix ("pyunwind version"): its
  // plain name is LLDB's own command.
  bool prefix_only = false;
  // False for a command that needs no process (it runs with none selected).
  bool reads_target = true;
};

// Every command the front-ends register, with its help text: the command table's
// (command_table.h).
const std::vector<CommandInfo>& AllCommands();

// Whether command `name` reads the target (false: it runs with no process).
bool CommandReadsTarget(std::string_view name);

// Runs `name` (e.g. "py-bt") with `args` (already split, without the name).
CommandOutput RunCommand(std::string_view name, const std::vector<std::string>& args,
                         CommandContext& context);

// RunCommand as a front-end runs it: with the Python frame `selections` holds
// for the selected thread in `stop`, keeping the one py-up / py-down /
// py-frame select, and reading through what `cache` kept of `stop`.
// context.select_native_frame then says which native frame the front-end
// selects.
CommandOutput RunCommand(std::string_view name, const std::vector<std::string>& args,
                         CommandContext& context, FrameSelections& selections, StopCache& cache,
                         const ProcessStop& stop);

}  // namespace pyunwind
