#include "core/walk/thread_activity.h"

#include <algorithm>
#include <string_view>
#include <utility>

namespace pyunwind {
namespace {


// The name without glibc's internal prefixes (__GI___clock_nanosleep,
// __libc_recv, __futex_abstimed_wait_common64) and versions (select@@GLIBC_2.2.5).
std::string_view BareName(std::string_view name) {
  if (const size_t at = name.find('@'); at != std::string_view::npos) name = name.substr(0, at);
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view prefix : {"__GI_", "__libc_", "__"}) {
      if (name.substr(0, prefix.size()) == prefix && name.size() > prefix.size()) {
        name.remove_prefix(prefix.size());
        stripped = true;
      }
    }
    if (!name.empty() && name.front() == '_') {
      name.remove_prefix(1);
      stripped = true;
    }
  }
  return name;
}

// System calls and libc waits a blocked thread sits in.
bool IsWait(std::string_view function) {
  const std::string_view name = BareName(function);
  static constexpr std::string_view kWaits[] = {
      "futex", "lll_lock_wait", "pthread_cond_wait", "pthread_cond_timedwait",
      "pthread_cond_clockwait", "sem_wait", "sem_timedwait", "sem_clockwait", "do_futex_wait",
      "nanosleep", "clock_nanosleep", "thrd_sleep", "select", "pselect", "poll", "ppoll",
      "epoll_wait", "epoll_pwait", "recv", "recvfrom", "recvmsg", "accept", "accept4", "read",
      "pause", "sigwait", "sigtimedwait", "sigwaitinfo", "waitpid", "wait4", "waitid",
      "syscall"};
  for (std::string_view wait : kWaits) {
    // futex_wait, futex_abstimed_wait_common64, nanosleep64, select_nocancel, ...
    if (name.substr(0, wait.size()) == wait) return true;
  }
  return false;
}

// A function the debugger could name: LLDB calls a function of a stripped
// binary ___lldb_unnamed_symbolN, which says nothing about what it does.
bool HasSymbol(std::string_view function) {
  return !function.empty() && function.rfind("___lldb_unnamed_symbol", 0) != 0;
}

// (name, owner) of a C callable as `calling` names it (repr(), core/objects/callable_repr.h):
// "<built-in function NAME>" (a module's, or none's) gives owner "module";
// "<built-in method NAME of TYPE object at 0x...>" and "<method 'NAME' of 'TYPE' objects>"
// give TYPE. Empty for other callables.
using NameAndOwner = std::pair<std::string_view, std::string_view>;

// `text` is PREFIX + NAME + MIDDLE + OWNER + SUFFIX: (NAME, OWNER); no MIDDLE: (NAME, "module").
NameAndOwner Cut(std::string_view text, std::string_view prefix, std::string_view middle,
                 std::string_view suffix) {
  if (text.rfind(prefix, 0) != 0 || text.size() < prefix.size() + suffix.size() ||
      text.substr(text.size() - suffix.size()) != suffix) {
    return {};
  }
  const std::string_view inner = text.substr(prefix.size(), text.size() - prefix.size() - suffix.size());
  if (middle.empty()) return {inner, "module"};
  const size_t at = inner.find(middle);
  if (at == std::string_view::npos) return {};
  return {inner.substr(0, at), inner.substr(at + middle.size())};
}

NameAndOwner CalleeOf(std::string_view calling) {
  if (auto c = Cut(calling, "<built-in function ", "", ">"); !c.first.empty()) return c;
  // "<built-in method NAME of TYPE" before " object at 0x<hex digits>>".
  constexpr std::string_view kBoundTo = " object at 0x";
  const size_t at = calling.rfind(kBoundTo);
  if (at != std::string_view::npos && calling.size() > at + kBoundTo.size() + 1 &&
      calling.back() == '>' &&
      calling.find_first_not_of("0123456789abcdef", at + kBoundTo.size()) == calling.size() - 1) {
    if (auto c = Cut(calling.substr(0, at), "<built-in method ", " of ", ""); !c.first.empty()) {
      return c;
    }
  }
  return Cut(calling, "<method '", "' of '", "' objects>");
}

