// The selected Python frame of the selected thread (frame 0, the one py-up /
// py-down / py-frame selected, or --frame N), for the commands that show one
// frame: py-locals, py-list, py-print.
#pragma once

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "core/commands/command_session.h"
#include "core/commands/commands.h"
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
  auto snapshot = (*session)->Walk();
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
  } else {
    index = std::min(context.selected_python_frame.value_or(0), python.size() - 1);
  }
  return body(Selection{python[index], index, &(*session)->objects(),
                        selected->interpreter->address});
}


}  // namespace pyunwind
