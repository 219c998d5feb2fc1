#include "core/walk/threads.h"

#include <fmt/format.h>

#include <unordered_set>

#include "core/base/address.h"
#include "core/walk/calls.h"
#include "core/walk/frames.h"
#include "core/walk/main_thread.h"
#include "core/walk/native_thread_ids.h"
#include "core/walk/thread_names.h"
#include "core/walk/thread_state.h"

namespace pyunwind {
namespace {

// Which thread state holds the GIL of `interp`, if the build can tell.
struct GilState {
  bool known = false;
  bool locked = false;
  uint64_t holder = 0;
};

GilState ReadGil(RemoteMemory& memory, const Layout& l, uint64_t runtime, uint64_t interp) {
  GilState gil;
  if (l.gil.held_by_current_tstate) {
    // Without the symbol (a core alone in GDB) the holder stays unknown, never guessed. Null:
    // no thread holds it (2.7 hands it over every 100 ticks, even to the thread dropping it).
    auto current = memory.target().FindSymbol("_PyThreadState_Current");
    auto holder = current ? memory.ReadPointer(*current) : std::nullopt;
    if (!holder || (*holder != 0 && !Aligned(*holder))) return gil;
    gil.known = true;
    gil.locked = *holder != 0;
    gil.holder = *holder;
    return gil;
  }
  if (l.free_threaded || l.gil.locked == kAbsent || l.gil.last_holder == kAbsent) return gil;
  uint64_t gil_address = 0;
  if (l.runtime.gil != kAbsent) {
    gil_address = runtime + l.runtime.gil;
  } else if (l.interp.ceval_gil != kAbsent) {
    auto pointer = memory.ReadPointer(interp + l.interp.ceval_gil);
    if (!pointer || !Aligned(*pointer)) return gil;
    gil_address = *pointer;
  } else {
    return gil;
  }
  auto locked = memory.ReadValue<int32_t>(gil_address + l.gil.locked);
  auto holder = memory.ReadPointer(gil_address + l.gil.last_holder);
  if (!locked || !holder) return gil;
  gil.known = true;
  gil.locked = *locked != 0;
  gil.holder = *holder;
  return gil;
}

// A thread state's ids; its frames come later (WalkThreadFrames).
Thread ReadThreadIds(RemoteMemory& memory, const Layout::ThreadState& t, uint64_t tstate) {
  Thread thread;
  thread.tstate_address = tstate;
  if (t.native_thread_id != kAbsent) {
    if (auto id = memory.ReadValue<uint64_t>(tstate + t.native_thread_id); id && *id != 0) {
      thread.native_id = *id;
    }
  }
  if (auto id = memory.ReadValue<uint64_t>(tstate + t.thread_id); id && *id != 0) {
    thread.python_id = *id;
  }
  return thread;
}

void WalkThreadFrames(ObjectReader& objects, CodeCache& codes, const WalkOptions& options,
                      Thread& thread) {
  RemoteMemory& memory = objects.memory();
  const Layout::ThreadState& t = objects.layout().tstate;
  const uint64_t tstate = thread.tstate_address;
  std::optional<uint64_t> frame;
  if (t.current_frame != kAbsent) {
    frame = memory.ReadPointer(tstate + t.current_frame);
  } else if (auto cframe = memory.ReadPointer(tstate + t.cframe); cframe) {
    frame = *cframe == 0 ? 0 : memory.ReadPointer(*cframe + t.cframe_current_frame);
  }
  if (!frame) {
    thread.truncated = true;
    thread.error = fmt::format("cannot read the current frame of thread state {:#x}", tstate);
    return;
  }
  WalkFrames(objects, codes, *frame, options.max_frames_per_thread, thread);
  AddCalls(objects, codes, 0, thread);
}

// The runtime's interpreters, in CPython's order; damage cuts the list with a warning.
std::vector<uint64_t> InterpreterStates(RemoteMemory& memory, const Layout& l, uint64_t first,
                                        std::vector<std::string>& warnings) {
  std::vector<uint64_t> interpreters;
  std::unordered_set<uint64_t> seen;
  for (uint64_t interp = first; interp != 0;) {
    if (!Aligned(interp)) {
      warnings.push_back(fmt::format("bad interpreter pointer {:#x}: list cut", interp));
      break;
    }
    if (!seen.insert(interp).second) {
      warnings.push_back("the interpreter list loops: interpreters after it are not shown");
      break;
    }
    if (interpreters.size() >= kMaxInterpreters) {
      warnings.push_back(fmt::format(
          "more than {} interpreters: the rest are not shown...truncated", kMaxInterpreters));
      break;
    }
    interpreters.push_back(interp);
    auto next = memory.ReadPointer(interp + l.interp.next);
    if (!next) {
      warnings.push_back(fmt::format("cannot read interpreter {:#x}: list cut", interp));
      break;
    }
    interp = *next;
  }
  return interpreters;
}

// The interpreter's thread states, newest first as CPython links them.
std::vector<uint64_t> ThreadStates(RemoteMemory& memory, const Layout& l, uint64_t interp,
                                   std::vector<std::string>& warnings) {
  std::vector<uint64_t> states;
  std::unordered_set<uint64_t> seen;
  auto head = memory.ReadPointer(interp + l.interp.threads_head);
  if (!head) {
    warnings.push_back(fmt::format("cannot read the thread list of interpreter {:#x}", interp));
    return states;
  }
  for (uint64_t tstate = *head; tstate != 0;) {
    if (!Aligned(tstate)) {
      warnings.push_back(fmt::format("bad thread state pointer {:#x}: thread list cut", tstate));
      break;
    }
    if (!seen.insert(tstate).second) {
      warnings.push_back("the thread list loops: threads after the loop are not shown");
      break;
    }
    if (states.size() >= kMaxThreadsPerInterpreter) {
      warnings.push_back(fmt::format("more than {} threads: the rest are not shown...truncated",
                                     kMaxThreadsPerInterpreter));
      break;
    }
    states.push_back(tstate);
    auto next = memory.ReadPointer(tstate + l.tstate.next);
    if (!next) {
      warnings.push_back(fmt::format("cannot read thread state {:#x}: thread list cut", tstate));
      break;
    }
    tstate = *next;
  }
  return states;
}

// The thread whose id threading._main_thread (2.7: _shutdown's self) holds becomes the main
// thread.
void MarkMainFromThreading(const Layout& l, const ThreadNames& names, Interpreter& interpreter) {
  const std::optional<uint64_t> ident = names.MainThreadIdent();
  const std::string source = std::string("threading.") + l.threading.main_thread +
                             (l.threading.main_thread_is_bound_method ? "'s self" : "");
  if (!ident) {
    interpreter.main_thread_source = "unknown: this build records none, and threading is not imported";
    return;
  }
  for (Thread& thread : interpreter.threads) {
    if (thread.python_id != ident) continue;
    thread.is_main = true;
    thread.status.insert(thread.status.begin(), "main");
    interpreter.main_thread_source = "from " + source;
    return;
  }
  interpreter.main_thread_source =
      fmt::format("none: no thread state has {}'s ident {:#x}", source, *ident);
}

}  // namespace

Result<Snapshot> WalkRuntime(ObjectReader& objects, CodeCache& codes, uint64_t runtime,
                             const WalkOptions& options) {
  RemoteMemory& memory = objects.memory();
  const Layout& l = objects.layout();
  Snapshot snapshot;
  snapshot.python.version = l.version;
  snapshot.python.free_threaded = l.free_threaded;
  snapshot.python.caret_rules = l.caret_rules;

  auto head = memory.ReadPointer(runtime + l.runtime.interpreters_head);
  if (!head) return UnreadableMemory(fmt::format("cannot read _PyRuntime at {:#x}", runtime));
  if (*head == 0) return MakeError("the Python runtime has no interpreter (not started, or finalized)");
  std::optional<uint64_t> main_interp;
  if (l.runtime.interpreters_main != kAbsent) {
    main_interp = memory.ReadPointer(runtime + l.runtime.interpreters_main);
  }

  const std::vector<uint64_t> interpreters =
      InterpreterStates(memory, l, *head, snapshot.warnings);
  if (options.observer != nullptr) options.observer->Interpreters(interpreters.size());
  snapshot.interpreters.reserve(interpreters.size());
  for (size_t index = 0; index < interpreters.size(); ++index) {
    const uint64_t interp = interpreters[index];
    Interpreter& interpreter = snapshot.interpreters.emplace_back();
    interpreter.address = interp;
    if (l.interp.id == kAbsent) {
      // 2.7 and 3.6 number none: the list runs newest first, so the main one is last.
      interpreter.id = static_cast<int64_t>(interpreters.size() - 1 - index);
    } else if (auto id = memory.ReadValue<int64_t>(interp + l.interp.id); id) {
      interpreter.id = *id;
    }

    const std::vector<uint64_t> states = ThreadStates(memory, l, interp, snapshot.warnings);
    const bool is_main_interpreter = main_interp ? *main_interp == interp : interpreter.id == 0;
    MainThread main = FindMainThread(memory, l, runtime, interp, is_main_interpreter, states);
    interpreter.main_thread_source = std::move(main.source);
    const GilState gil = ReadGil(memory, l, runtime, interp);
    bool collecting = false;
    // 3.7 and 3.8 keep one collector state in the runtime, for every interpreter.
    const uint64_t gc_collecting = l.interp.gc_collecting != kAbsent ? interp + l.interp.gc_collecting
                                   : l.runtime.gc_collecting != kAbsent
                                       ? runtime + l.runtime.gc_collecting
                                       : 0;
    if (gc_collecting != 0) {
      auto value = memory.ReadValue<int32_t>(gc_collecting);
      collecting = value && *value != 0;
    }

    // Oldest first reads like the debugger's own thread list.
    for (auto it = states.rbegin(); it != states.rend(); ++it) {
      Thread thread = ReadThreadIds(memory, l.tstate, *it);
      thread.is_main = main.tstate != 0 && *it == main.tstate;
      if (thread.is_main) thread.status.push_back("main");
      if (gil.known) {
        thread.holds_gil = gil.locked && gil.holder == *it;
        if (*thread.holds_gil) {
          thread.status.push_back("has_gil");
          // Without the native stacks (MarkCollectingThreads), the collector is
          // taken to be the thread that holds the GIL.
          if (collecting) thread.status.push_back("gc");
        }
      }
      interpreter.threads.push_back(std::move(thread));
    }
    if (l.tstate.native_thread_id == kAbsent) {
      std::vector<Thread*> threads;
      for (Thread& thread : interpreter.threads) threads.push_back(&thread);
      AssignNativeIdsFromPthreads(memory, threads, snapshot.warnings);
    }
    if (gil.known && gil.locked) interpreter.gil_holder = gil.holder;
    interpreter.gc_collecting = collecting;
    AddThreadStatus(objects, interpreter);
    ThreadNames names(objects, interpreter, snapshot.warnings);
    if (main.tstate == 0 && is_main_interpreter && l.runtime.main_thread == kAbsent &&
        l.interp.threads_main == kAbsent) {
      // 2.7 and 3.6 record the main thread nowhere but in threading.
      MarkMainFromThreading(l, names, interpreter);
    }
    if (options.observer != nullptr) options.observer->InterpreterStarted(interpreter);
    for (Thread& thread : interpreter.threads) {
      names.Name(thread);
      if (options.frames_of_thread && thread.native_id != options.frames_of_thread) continue;
      WalkThreadFrames(objects, codes, options, thread);
      if (options.observer != nullptr) options.observer->ThreadDone(interpreter, thread);
    }
  }
  if (auto warning = memory.BudgetWarning()) snapshot.warnings.push_back(*warning);
  return snapshot;
}

}  // namespace pyunwind