// C callables of the stdlib that block until something happens: a thread
// inside one of them waits.
bool IsWaitingCall(std::string_view calling) {
  static constexpr std::pair<std::string_view, std::string_view> kWaits[] = {
      {"sleep", "module"},          {"select", "module"},         {"poll", "select.poll"},
      {"poll", "select.epoll"},     {"control", "select.kqueue"}, {"acquire", "_thread.lock"},
      {"acquire", "_thread.RLock"}, {"get", "_queue.SimpleQueue"}, {"recv", "_socket.socket"},
      {"recv_into", "_socket.socket"}, {"recvfrom", "_socket.socket"},
      {"_accept", "_socket.socket"}, {"read", "module"},          {"waitpid", "module"},
      {"wait", "module"},           {"sigwait", "module"},        {"sigwaitinfo", "module"},
      {"pause", "module"}};
  const auto callee = CalleeOf(calling);
  if (callee.first.empty()) return false;
  for (const auto& wait : kWaits) {
    if (callee == wait) return true;
  }
  return false;
}

bool IsEvalLoop(std::string_view function) {
  return function.find("_PyEval_EvalFrameDefault") != std::string_view::npos;
}

// Taking the GIL (and the free-threaded build's attach): a thread waiting here
// waits for the GIL.
bool IsGilAcquire(std::string_view function) {
  static constexpr std::string_view kAcquire[] = {
      "take_gil", "PyEval_RestoreThread", "PyEval_AcquireThread", "_PyEval_AcquireLock",
      "_PyThreadState_Attach", "tstate_wait_attach", "PyGILState_Ensure"};
  for (std::string_view acquire : kAcquire) {
    if (function == acquire) return true;
  }
  return false;
}

// Giving the GIL up: drop_gil waits for gil->mutex, and then (FORCE_SWITCHING)
// until the thread that asked for the GIL has taken it: the running thread's
// hand-over.
bool IsGilRelease(std::string_view function) {
  return function == "drop_gil" || function == "_PyEval_ReleaseLock";
}

// The stdlib's Python-level waits, innermost frame alone (no native stack).
bool IsPythonWait(const Frame& frame) {
  static constexpr std::string_view kWaits[] = {
      "Thread._wait_for_tstate_lock", "Condition.wait", "Event.wait",
      "EpollSelector.select", "PollSelector.select", "SelectSelector.select",
      "DevpollSelector.select", "KqueueSelector.select", "_PollLikeSelector.select"};
  const std::string_view qualname = frame.qualname();
  for (std::string_view wait : kWaits) {
    if (qualname == wait) return true;
  }
  return false;
}

// A thread whose innermost native frame has no symbol (a stripped libc's futex wait): waiting
// for the GIL where the first GIL function named below it takes the GIL (3.14, which records
// no request in its thread states: PyEval_RestoreThread is exported, take_gil is not); else
// unknown.
Activity FromUnnamedNative(const std::vector<NativeFrame>& native, size_t n) {
  for (size_t i = 1; i < n; ++i) {
    const std::string& function = native[i].function;
    if (!HasSymbol(function)) continue;
    if (IsGilAcquire(function)) return Activity::kWaitingForGil;
    if (IsGilRelease(function) || IsEvalLoop(function)) break;
  }
  return Activity::kUnknown;
}

Activity FromNative(const std::vector<NativeFrame>& native) {
  const size_t n = std::min(native.size(), kActivityNativeFrames);
  bool waits = false;
  for (size_t i = 0; i < n; ++i) {
    const std::string& function = native[i].function;
    if (!HasSymbol(function)) {
      if (i == 0) return FromUnnamedNative(native, n);  // no symbol for where it is
      continue;
    }
    if (i == 0 || (!waits && i < 4)) waits = waits || IsWait(function);
    if (IsGilRelease(function)) return Activity::kRunning;
    if (IsGilAcquire(function)) return Activity::kWaitingForGil;
    if (IsEvalLoop(function)) break;
  }
  return waits ? Activity::kIdle : Activity::kRunning;
}

