#include "core/commands/py_bt.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "core/asyncio/asyncio.h"
#include "core/base/limits.h"
#include "core/commands/command_session.h"
#include "core/commands/native.h"
#include "core/commands/source_commands.h"
#include "core/greenlet/greenlets.h"
#include "core/pysource/source_lines.h"
#include "core/render/format.h"
#include "core/runtime/runtime_locator.h"
#include "core/session/selected_thread.h"
#include "core/walk/locals.h"
#include "core/walk/thread_activity.h"
#include "core/walk/thread_state.h"
#include "core/walk/threads.h"

namespace pyunwind {
namespace {

struct PyBtOptions {
  bool all = false;
  bool group = false;
  bool greenlets = false;
  bool json = false;
  bool verbose = false;
  bool stats = false;
  bool no_color = false;
  bool locals = false;
  bool native = false;
  bool no_source = false;
  bool json_source = false;
  std::vector<std::string> source_dirs;
  size_t limit = 0;
};

PyBtOptions OptionsOf(const ParsedArgs& args) {
  PyBtOptions options;
  options.all = args.Has("--all");
  options.group = args.Has("--group");
  options.greenlets = args.Has("--greenlets");
  options.json = args.Has("--json");
  options.locals = args.Has("--locals");
  options.native = args.Has("--native");
  options.verbose = args.Has("--verbose");
  options.stats = args.Has("--stats");
  options.no_color = args.Has("--no-color");
  options.no_source = args.Has("--no-source");
  options.json_source = args.Has("--source");
  options.source_dirs = args.Texts("--source-dir");
  options.limit = args.Number("--limit").value_or(0);
  return options;
}

// What py-bt shows of a thread besides its Python frames: the OS's name where threading
// gives none, what the thread is doing, and with --native the debugger's frames merged in.
// Returns the native frames asked for (--native, or a collection running in `interp`).
std::vector<NativeFrame> PrepareThread(TargetSession& target, Target& debugger,
                                       const PyBtOptions& options, const Interpreter& interp,
                                       Thread& thread, std::vector<std::string>& warnings,
                                       size_t& gil_wait_unwinds) {
  // The debugger's native stacks: --native's merge, what each thread is doing
  // (idle/running/waiting for the GIL) and which thread runs the collector. Asked
  // of the debugger for --native, while a collection runs, and (a few threads a
  // command) for a thread that may wait for the GIL another holds where the thread
  // state does not say so (before 3.15): GDB unwinds a thread in tens of
  // milliseconds, so otherwise idle/running comes from the Python frames.
  std::vector<NativeFrame> native;
  if (thread.native_id) {
    const bool gil_wait_unknown =
        interp.gil_holder && thread.holds_gil == false &&
        std::find(thread.status.begin(), thread.status.end(), "gil_requested") == thread.status.end();
    if (options.native || interp.gc_collecting) {
      native = target.NativeFrames(*thread.native_id);
    } else if (gil_wait_unknown && gil_wait_unwinds > 0) {
      --gil_wait_unwinds;
      native = target.NativeFrames(*thread.native_id);
    }
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
        sources_(SourceOriginOf(context.target, options.source_dirs)) {}

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
    PrepareThread(target_, context_.target, options_, interp, thread, warnings_, gil_wait_unwinds_);
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
  size_t gil_wait_unwinds_ = kMaxGilWaitUnwinds;
};

// Why py-bt refuses these options together, or nothing. --group shows one stack for threads
// whose locals and native frames differ.
std::optional<std::string> Refusal(const PyBtOptions& options) {
  if (options.group && options.greenlets) {
    return "py-bt: --group shows no greenlets (a thread's greenlets are its own)";
  }
  if (!options.group) return std::nullopt;
  if (!options.all) return "py-bt: --group groups the threads of --all: use py-bt --all --group";
  if (options.locals) return "py-bt: --group shows no locals (their values differ by thread)";
  if (options.native) return "py-bt: --group shows no native frames (their addresses differ)";
  return std::nullopt;
}

CommandOutput Run(const PyBtOptions& options, CommandContext& context) {
  if (auto refusal = Refusal(options)) return Failure(*refusal);
  FormatOptions format;  // first: its `started` times the command
  auto session = CommandSession::Open(context);
  if (!session.ok()) return Failure(session.error().message);
  TargetSession& target = **session;
  format.color = context.output_is_terminal && !options.no_color && !options.json;
  format.verbose = options.verbose;
  format.frame_limit = options.limit;
  format.json_source = options.json_source;
  format.stats = options.stats ? &target.stats() : nullptr;
  format.work = &target.objects().memory().budget();
  format.session_kept = target.kept();
  format.output = context.output_budget;
  format.group_threads = options.group;

  // Threads shown as they are walked: text of every thread, written as it goes.
  std::optional<ThreadsShownAsWalked> early;
  if (options.all && !options.group && !options.greenlets && !options.json && !options.native &&
      !options.locals && context.write_output && context.output_printed_meanwhile) {
    early.emplace(target, context, options, format);
  }
  // Without --all, only the selected thread's frames: it has the whole work budget.
  auto snapshot = target.Walk(early ? &*early : nullptr,
                              options.all ? std::nullopt : context.selected_thread_id);
  if (!snapshot.ok()) return Failure(snapshot.error().message);
  if (early) early->HandOver(*snapshot);
  const size_t shown = early ? early->interpreters_shown() : 0;
  // Before the threads not asked for are left out: each greenlet is told its thread among all.
  if (options.greenlets) {
    AddGreenletStacks(target.objects(), target.codes(), context.target, *snapshot);
  } else if (options.all && !options.json && GreenletImported(target.objects(), *snapshot)) {
    // Not read by default (it walks every tracked object): said where it would show more.
    snapshot->warnings.push_back(
        "greenlet is imported: py-bt --all --greenlets also shows each thread's suspended "
        "greenlets");
  }

  if (options.verbose) {
    snapshot->warnings.push_back(DescribeLocation(target.location()));
    if (UsesFrameObjects(target.location().layout)) {
      snapshot->warnings.push_back(
          fmt::format("Python {} records no columns: source lines are shown without carets",
                      target.location().layout.version.MinorString()));
    }
    for (const Interpreter& interp : snapshot->interpreters) {
      snapshot->warnings.push_back(
          fmt::format("interpreter {}: main thread {}", interp.id, interp.main_thread_source));
    }
    for (const std::string& note : context.front_end_notes) snapshot->warnings.push_back(note);
  }
  // Before the threads not asked for are left out: a holder among them is not
  // "not shown" but not asked for (thread apply all py-bt said it once a thread).
  for (std::string& warning : GilHolderWarnings(*snapshot)) snapshot->warnings.push_back(std::move(warning));
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
  size_t gil_wait_unwinds = kMaxGilWaitUnwinds;
  for (size_t i = shown; i < snapshot->interpreters.size(); ++i) {
    Interpreter& interp = snapshot->interpreters[i];
    std::vector<std::vector<NativeFrame>> native_by_thread;
    for (Thread& thread : interp.threads) {
      native_by_thread.push_back(
          PrepareThread(target, context.target, options, interp, thread, snapshot->warnings,
                        gil_wait_unwinds));
      rest.push_back(&thread);
    }
    MarkCollectingThreads(interp, native_by_thread);
  }
  // --locals: each frame's locals are read as the frame is shown, so that the output budget
  // stops the reading where it stops the output.
  FrameLocalsReader locals(target.objects());
  if (options.locals) {
    format.locals = [&locals](const Interpreter& interp, const Frame& frame) {
      return locals.Read(interp, frame);
    };
  }
  // Text shows source lines unless --no-source; JSON only with --source.
  if (options.json ? options.json_source : !options.no_source) {
    std::optional<std::string> refused;
    if (early) {
      early->sources().Add(rest, snapshot->source_texts);
      refused = early->sources().policy().RefusalNote();
    } else {
      refused = AddSourceLines(*snapshot, SourceOriginOf(context.target, options.source_dirs));
    }
    // Refused files are counted, and said once, under -v only: never a line per frame.
    if (options.verbose && refused) snapshot->warnings.push_back(std::move(*refused));
  }
  if (options.json) return {FormatJson(*snapshot, format), false};
  if (!early || early->text() == nullptr) {
    return {FormatText(*snapshot, format, context.write_output), false};
  }
  TracebackText& text = *early->text();
  for (size_t i = shown; i < snapshot->interpreters.size(); ++i) {
    text.AddInterpreter(snapshot->interpreters[i]);
    for (const Thread& thread : snapshot->interpreters[i].threads) text.AddThread(thread);
  }
  return {text.Finish(*snapshot), false};
}

}  // namespace

CommandOutput RunPyBt(const ParsedArgs& args, CommandContext& context) {
  return Run(OptionsOf(args), context);
}

CommandOutput RunPyBtFull(const ParsedArgs& args, CommandContext& context) {
  PyBtOptions options = OptionsOf(args);
  options.locals = true;
  return Run(options, context);
}

}  // namespace pyunwind
