#include "core/commands/commands.h"

#include <fmt/format.h>

#include <chrono>

#include "core/asyncio/asyncio.h"
#include "core/base/printable.h"
#include "core/commands/arguments.h"
#include "core/commands/command_session.h"
#include "core/commands/native.h"
#include "core/commands/output_file.h"
#include "core/commands/py_print.h"
#include "core/commands/py_tasks.h"
#include "core/commands/source_commands.h"
#include "core/commands/version_command.h"
#include "core/pysource/source_lines.h"
#include "core/render/format.h"
#include "core/session/selected_thread.h"
#include "core/session/stop_cache.h"
#include "core/walk/locals.h"
#include "core/walk/thread_activity.h"
#include "core/walk/thread_state.h"
#include "core/walk/threads.h"

namespace pyunwind {
namespace {

constexpr char kPyBtHelp[] =
    "Usage: py-bt [--all|-a] [--native] [--locals] [--json] [--limit N] [--verbose|-v] [--stats] [--no-color]\n"
    "             [--no-source] [--source] [--source-dir DIR] [--outfile FILE]\n"
    "Print the Python stack of the selected thread, innermost frame first, each frame\n"
    "with its source line and the expression it runs underlined, as Python's tracebacks.\n"
    "  -a, --all      every thread of every interpreter\n"
    "  --native       the debugger's native backtrace, each eval-loop frame followed by\n"
    "                 the Python frames it runs\n"
    "  --json         one JSON document (see the README)\n"
    "  --locals       arguments and locals of each Python frame, with short reprs\n"
    "                 (cut at 200 characters, 50 items, depth 3; see py-locals)\n"
    "  --limit N      at most N frames per thread\n"
    "  -v, --verbose  also say how the runtime was found and which layout was used\n"
    "  --stats        memory reads, bytes, cache hits, time and the work budget spent\n"
    "  --no-color     no colour even on a terminal\n"
    "  --no-source    no source lines (text)\n"
    "  --source       with --json: each frame's source line (\"source\")\n"
    "  --source-dir DIR  look for each source file by its base name in DIR first\n"
    "                 (the sources of a core made elsewhere); may be repeated\n"
    "  --outfile FILE write the output to FILE (created or truncated), not to the\n"
    "                 debugger's output, and print one line saying where and how many bytes\n";

struct PyBtOptions {
  bool all = false;
  bool json = false;
  bool verbose = false;
  bool stats = false;
  bool no_color = false;
  bool locals = false;
  bool native = false;
  bool no_source = false;
  bool json_source = false;
  SourceLookup sources;
  size_t limit = 0;
};

Result<PyBtOptions> ParsePyBt(const std::vector<std::string>& args) {
  PyBtOptions options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--all" || arg == "-a") {
      options.all = true;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--locals") {
      options.locals = true;
    } else if (arg == "--native") {
      options.native = true;
    } else if (arg == "--verbose" || arg == "-v") {
      options.verbose = true;
    } else if (arg == "--stats") {
      options.stats = true;
    } else if (arg == "--no-color" || arg == "--no-colour") {
      options.no_color = true;
    } else if (arg == "--no-source") {
      options.no_source = true;
    } else if (arg == "--source") {
      options.json_source = true;
    } else if (IsOptionWithValue(arg, "--source-dir")) {
      std::optional<std::string> directory = TakeOptionValue(args, i, "--source-dir");
      if (!directory) return BadArgument("py-bt: --source-dir needs a directory");
      options.sources.directories.push_back(*std::move(directory));
    } else if (IsOptionWithValue(arg, "--limit")) {
      std::optional<std::string> value = TakeOptionValue(args, i, "--limit");
      if (!value) return BadArgument("py-bt: --limit needs a number");
      const auto n = ParseUnsigned(*value, kMaxFramesPerThread);
      if (!n || *n == 0) {
        return BadArgument(fmt::format("py-bt: --limit wants a number from 1 to {}, not '{}'",
                                       kMaxFramesPerThread, *value));
      }
      options.limit = *n;
    } else {
      return BadArgument(fmt::format("py-bt: unknown option '{}' (see 'help py-bt')", arg));
    }
  }
  return options;
}

