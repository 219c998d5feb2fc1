// Each thread's `threading` name (Thread.name), read from the target's own
// threading module: threading._active maps get_ident() to the Thread object
// (dummy threads included), threading._main_thread names the main thread
// when it has left _active. Bounded like every remote read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/objects/objects.h"
#include "core/walk/model.h"

namespace pyunwind {

// The threads of an interpreter that threading knows, read once; each name is read when
// its thread is walked (py-bt --all shows the first thread before the others are read).
class ThreadNames {
 public:
  // Nothing when threading is not imported; a damaged module or dict adds one warning.
  ThreadNames(ObjectReader& objects, const Interpreter& interp, std::vector<std::string>& warnings);
  // Sets Thread::name if threading knows the thread's python_id.
  void Name(Thread& thread);
  // The ident of threading._main_thread, where threading has one.
  std::optional<uint64_t> MainThreadIdent() const { return main_ident_; }

 private:
  ObjectReader& objects_;
  std::unordered_map<uint64_t, uint64_t> thread_objects_;  // ident -> its Thread object
  std::optional<uint64_t> main_ident_;
};

}  // namespace pyunwind
