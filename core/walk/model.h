// Plain data the unwinder returns: what the formatter prints and the tests
// compare. No pointers into the target beyond addresses kept for display.
// What only some frames have (source text, locals, a native frame) is held
// through a shared pointer to const data: a Frame stays small, as a deep
// stack makes thousands of them in memory the debugger touches for the first
// time, and frames of one recursion share one source line. Copies share it;
// nothing changes it once made.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/layout/layout.h"
#include "core/layout/version.h"
#include "core/target/target.h"

namespace pyunwind {

// One argument or local of a Python frame (--locals, py-locals).
struct LocalVariable {
  std::string name;
  std::string type;                  // type(value).__name__; empty when unreadable
  std::optional<std::string> repr;   // null when it cannot be read safely
  std::optional<std::string> error;  // why repr is null
};

// --locals, py-locals: a Python frame's arguments and locals, or why they cannot be read.
struct FrameLocals {
  // The bound slots among the first kMaxLocalsPerFrame, in co_localsplusnames
  // order (frame.f_locals leaves unbound ones out too).
  std::vector<LocalVariable> shown;
  size_t not_shown = 0;              // slots past the first kMaxLocalsPerFrame, not read
  std::optional<std::string> error;  // the code object's names cannot be read: nothing shown
};

// Line `line` of a frame's file (without its line end), and for an expression
// over several lines the lines after it up to end_line (3.13+ shows them), at
// most kMaxTracebackSpanLines - 1.
struct SourceText {
  std::string line;
  std::vector<std::string> span_lines;
};

// What a Frame is; its JSON name is FrameKindName (core/render/format.h).
enum class FrameKind : uint8_t {
  kPython,
  kNative,  // py-bt --native: the debugger's own frames
  kGc,      // "<GC>": the thread is inside a garbage collection (innermost entry)
};

// A code object's names: read once per code object (core/walk/code_objects.h)
// and shared by every frame that runs it.
struct CodeNames {
  std::string filename;  // co_filename
  std::string name;      // co_name
  std::string qualname;  // co_qualname
};

struct Frame {
  FrameKind kind = FrameKind::kPython;
  // The first Python frame a C call started (the C stack owns what is below).
  bool is_entry = false;
  // kind "native" only: the debugger's number for the frame (below).
  uint32_t native_index = 0;
  // The names of the code the frame runs; null in a frame that runs none
  // (native, <GC>), whose names are empty. Kept alive by the frame's Thread
  // (code_names_kept), as Frame::source by the Snapshot.
  const CodeNames* code_names = nullptr;
  const std::string& filename() const { return Names().filename; }
  const std::string& name() const { return Names().name; }
  const std::string& qualname() const { return Names().qualname; }
  std::optional<int> line;  // null only where the location table has none
  // The rest of co_positions() for the instruction running (PEP 657): the
  // expression's last line and its columns (0-based UTF-8 byte offsets).
  std::optional<int> end_line;
  std::optional<int> column;
  std::optional<int> end_column;
  // Where py-bt read the source; null when off (--no-source) or the file cannot be read.
  // Owned by the Snapshot (source_texts): a recursion's thousands of frames share one, and
  // a shared pointer's count would be two atomic operations per frame.
  const SourceText* source = nullptr;
  uint64_t frame_address = 0;  // the _PyInterpreterFrame
  uint64_t code_address = 0;
  // What the frame's current call instruction calls where that is not Python
  // code, as libpython's py-bt names it ("<built-in method sleep of module
  // object>"): only on the innermost frame and on a frame whose inner frame a
  // C call started; null elsewhere and where it cannot be told (core/walk/calls.h).
  std::shared_ptr<const std::string> calling;
  // --locals and py-locals only; null otherwise.
  std::shared_ptr<const FrameLocals> locals;
  // kind "native" only (py-bt --native): the debugger's own unwind of the C
  // stack; its number is native_index.
  std::shared_ptr<const NativeFrame> native;

