// Turning a Snapshot into what the user reads: a traceback per thread, or
// the JSON document of docs/json-output.md.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/work_budget.h"
#include "core/render/output_writer.h"
#include "core/target/memory.h"
#include "core/walk/model.h"

namespace pyunwind {

// The locals of a frame of `interp`, read when asked (null: none to show).
using FrameLocalsSource =
    std::function<std::shared_ptr<const FrameLocals>(const Interpreter& interp, const Frame& frame)>;

struct FormatOptions {
  bool color = false;
  bool verbose = false;          // print how the runtime was found, layout source
  size_t frame_limit = 0;        // frames per thread; 0 = all
  const MemoryStats* stats = nullptr;  // printed when set (--stats)
  const WorkBudget* work = nullptr;    // its spending printed with the stats
  bool session_kept = false;  // the stats say the command reused an earlier one's reads
  // When the command started: the stats give its time until they are written.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  bool json_source = false;  // --json --source: each frame's stripped source line
  // What the command may still print (CommandContext::output_budget); null: no bound.
  OutputBudget* output = nullptr;
  // py-bt --locals: reads a Python frame's locals just before the frame is shown, so that
  // the output budget stops the reading where it stops the output. Unset: Frame::locals.
  FrameLocalsSource locals;
  // py-bt --all --group: the threads of each interpreter with the same stack shown once
  // (core/render/thread_groups.h); JSON adds each interpreter's "groups".
  bool group_threads = false;
};

// A frame's "kind" in JSON: "python", "native", "gc".
std::string_view FrameKindName(FrameKind kind);
// A thread's "activity" in JSON: "idle", "running", "unknown".
std::string_view ActivityName(Activity activity);
// A thread's "exception_state" in JSON: "none", "raised", "handled", "unknown".
std::string_view ExceptionStateName(ExceptionState state);

// The line that names Python frame `index`, as py-up and py-locals print it:
// #N File "...", line L, in QUALNAME
std::string FrameHeader(const Frame& frame, size_t index);

// py-bt's text, made as the walk goes (py-bt --all prints a thread while the next is read):
// the interpreters' titles and their threads in order, then the end. With `write`, the text
// goes there in pieces of about kOutputPieceBytes as it is made, and with
// `pieces_at_thread_end` also at the end of a thread once kThreadEndPieceBytes wait; Finish
// returns the rest.
class TracebackText {
 public:
  // `interpreters`: how many the text will have (titles only when several).
  // `expected_size`: the whole text's, without `write` (one allocation up front).
  TracebackText(const FormatOptions& options, TracebackCaretRules rules, size_t interpreters,
                OutputWriter write, size_t expected_size, bool pieces_at_thread_end);
  ~TracebackText();
  TracebackText(const TracebackText&) = delete;
  TracebackText& operator=(const TracebackText&) = delete;

  void AddInterpreter(const Interpreter& interp);
  void AddThread(const Thread& thread);
  // The threads of a group (same stack, core/render/thread_groups.h) shown once: a group of
  // one as AddThread shows it; more under one title that counts them and names the first
  // kGroupThreadsNamed.
  void AddThreadGroup(const std::vector<const Thread*>& threads);
  // "No Python threads." if none was added, the version (verbose), `snapshot`'s warnings and
  // the stats; returns what was not handed over.
  std::string Finish(const Snapshot& snapshot);

 private:
  // `title` (a thread's header without its colon), then the stack of `thread`.
  void AddStack(const std::string& title, const Thread& thread);

  struct Parts;
  std::unique_ptr<Parts> parts_;
};

// py-bt's text of a whole snapshot (TracebackText).
std::string FormatText(const Snapshot& snapshot, const FormatOptions& options,
                       const OutputWriter& write = {});
std::string FormatJson(const Snapshot& snapshot, const FormatOptions& options);

// The locals of one frame (filled by core/walk/locals.h) as `name = repr` lines,
// each starting with `indent`; and as the JSON document py-locals --json prints.
std::string LocalsText(const FrameLocals& locals, const std::string& indent);
std::string FormatLocalsJson(const Frame& frame, size_t index);

}  // namespace pyunwind