bool IsCollection(std::string_view function) {
  return function.find("gc_collect") != std::string_view::npos || function == "_PyGC_Collect" ||
         function == "PyGC_Collect" || function == "_PyGC_CollectNoFail" ||
         function == "_Py_RunGC" || function == "collect_with_callback" ||
         function == "gc_collect_region";
}

}  // namespace

void ClassifyActivity(Thread& thread, const std::vector<NativeFrame>& native) {
  // 3.15 records the wait in the thread state.
  if (std::find(thread.status.begin(), thread.status.end(), "gil_requested") != thread.status.end()) {
    thread.activity = Activity::kWaitingForGil;
    return;
  }
  if (!native.empty()) {
    thread.activity = FromNative(native);
    // One that has just taken it holds it.
    if (thread.activity == Activity::kWaitingForGil && thread.holds_gil == true) {
      thread.activity = Activity::kRunning;
    }
    if (thread.activity != Activity::kUnknown) return;
  }
  // Without a native stack that names where it is: the innermost Python frame,
  // a stdlib wait or inside a C call that waits; else the GIL's holder runs.
  const Frame* innermost = nullptr;
  for (const Frame& frame : thread.frames) {
    if (frame.kind == FrameKind::kPython) {
      innermost = &frame;
      break;
    }
  }
  if (innermost && (IsPythonWait(*innermost) ||
                    (innermost->calling && IsWaitingCall(*innermost->calling)))) {
    thread.activity = Activity::kIdle;
  } else if (thread.holds_gil == true) {
    thread.activity = Activity::kRunning;
  } else {
    thread.activity = Activity::kUnknown;
  }
}

bool InsideCollection(const std::vector<NativeFrame>& native) {
  return std::any_of(native.begin(), native.end(),
                     [](const NativeFrame& f) { return IsCollection(f.function); });
}

void MarkCollectingThreads(Interpreter& interp,
                           const std::vector<std::vector<NativeFrame>>& native_by_thread) {
  const size_t n = std::min(interp.threads.size(), native_by_thread.size());
  // Threads whose stacks have no symbols: the ones inside gc.collect() (a
  // Python frame calling it), if any; else the walk's guess (the GIL holder).
  std::vector<size_t> unnamed, calling_collect;
  for (size_t i = 0; interp.gc_collecting && i < n; ++i) {
    const std::vector<NativeFrame>& native = native_by_thread[i];
    std::vector<std::string>& status = interp.threads[i].status;
    // Only a stack with symbols can show that it is not inside a collection.
    const bool symbols = std::any_of(native.begin(), native.end(), [](const NativeFrame& f) {
      return IsEvalLoop(f.function) || IsCollection(f.function);
    });
    if (!symbols) {
      unnamed.push_back(i);
      const std::vector<Frame>& frames = interp.threads[i].frames;
      if (std::any_of(frames.begin(), frames.end(), [](const Frame& f) {
            return f.calling && CalleeOf(*f.calling) == NameAndOwner("collect", "module");
          })) {
        calling_collect.push_back(i);
      }
      continue;
    }
    status.erase(std::remove(status.begin(), status.end(), "gc"), status.end());
    if (InsideCollection(native)) status.push_back("gc");
  }
  if (!calling_collect.empty()) {
    for (size_t i : unnamed) {
      std::vector<std::string>& status = interp.threads[i].status;
      status.erase(std::remove(status.begin(), status.end(), "gc"), status.end());
      if (std::find(calling_collect.begin(), calling_collect.end(), i) != calling_collect.end()) {
        status.push_back("gc");
      }
    }
  }
  for (Thread& thread : interp.threads) {
    if (std::find(thread.status.begin(), thread.status.end(), "gc") == thread.status.end()) continue;
    Frame gc;
    gc.kind = FrameKind::kGc;
    thread.frames.insert(thread.frames.begin(), std::move(gc));
  }
}

}  // namespace pyunwind