// What py-bt shows of a thread besides its Python frames: the OS's name where threading
// gives none, what the thread is doing, and with --native the debugger's frames merged in.
// Returns the native frames asked for (--native, or a collection running in `interp`).
std::vector<NativeFrame> PrepareThread(TargetSession& target, Target& debugger,
                                       const PyBtOptions& options, const Interpreter& interp,
                                       Thread& thread, std::vector<std::string>& warnings) {
  // The debugger's native stacks: --native's merge, what each thread is doing
  // (idle/running) and which thread runs the collector. Asked of the debugger
  // only for --native and while a collection runs: GDB unwinds a thread in tens
  // of milliseconds, so otherwise idle/running comes from the Python frames.
  std::vector<NativeFrame> native;
  if (thread.native_id) {
    if (options.native || interp.gc_collecting) native = target.NativeFrames(*thread.native_id);
    // The text shows the OS's name only where threading has none (ThreadTitle): a
    // debugger call per thread that GDB makes through Python, 20 us each.
    if (options.json || !thread.name) {
      thread.os_name = debugger.ThreadName(*thread.native_id);
    }
  }
  ClassifyActivity(thread, native);
  if (options.native && thread.native_id) {
    if (native.empty()) {
      warnings.push_back(fmt::format("thread {}: the debugger gave no native frames", *thread.native_id));
    } else {
      thread.frames = MergeNativeFrames(thread.frames, native).frames;
    }
  }
  return native;
}

// py-bt --all's text shown thread by thread as the walk finishes each: GDB prints one thread
// while the next is read (gdb_bridge/worker_relay.h). From the first interpreter whose threads
// are told apart only by all of them (a collection running: the collector is found through
// every thread's native stack; asyncio: the running tasks through every thread's frames), the
// rest waits for the walk's end, as without it.
class ThreadsShownAsWalked : public WalkObserver {
 public:
  ThreadsShownAsWalked(TargetSession& target, CommandContext& context, const PyBtOptions& options,
                       const FormatOptions& format)
      : target_(target), context_(context), options_(options), format_(format),
        sources_(options.sources) {}

  void Interpreters(size_t count) override {
    text_.emplace(format_, target_.objects().layout().caret_rules, count, context_.write_output,
                  /*expected_size=*/0, /*pieces_at_thread_end=*/true);
  }
  void InterpreterStarted(const Interpreter& interp) override {
    if (!showing_) return;
    if (interp.gc_collecting || AsyncioImported(target_.objects(), interp)) {
      showing_ = false;
      return;
    }
    ++interpreters_shown_;
    text_->AddInterpreter(interp);
  }
  void ThreadDone(const Interpreter& interp, Thread& thread) override {
    if (!showing_) return;
    PrepareThread(target_, context_.target, options_, interp, thread, warnings_);
    if (!options_.no_source) sources_.Add({&thread}, source_texts_);
    text_->AddThread(thread);
  }

  // The interpreters shown, the first ones of the snapshot.
  size_t interpreters_shown() const { return interpreters_shown_; }
  // Null when the walk listed no interpreter.
  TracebackText* text() { return text_ ? &*text_ : nullptr; }
  SourceLineReader& sources() { return sources_; }
  // What the threads shown left for the snapshot: warnings and source texts.
  void HandOver(Snapshot& snapshot) {
    for (std::string& warning : warnings_) snapshot.warnings.push_back(std::move(warning));
    for (auto& text : source_texts_) snapshot.source_texts.push_back(std::move(text));
    warnings_.clear();
    source_texts_.clear();
  }

 private:
  TargetSession& target_;
  CommandContext& context_;
  const PyBtOptions& options_;
  const FormatOptions format_;
  SourceLineReader sources_;
  std::optional<TracebackText> text_;
  std::vector<std::string> warnings_;
  std::vector<std::shared_ptr<const SourceText>> source_texts_;
  bool showing_ = true;
  size_t interpreters_shown_ = 0;
};

