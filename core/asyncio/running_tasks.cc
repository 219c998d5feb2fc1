#include "core/asyncio/running_tasks.h"

#include <unordered_map>

#include "core/base/address.h"
#include "core/objects/remote_collections.h"

namespace pyunwind {

void AssignTaskThreads(RemoteMemory& memory, const Layout& layout, const Snapshot& threads,
                       std::vector<AsyncTask>& tasks) {
  // Frames on each thread's stack; loops: the `self` of a run_forever frame.
  std::unordered_map<uint64_t, uint64_t> frame_thread;  // frame address -> native id
  std::unordered_map<uint64_t, uint64_t> loop_thread;
  const Layout::Frame& f = layout.frame;
  for (const Interpreter& interp : threads.interpreters) {
    for (const Thread& thread : interp.threads) {
      if (!thread.native_id) continue;
      for (const Frame& frame : thread.frames) {
        frame_thread[frame.frame_address] = *thread.native_id;
        if (frame.name == "run_forever" || frame.name == "_run_once") {
          auto self = memory.ReadPointer(frame.frame_address + f.localsplus);
          if (self && *self) loop_thread[*self & ~f.stackref_tag_mask] = *thread.native_id;
        }
      }
    }
  }
  for (AsyncTask& task : tasks) {
    if (!task.coroutine) continue;
    auto it = frame_thread.find(task.coroutine + layout.gen.iframe);
    if (it == frame_thread.end()) continue;
    task.running = true;
    task.thread_native_id = it->second;
    if (task.loop) loop_thread.emplace(task.loop, it->second);
  }
  for (AsyncTask& task : tasks) {
    if (task.thread_native_id) continue;
    if (auto it = loop_thread.find(task.loop); it != loop_thread.end()) {
      task.thread_native_id = it->second;
    }
  }
}

void AddRunningTasks(ObjectReader& objects, CodeCache& codes, Snapshot& threads) {
  const Layout& layout = objects.layout();
  if (layout.interp.modules == kAbsent) return;
  RemoteMemory& memory = objects.memory();
  RemoteCollections c(objects);
  bool imported = false;
  for (const Interpreter& interp : threads.interpreters) {
    auto modules = memory.ReadPointer(interp.address + layout.interp.modules);
    if (!modules || !Aligned(*modules)) continue;
    auto asyncio = c.DictGetString(*modules, "asyncio");
    if (asyncio.ok() && *asyncio != 0) {
      imported = true;
      break;
    }
  }
  if (!imported) return;
  auto tasks = CollectAsyncTasks(objects, codes, threads);
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
