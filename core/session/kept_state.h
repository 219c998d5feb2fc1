// What the commands keep between them (the Python frame py-up / py-down / py-frame selected
// in each thread, the stop cache): one for the whole process that loaded pyunwind, shared by
// every debugger session in it (LLDB: each SBDebugger, and lldb-dap or an IDE may run several;
// GDB: one). Commands may come from several threads at once (each session's; an LLDB stop
// hook's command beside one typed in the console), so they take it in turn: two at once
// freed the kept session under each other, a crash of the debugger
// (tests/e2e/lldb_versions_test.cc, TwoDebuggersAtOnce).
#pragma once

#include <mutex>

#include "core/base/result.h"
#include "core/session/frame_selections.h"
#include "core/session/stop_cache.h"

namespace pyunwind {

// The kept state, held by one command; released when this is destroyed, on the thread
// that took it.
class KeptState {
 public:
  // Waits while another thread's command holds it. Fails, in one sentence, on a thread
  // whose own command holds it still: a command run from inside another (a hook the first
  // set off) would take the kept session from under it.
  static Result<KeptState> Take();

  KeptState(KeptState&& other) noexcept = default;
  KeptState& operator=(KeptState&&) = delete;
  ~KeptState();

  FrameSelections& selections() const;
  StopCache& stops() const;

 private:
  explicit KeptState(std::unique_lock<std::mutex> lock);
  std::unique_lock<std::mutex> lock_;
};

}  // namespace pyunwind
