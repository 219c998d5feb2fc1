#include "core/asyncio/running_tasks.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "core/asyncio/coroutine_frames.h"
#include "core/asyncio/running_loop.h"
#include "core/base/address.h"
#include "core/objects/remote_collections.h"

namespace pyunwind {

void AssignTaskThreads(TaskReader& reader, const Snapshot& threads, std::vector<AsyncTask>& tasks,
                       std::vector<AsyncSnapshot::ThreadLoop>& loops) {
  // Frames on each thread's stack; loops: the one each thread records as running.
  struct Place {
    const Thread* thread;
    size_t index;  // in thread->frames
  };
  std::unordered_map<uint64_t, Place> frame_place;  // frame address -> where
  std::unordered_map<uint64_t, uint64_t> loop_thread;
  for (const Interpreter& interp : threads.interpreters) {
    for (const Thread& thread : interp.threads) {
      if (!thread.native_id) continue;
      for (size_t i = 0; i < thread.frames.size(); ++i) {
        const Frame& frame = thread.frames[i];
        if (frame.kind == FrameKind::kPython) frame_place[frame.frame_address] = {&thread, i};
      }
      auto loop = RunningLoopOf(reader, thread.tstate_address);
      if (!loop.ok()) {
        reader.Warn(fmt::format("thread {}: its running event loop is unknown: {}",
                                *thread.native_id, loop.error().message));
      } else if (*loop != 0) {
        loop_thread[*loop] = *thread.native_id;
        loops.push_back({*thread.native_id, *loop});
      }
    }
  }
  for (AsyncTask& task : tasks) {
    if (!task.coroutine) continue;
    const std::optional<uint64_t> coroutine_frame = FrameOfCoroutine(reader.objects(), task.coroutine);
    if (!coroutine_frame) continue;
    auto it = frame_place.find(*coroutine_frame);
    if (it == frame_place.end()) continue;
    const Thread& thread = *it->second.thread;
    task.running = true;
    task.thread_native_id = *thread.native_id;
    if (task.loop) loop_thread.emplace(task.loop, *thread.native_id);
    // Every Python frame innermost of its own runs for it: the coroutines it entered and
    // what they call (a plain function blocking the loop included), as CPython's
    // get_async_stack_trace gives them.
    std::vector<CoroutineFrame> entered;  // outermost first
    for (size_t i = it->second.index; i-- > 0;) {
      const Frame& inner = thread.frames[i];
      if (inner.kind != FrameKind::kPython) continue;
      auto code = reader.codes().Get(inner.code_address);
      if (!code.ok()) break;
      reader.KeepNames(inner.code_address, **code);
      entered.push_back({inner.code_address, inner.frame_address, inner.line});
    }
    task.coroutine_stack.insert(task.coroutine_stack.begin(), entered.rbegin(), entered.rend());
    if (task.coroutines_cut) task.cut_at += entered.size();
  }
  for (AsyncTask& task : tasks) {
    if (task.thread_native_id) continue;
    if (auto it = loop_thread.find(task.loop); it != loop_thread.end()) {
      task.thread_native_id = it->second;
    }
  }
}

bool AsyncioImported(ObjectReader& objects, const Interpreter& interp) {
  const Layout& layout = objects.layout();
  if (layout.interp.modules == kAbsent) return false;
  auto modules = objects.memory().ReadPointer(interp.address + layout.interp.modules);
  if (!modules || !Aligned(*modules)) return false;
  auto asyncio = RemoteCollections(objects).DictGetString(*modules, "asyncio");
  return asyncio.ok() && *asyncio != 0;
}

void AddRunningTasks(ObjectReader& objects, CodeCache& codes, Snapshot& threads) {
  const bool imported =
      std::any_of(threads.interpreters.begin(), threads.interpreters.end(),
                  [&](const Interpreter& interp) { return AsyncioImported(objects, interp); });
  if (!imported) return;
  auto tasks = CollectAsyncTasks(objects, codes, threads, /*running_only=*/true);
  if (!tasks.ok()) return;
  for (const AsyncTask& task : tasks->tasks) {
    if (!task.running || !task.thread_native_id) continue;
    for (Interpreter& interp : threads.interpreters) {
      for (Thread& thread : interp.threads) {
        if (thread.native_id != task.thread_native_id || thread.running_task) continue;
        thread.running_task = Thread::RunningTask{task.address, task.name};
        thread.status.push_back("running_task");
      }
    }
  }
}

}  // namespace pyunwind
