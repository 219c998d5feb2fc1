// The selected Python frame of the selected thread, for the commands that show one
// frame: py-locals, py-list, py-print. The one py-up / py-down / py-frame take as selected
// (native.h, StartingPosition): the one they selected while the debugger still has its
// eval-loop frame selected, else the newest whose eval loop is at or older than the
// debugger's selected native frame (stopped in C code: frame 0); or --frame N.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "core/commands/command_session.h"
#include "core/commands/commands.h"
#include "core/commands/native.h"
#include "core/session/selected_thread.h"

namespace pyunwind {

// Runs `body` on the selected Python frame of the selected thread, with the
// reader of the target still alive (to read its locals).
struct Selection {
  const Frame* frame = nullptr;
  size_t index = 0;
  ObjectReader* objects = nullptr;
  uint64_t interp = 0;  // the interpreter state the thread belongs to
};

template <typename Body>
CommandOutput WithSelectedFrame(const char* command, CommandContext& context,
                                std::optional<size_t> frame_option, Body body) {
  auto fail = [&](const std::string& message) {
    return Failure(fmt::format("{}: {}", command, message));
  };
  if (!context.selected_thread_id) return fail("no thread is selected");
  auto session = CommandSession::Open(context);
  if (!session.ok()) return Failure(session.error().message);
  auto snapshot = (*session)->Walk(nullptr, context.selected_thread_id);
  if (!snapshot.ok()) return Failure(snapshot.error().message);
  auto selected = FindSelectedThread(*snapshot, context.selected_thread_id);
  if (!selected.ok()) return fail(selected.error().message);
  std::vector<const Frame*> python;
  for (const Frame& frame : selected->thread->frames) {
    if (frame.kind == FrameKind::kPython) python.push_back(&frame);
  }
  if (python.empty()) {
    return fail(fmt::format("the selected thread (OS thread id {}) has no Python frames",
                            *context.selected_thread_id));
  }
  size_t index = 0;
  if (frame_option) {
    if (*frame_option >= python.size()) {
      return fail(fmt::format("no Python frame {}: the selected thread has frames 0 to {}",
                              *frame_option, python.size() - 1));
    }
    index = *frame_option;
  } else if (!context.selected_native_frame) {
    index = std::min(context.selected_python_frame.value_or(0), python.size() - 1);
  } else {
    // Where py-up / py-down start, in the same frames they count, then among the Python ones.
    const std::vector<Frame>& frames = selected->thread->frames;
    const MergedStack merged =
        MergeNativeFrames(frames, (*session)->NativeFrames(*context.selected_thread_id));
    const size_t at = StartingPosition(merged.native_of_python, context.selected_python_frame,
                                       context.selected_native_frame)
                          .frame;
    for (size_t i = 0; i < at && i < frames.size(); ++i) {
      if (frames[i].kind == FrameKind::kPython) ++index;
    }
    index = std::min(index, python.size() - 1);
  }
  return body(Selection{python[index], index, &(*session)->objects(),
                        selected->interpreter->address});
}


}  // namespace pyunwind
