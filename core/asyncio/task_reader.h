// Reading one task: its state, name, coroutine stack (through the frames of
// suspended coroutines), done-callbacks and, on 3.14+, its awaiters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/asyncio/asyncio.h"
#include "core/asyncio/asyncio_layout.h"
#include "core/base/limits.h"
#include "core/base/warnings.h"
#include "core/objects/remote_collections.h"

namespace pyunwind {

class TaskReader {
 public:
  TaskReader(ObjectReader& objects, CodeCache& codes, const AsyncioLayout& a,
             AsyncSnapshot& out)
      : objects_(objects), codes_(codes), c_(objects), a_(a), out_(out),
        warnings_(out.warnings, kMaxTaskWarnings) {}

  RemoteCollections& collections() { return c_; }
  ObjectReader& objects() { return objects_; }
  CodeCache& codes() { return codes_; }
  const AsyncioLayout& layout() const { return a_; }

  // Type objects found through sys.modules: a core without the binaries
  // often lacks the read-only pages that hold a static type's tp_name, so
  // types are compared by address first and by name only as a fallback.
  struct KnownTypes {
    uint64_t task = 0;        // asyncio.tasks.Task (_asyncio.Task)
    uint64_t coroutine = 0;   // types.CoroutineType
    uint64_t async_generator = 0;  // types.AsyncGeneratorType
    uint64_t method = 0;      // types.MethodType
    uint64_t int_type = 0;    // builtins.int
    uint64_t gathering = 0;   // asyncio.tasks._GatheringFuture
  } known;

  // True when `object`'s type is `type` (by address) or, when that is not
  // known, is named `name`.
  bool IsA(uint64_t object, uint64_t type, std::string_view name);
  // True for an instance of _asyncio.Task or of a class derived from it.
  bool IsTask(uint64_t object);

  // Reads the task at `address` into `task` (reusing its buffers).
  void ReadTask(uint64_t address, AsyncTask& task);
  // Notes the names of code object `code` in the snapshot (once per code object).
  void KeepNames(uint64_t code_address, const CodeInfo& code);
  // The done-callbacks of a future: callback0, then the callbacks list.
  std::vector<uint64_t> Callbacks(uint64_t future);
  // 3.14+: the tasks recorded in task_awaited_by (one object, or a set).
  std::vector<uint64_t> AwaitedBy(uint64_t task);

  void Warn(std::string message);
  // Says how many warnings past kMaxTaskWarnings were left out; call once, at the end.
  void FinishWarnings() { warnings_.Finish(); }

 private:
  std::string ReadName(uint64_t task);
  void ReadCoroutineStack(AsyncTask& task);
  bool SeenBefore(uint64_t coroutine);


  ObjectReader& objects_;
  CodeCache& codes_;
  RemoteCollections c_;
  const AsyncioLayout& a_;
  AsyncSnapshot& out_;
  BoundedWarnings warnings_;
  std::unordered_map<uint64_t, bool> is_task_cache_;
  // One task's chain at a time, reused: no allocation per task.
  std::vector<uint64_t> chain_;
  std::unordered_set<uint64_t> chain_set_;  // for chains too long to scan
  std::vector<CoroutineFrame> outer_, inner_ring_;
};

}  // namespace pyunwind