CommandOutput RunPyBt(const std::vector<std::string>& args, CommandContext& context) {
  auto parsed = ParsePyBt(args);
  if (!parsed.ok()) return Failure(parsed.error().message);
  const PyBtOptions& options = *parsed;
  const auto started = std::chrono::steady_clock::now();

  auto session = CommandSession::Open(context);
  if (!session.ok()) return Failure(session.error().message);
  TargetSession& target = **session;
  FormatOptions format;
  format.color = context.output_is_terminal && !options.no_color && !options.json;
  format.verbose = options.verbose;
  format.frame_limit = options.limit;
  format.json_source = options.json_source;
  format.stats = options.stats ? &target.stats() : nullptr;
  format.work = &target.objects().memory().budget();
  format.session_kept = target.kept();

  // Threads shown as they are walked: text of every thread, written as it goes.
  std::optional<ThreadsShownAsWalked> early;
  if (options.all && !options.json && !options.native && !options.locals && context.write_output &&
      context.output_printed_meanwhile) {
    early.emplace(target, context, options, format);
  }
  auto snapshot = target.Walk(early ? &*early : nullptr);
  if (!snapshot.ok()) return Failure(snapshot.error().message);
  if (early) early->HandOver(*snapshot);
  const size_t shown = early ? early->interpreters_shown() : 0;

  if (options.verbose) {
    snapshot->warnings.push_back(DescribeLocation(target.location()));
    for (const Interpreter& interp : snapshot->interpreters) {
      snapshot->warnings.push_back(
          fmt::format("interpreter {}: main thread {}", interp.id, interp.main_thread_source));
    }
    for (const std::string& note : context.front_end_notes) snapshot->warnings.push_back(note);
  }
  if (!options.all) {
    auto selected = FindSelectedThread(*snapshot, context.selected_thread_id);
    if (!selected.ok()) {
      return Failure(selected.error().message +
                     (context.selected_thread_id ? "; try py-bt --all" : "; use py-bt --all"));
    }
    // Only the selected thread, in its interpreter.
    Interpreter interp = std::move(*selected->interpreter);
    interp.threads = {std::move(*selected->thread)};
    snapshot->interpreters = {std::move(interp)};
  }
  // The interpreters not shown yet. Before --native: the running task is found
  // through the Python frames' addresses.
  AddRunningTasks(target.objects(), target.codes(), *snapshot);
  std::vector<Thread*> rest;
  for (size_t i = shown; i < snapshot->interpreters.size(); ++i) {
    Interpreter& interp = snapshot->interpreters[i];
    std::vector<std::vector<NativeFrame>> native_by_thread;
    for (Thread& thread : interp.threads) {
      native_by_thread.push_back(
          PrepareThread(target, context.target, options, interp, thread, snapshot->warnings));
      rest.push_back(&thread);
    }
    MarkCollectingThreads(interp, native_by_thread);
  }
  for (std::string& warning : GilHolderWarnings(*snapshot)) snapshot->warnings.push_back(std::move(warning));
  if (options.locals) AddLocals(target.objects(), *snapshot);
  // Text shows source lines unless --no-source; JSON only with --source.
  if (options.json ? options.json_source : !options.no_source) {
    if (early) {
      early->sources().Add(rest, snapshot->source_texts);
    } else {
      AddSourceLines(*snapshot, options.sources);
    }
  }
  format.elapsed_ms = std::chrono::duration<double, std::milli>(
                          std::chrono::steady_clock::now() - started).count();
  if (options.json) return {FormatJson(*snapshot, format), false};
  if (!early || early->text() == nullptr) {
    return {FormatText(*snapshot, format, context.write_output), false};
  }
  TracebackText& text = *early->text();
  for (size_t i = shown; i < snapshot->interpreters.size(); ++i) {
    text.AddInterpreter(snapshot->interpreters[i]);
    for (const Thread& thread : snapshot->interpreters[i].threads) text.AddThread(thread);
  }
  return {text.Finish(*snapshot, format.elapsed_ms), false};
}

}  // namespace

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
  static const std::vector<CommandInfo> commands = {
      {"py-bt", "Print the Python stack of the selected thread, or of every thread.", kPyBtHelp},
      {"py-tasks", "List the asyncio tasks, their coroutine stacks and who awaits whom.",
       kPyTasksHelp},
      {"py-bt-full", "py-bt --locals: the Python stack with each frame's arguments and locals.",
       kPyBtHelp},
      {"py-locals", "Print the arguments and locals of the selected Python frame.", kPyLocalsHelp},
      {"py-print", "Print the full repr of a local, global or builtin seen from the selected Python frame.",
       kPyPrintHelp},
      {"py-list", "List the source lines around the current line of the selected Python frame.",
       kPyListHelp},
      {"py-up", "Select an older Python frame (and the native frame running it).", kPyUpHelp},
      {"py-down", "Select a newer Python frame (and the native frame running it).", kPyDownHelp},
      {"py-frame", "Print or select a Python frame of the selected thread.", kPyFrameHelp},
      {"version",
       "pyunwind's version and git revision, the debugger it runs in, the CPython versions it reads.",
       kVersionHelp, true, false},
  };
  return commands;
}

