// The debugger's native frames merged with the Python frames they run
// (py-bt --native), and the selection of one Python frame of the selected
// thread (py-up, py-down, py-frame), which also names the native eval-loop
// frame that runs it so the front-end can select that one too.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/commands/commands.h"
#include "core/commands/options.h"
#include "core/walk/model.h"
#include "core/target/target.h"

namespace pyunwind {

// A native frame of CPython's bytecode interpreter loop: _PyEval_EvalFrameDefault
// (3.11+, with GCC's ".cold"/".part" clones) and the 3.14+ tail-calling
// interpreter's opcode functions (_TAIL_CALL_<OPNAME>, _TAIL_CALL_start_frame, ...).
bool IsEvalLoopFunction(std::string_view name);

struct MergedStack {
  std::vector<Frame> frames;  // innermost first; natives (FrameKind::kNative) and Python frames
  // For each Python frame of the input (by index): the native frame (its
  // index in the debugger's backtrace) whose eval loop runs it; nullopt when
  // the native unwind shows no eval-loop frame for it.
  std::vector<std::optional<size_t>> native_of_python;
};

// Every native frame in the debugger's order; after each eval-loop frame (or, on a stack
// without one, 2.7's PyEval_EvalFrameEx) the
// Python frames that call of the loop runs, innermost first, up to and
// including the frame marked is_entry. A _TAIL_CALL_ frame and the
// _PyEval_EvalFrameDefault right outside it are one call. Python frames left
// over (the native unwind stopped early or has no symbols) come last.
MergedStack MergeNativeFrames(const std::vector<Frame>& python,
                              const std::vector<NativeFrame>& native);

// Where py-up / py-down start in the selected thread's Python frames.
struct FramePosition {
  size_t frame = 0;
  // The debugger's selected native frame is newer than the eval-loop frame of
  // `frame` (C code it called): the first step up reaches `frame` itself.
  bool in_newer_native = false;
};

// The start, given each Python frame's eval-loop frame (MergedStack, at least
// one frame), the Python frame py-up / py-down / py-frame kept at this stop and
// the debugger's selected native frame: the kept one while the debugger still
// has its eval-loop frame selected, else the first Python frame whose eval loop
// is at or older than the selected native frame, as GDB's `up` and libpython's
// py-up go; frame 0 where the eval loops are not known.
FramePosition StartingPosition(const std::vector<std::optional<size_t>>& native_of_python,
                               std::optional<size_t> kept, std::optional<size_t> selected_native);

// py-up, py-down, py-frame (command_table.cc).
CommandOutput RunPyUp(const ParsedArgs& args, CommandContext& context);
CommandOutput RunPyDown(const ParsedArgs& args, CommandContext& context);
CommandOutput RunPyFrame(const ParsedArgs& args, CommandContext& context);

// For GDB's `bt`: each eval-loop frame of the selected thread (by the
// debugger's frame number) with the Python frames it runs, as "qualname at
// file.py:line, ..."; empty when the stack cannot be read.
std::map<size_t, std::string> PythonFramesByNativeFrame(CommandContext& context);

// `line` (1-based) of the file at `path` on this host, without its line end;
// nullopt when the file or the line is not there.
std::optional<std::string> SourceLine(const std::string& path, int line);

}  // namespace pyunwind