  const CodeNames& Names() const {
    static const CodeNames kNone;
    return code_names ? *code_names : kNone;
  }
};

// Whether a thread is blocked in a known wait (a lock, a condition, sleep,
// select/poll/epoll, a socket read), waits for the GIL, or runs; its JSON name
// is ActivityName.
enum class Activity { kUnknown, kIdle, kRunning, kWaitingForGil };

// What the thread state says of exceptions; its JSON name is ExceptionStateName.
enum class ExceptionState {
  kUnknown,  // the version does not tell, or the thread state could not be read
  kNone,
  kRaised,   // being raised (propagating), not yet caught
  kHandled,  // caught: the thread runs an `except` block (or a finally with one pending)
};

struct GreenletStack;

struct Thread {
  uint64_t tstate_address = 0;
  std::optional<uint64_t> native_id;   // OS thread id (LWP)
  std::optional<uint64_t> python_id;   // PyThreadState.thread_id (pthread_t)
  // threading's name of the thread (Thread.name), where `threading` knows it.
  std::optional<std::string> name;
  // The name the debugger gives the thread (Linux: /proc/PID/task/TID/comm), where it has one.
  std::optional<std::string> os_name;
  Activity activity = Activity::kUnknown;
  bool is_main = false;
  std::optional<bool> holds_gil;       // null where the build has no GIL or it cannot be told
  std::vector<std::string> status;     // "main", "has_gil", "gc", ...
  std::vector<Frame> frames;           // innermost first
  // The names its frames point to (Frame::code_names), each run of frames of one code object's
  // once: the code-object cache may drop them while the thread is still shown.
  std::vector<std::shared_ptr<const CodeNames>> code_names_kept;
  bool truncated = false;              // a limit or a bad pointer cut the stack short
  std::optional<std::string> error;    // why the stack stops early, if it does
  // The type of the exception being raised or handled (status "exception"),
  // and its message as str() would give it (null where it cannot be rebuilt).
  ExceptionState exception_state = ExceptionState::kUnknown;
  std::optional<std::string> exception;
  std::optional<std::string> exception_message;
  // The asyncio task whose step this thread's event loop is running (status
  // "running_task"), where asyncio is imported and one is running.
  struct RunningTask {
    uint64_t address = 0;
    std::string name;
  };
  std::optional<RunningTask> running_task;
  // py-bt --greenlets: the greenlets suspended in this thread, each with its saved frames
  // (core/greenlet). The running greenlet's frames are the thread's own.
  std::vector<GreenletStack> greenlets;
};

struct GreenletStack {
  uint64_t address = 0;  // the greenlet object
  std::string type;      // its type's tp_name ("greenlet.greenlet", "Greenlet", "Hub", ...)
  bool is_main = false;  // the thread's main greenlet, suspended while another one runs
  // Its saved frames, innermost first, with what cut them short, as a thread's.
  Thread stack;
};

struct Interpreter {
  uint64_t address = 0;
  int64_t id = 0;
  std::vector<Thread> threads;
  // The thread state that holds the GIL while it is locked, where the build tells.
  std::optional<uint64_t> gil_holder;
  // interp->gc.collecting: a garbage collection is under way in this interpreter.
  bool gc_collecting = false;
  // Where the main thread was read from, or why it is unknown (py-bt -v).
  std::string main_thread_source;
};

struct PythonInfo {
  PythonVersion version;
  bool free_threaded = false;
  TracebackCaretRules caret_rules = TracebackCaretRules::kPython312;  // how its traceback draws carets
};

struct Snapshot {
  PythonInfo python;
  std::vector<Interpreter> interpreters;
  std::vector<std::string> warnings;
  // The texts Frame::source points to (AddSourceLines); shared, so that a copy of the
  // snapshot keeps them too.
  std::vector<std::shared_ptr<const SourceText>> source_texts;
  // py-bt --greenlets: the greenlets were looked for (each thread's `greenlets` is then said,
  // empty or not).
  bool greenlets_read = false;
};

}  // namespace pyunwind