bool CommandReadsTarget(std::string_view name) {
  for (const CommandInfo& info : AllCommands()) {
    if (info.name == name) return info.reads_target;
  }
  return true;
}

namespace {

// The commands whose output can be large (a million tasks, every frame's locals of every
// thread) take --outfile FILE, handled here for all of them.
bool TakesOutfile(std::string_view name) {
  return name == "py-bt" || name == "py-bt-full" || name == "py-tasks";
}

// Takes "--outfile FILE" (or "--outfile=FILE", the last one given) out of `args`: the path,
// an empty string when there is none, or why the option is wrong.
Result<std::string> TakeOutfile(std::string_view name, std::vector<std::string>& args) {
  constexpr std::string_view kOption = "--outfile";
  std::string path;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!IsOptionWithValue(args[i], kOption)) {
      rest.push_back(args[i]);
      continue;
    }
    std::optional<std::string> value = TakeOptionValue(args, i, kOption);
    if (!value || value->empty()) {
      return BadArgument(fmt::format("{}: --outfile needs a file name", name));
    }
    path = *std::move(value);
  }
  args = std::move(rest);
  return path;
}

// The command itself, its output to the debugger.
CommandOutput RunCommandHere(std::string_view name, const std::vector<std::string>& args,
                             CommandContext& context) {
  if (name == "py-bt") return RunPyBt(args, context);
  if (name == "py-tasks") return RunPyTasks(args, context);
  if (name == "py-bt-full") {
    std::vector<std::string> full = args;
    full.push_back("--locals");
    return RunPyBt(full, context);
  }
  if (name == "py-locals") return RunPyLocals(args, context);
  if (name == "version") return RunVersion(args, context);
  if (name == "py-list") return RunPyList(args, context);
  if (name == "py-print") return RunPyPrint(args, context);
  if (name == "py-up" || name == "py-down" || name == "py-frame") {
    return RunPyFrameSelection(name, args, context);
  }
  return Failure(fmt::format("unknown command '{}'", name));
}

// Runs the command with its output going to `path`: the pieces it writes as it goes and the
// text it returns; a failure is printed as usual.
CommandOutput RunCommandToFile(std::string_view name, const std::vector<std::string>& args,
                               const std::string& path, CommandContext& context) {
  auto created = OutputFile::Create(path);
  if (!created.ok()) return Failure(fmt::format("{}: {}", name, created.error().message));
  OutputFile& file = *created;
  CommandContext to_file = context;
  to_file.output_is_terminal = false;  // no colour codes in a file
  to_file.write_output = [&file](std::string_view piece) { file.Write(piece); };
  CommandOutput output = RunCommandHere(name, args, to_file);
  context.selected_python_frame = to_file.selected_python_frame;
  context.select_native_frame = to_file.select_native_frame;
  if (output.failed) return output;
  file.Write(output.text);
  auto written = file.Close();
  if (!written.ok()) return Failure(fmt::format("{}: {}", name, written.error().message));
  return {fmt::format("{}: output written to {} ({} bytes)\n", name, PrintableText(path), *written),
          false};
}

CommandOutput RunCommandHereOrToFile(std::string_view name, const std::vector<std::string>& args,
                                     CommandContext& context) {
  if (TakesOutfile(name)) {
    std::vector<std::string> rest = args;
    auto path = TakeOutfile(name, rest);
    if (!path.ok()) return Failure(path.error().message);
    if (!path->empty()) return RunCommandToFile(name, rest, *path, context);
  }
  return RunCommandHere(name, args, context);
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
