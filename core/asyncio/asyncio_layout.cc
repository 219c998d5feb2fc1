#include "core/asyncio/asyncio_layout.h"

#include <fmt/format.h>

#include "core/asyncio/asyncio_debug.h"

namespace pyunwind {

Result<AsyncioLayout> AsyncioLayoutFor(const Layout& layout, RemoteMemory& memory) {
  const PythonVersion& v = layout.version;
  if (v.major() == 2) {
    return MakeError(ErrorKind::kUnsupportedVersion,
                     fmt::format("Python {} has no asyncio: py-tasks has no tasks to show",
                                 v.MinorString()));
  }
  const bool coroutine_frames = UsesFrameObjects(layout)
                                    ? layout.gen.frame_pointer != kAbsent
                                    : layout.gen.iframe != kAbsent && layout.gen.frame_state != kAbsent;
  if (layout.task.loop == kAbsent || !coroutine_frames) {
    return MakeError(ErrorKind::kUnsupportedVersion,
                     fmt::format("py-tasks does not support Python {}", v.MinorString()));
  }
  AsyncioLayout a;
  a.task = layout.task;
  a.tstate_running_loop = layout.running_loop.tstate_offset;
  if (a.task.name != kAbsent || UsesFrameObjects(layout)) {  // the version's file states it all
    a.source =
        fmt::format("the Python {} layout ({})", v.MinorString(), DescribeLayoutSource(layout));
    return a;
  }

  if (layout.frame.stackpointer == kAbsent || a.task.state_after_awaited_by == kAbsent ||
      a.task.fut_waiter_before_coro == kAbsent) {
    return MakeError(ErrorKind::kUnsupportedVersion, fmt::format(
        "py-tasks: the layout of Python {} gives no task, generator or frame stack offsets",
        v.MinorString()));
  }
  // Found once per stop (it may take a scan of writable memory): the memory
  // remembers it until the process runs.
  using Found = Result<AsyncioDebugOffsets>;
  const Found* remembered = memory.Recalled<Found>();
  const Found& debug = remembered ? *remembered : memory.Remember(FindAsyncioDebug(memory, layout));
  if (!debug.ok()) return debug.error().WithContext("py-tasks: ");
  a.source = "_AsyncioDebug, found by " + debug->found_by;
  a.task.name = static_cast<int32_t>(debug->task_name);
  a.task_awaited_by = static_cast<int32_t>(debug->task_awaited_by);
  a.task.state = a.task_awaited_by + a.task.state_after_awaited_by;
  a.task_awaited_by_is_set = static_cast<int32_t>(debug->task_awaited_by_is_set);
  a.task.coro = static_cast<int32_t>(debug->task_coro);
  a.task.fut_waiter = a.task.coro - a.task.fut_waiter_before_coro;
  a.task_node = static_cast<int32_t>(debug->task_node);
  a.interp_tasks_head = static_cast<int32_t>(debug->interp_tasks_head);
  a.tstate_running_loop = static_cast<int32_t>(debug->thread_running_loop);
  a.tstate_running_task = static_cast<int32_t>(debug->thread_running_task);
  a.tstate_tasks_head = static_cast<int32_t>(debug->thread_tasks_head);
  return a;
}

}  // namespace pyunwind
