// One read per stop: the session (runtime, layout, pages, code objects, the
// walk, native frames) a command opened is kept for the next command as long
// as the process has not run and the same process is selected, so py-up,
// py-list, py-locals, py-bt again and GDB's bt decoration reuse it. The
// front-ends say which stop a command runs in (ProcessStop: the process, the
// debugger's id of it, and a stop id that changes whenever it resumes); any
// change drops everything kept. A core file never resumes.
#pragma once

#include <memory>
#include <optional>

#include "core/base/result.h"
#include "core/session/frame_selections.h"
#include "core/session/session.h"
#include "core/target/target.h"

namespace pyunwind {

class StopCache {
 public:
  // The session for a command at `stop` reading through `target` (which must
  // live until EndCommand): the one kept from an earlier command at the same
  // stop, or a new one. That no runtime could be found is kept for the stop
  // too (a core without executable is not scanned again).
  Result<TargetSession*> SessionAt(Target& target, const ProcessStop& stop);
  // The command that read through `target` is over: the kept session reads through no
  // target until the next. One the user interrupted (Target::Interrupted) leaves nothing
  // kept: its reads failed from then on, and would be taken for unreadable pages, or for a
  // runtime that is not there.
  void EndCommand(Target& target);
  // Whether anything is kept for `stop` (tests).
  bool Holds(const ProcessStop& stop) const;

 private:
  static bool Same(const ProcessStop& a, const ProcessStop& b) {
    return a.process == b.process && a.instance == b.instance && a.stop_id == b.stop_id;
  }
  std::optional<ProcessStop> stop_;
  std::unique_ptr<TargetSession> session_;
  std::optional<Error> failure_;  // LocateRuntime's, for stop_
};

}  // namespace pyunwind
