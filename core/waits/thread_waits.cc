#include "core/waits/thread_waits.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/base/limits.h"
#include "core/objects/callable_repr.h"
#include "core/objects/remote_collections.h"
#include "core/objects/values.h"
#include "core/walk/calls.h"
#include "core/walk/locals.h"
#include "core/waits/future_waits.h"
#include "core/waits/with_blocks.h"

namespace pyunwind {
namespace {

// 2.7's queue module is Queue.py.
bool IsStdlibWaitFile(std::string_view filename) {
  return filename.ends_with("/threading.py") || filename.ends_with("/queue.py") ||
         filename.ends_with("/Queue.py");
}

// The stdlib functions that wait, by qualname, and the kind of their wait. 2.7's threading
// classes are private ones behind factory functions (threading.Event() is an _Event), and its
// RLock is the pure-Python _RLock (3.x's fallback too), which waits on a plain lock inside.
const char* StdlibWaitKind(std::string_view qualname) {
  static constexpr std::pair<std::string_view, const char*> kWaits[] = {
      {"Thread.join", "join"},        {"Event.wait", "event"},
      {"Condition.wait", "condition"}, {"Condition.wait_for", "condition"},
      {"Semaphore.acquire", "semaphore"}, {"Barrier.wait", "barrier"},
      {"Queue.get", "queue_get"},     {"Queue.put", "queue_put"},
      {"_Event.wait", "event"},       {"_Condition.wait", "condition"},
      {"_Semaphore.acquire", "semaphore"}, {"_RLock.acquire", "rlock"}};
  for (const auto& [name, kind] : kWaits) {
    if (qualname == name) return kind;
  }
  return nullptr;
}

// The C calls that wait for time or I/O: their kind, or null. `calling` is repr() of the callee.
const char* TimedOrIoKind(std::string_view calling) {
  if (calling == "<built-in function sleep>") return "sleep";
  static constexpr std::string_view kIo[] = {
      "<built-in function select>", "<built-in function read>", "<built-in method poll of ",
      "<built-in method recv of ",  "<built-in method recv_into of ",
      "<built-in method recvfrom of ", "<built-in method _accept of ",
      "<method 'poll' of ", "<method 'recv' of ", "<method 'recv_into' of ",
      "<method 'recvfrom' of ", "<method '_accept' of ", "<method 'control' of "};
  for (std::string_view io : kIo) {
    if (calling.substr(0, io.size()) == io) return "io";
  }
  return nullptr;
}

class ThreadWaitReader {
 public:
  ThreadWaitReader(ObjectReader& objects, CodeCache& codes, const Interpreter& interp)
      : objects_(objects), codes_(codes), interp_(interp), collections_(objects),
        values_(objects), qualnames_(objects), futures_(objects, interp, qualnames_) {}

  std::optional<WaitTarget> WaitOf(const Thread& thread) {
    if (thread.activity == Activity::kWaitingForGil) return GilWait();
    // Unknown (a native stack without symbols, a core opened alone): the frames decide.
    if (thread.activity == Activity::kRunning) return std::nullopt;
    if (auto future = futures_.WaitOf(thread)) return future;
    if (auto import = ImportWait(thread)) return import;
    if (auto stdlib = StdlibWait(thread)) return stdlib;
    const Frame* innermost = Innermost(thread);
    if (innermost == nullptr) return std::nullopt;
    if (auto lock = LockWait(*innermost)) return lock;
    if (innermost->calling) {
      if (const char* kind = TimedOrIoKind(*innermost->calling)) {
        return WaitTarget{kind, 0, "", std::nullopt, *innermost->calling};
      }
    }
    if (const std::string qualname = qualnames_.Of(*innermost);
        std::string_view(qualname).ends_with("Selector.select")) {
      return WaitTarget{"io", 0, "", std::nullopt, qualname};
    }
    return std::nullopt;
  }

  // The plain Locks of `waits` that record no holder get the threads whose `with` blocks hold
  // them: a `with` leaves the lock's exit on the frame's value stack until the block ends
  // (with_blocks.h; a Lock taken by acquire() leaves nothing).
  void AddWithHolders(std::vector<Wait>& waits) {
    if (objects_.layout().calls.opcodes == nullptr) return;  // no value stack is read
    std::set<uint64_t> locks;
    for (const Wait& wait : waits) {
      if (wait.waits_for && wait.waits_for->kind == "lock" && !wait.waits_for->held_by) {
        locks.insert(wait.waits_for->address);
      }
    }
    if (locks.empty()) return;
    std::map<uint64_t, std::vector<WaitParty>> holders;
    size_t frames = 0;
    for (const Thread& thread : interp_.threads) {
      size_t in_thread = 0;
      for (const Frame& frame : thread.frames) {
        if (frame.kind != FrameKind::kPython) continue;
        if (++in_thread > kMaxHolderFramesPerThread || ++frames > kMaxHolderFramesForThreads) break;
        auto stack = ValueStackOf(objects_, codes_, frame.frame_address);
        if (!stack.ok()) continue;
        for (uint64_t lock : OpenWithBlocks(*stack, lock_exits_)) {
          if (locks.count(lock)) holders[lock].push_back(ThreadParty(thread));
        }
      }
    }
    for (Wait& wait : waits) {
      if (!wait.waits_for || wait.waits_for->kind != "lock" || wait.waits_for->held_by) continue;
      auto found = holders.find(wait.waits_for->address);
      if (found != holders.end()) wait.waits_for->held_by = found->second;
    }
  }

 private:
  static const Frame* Innermost(const Thread& thread) {
    for (const Frame& frame : thread.frames) {
      if (frame.kind == FrameKind::kPython) return &frame;
    }
    return nullptr;
  }

  const Thread* ThreadWithIdent(uint64_t ident) const {
    for (const Thread& thread : interp_.threads) {
      if (thread.python_id == ident) return &thread;
    }
    return nullptr;
  }

  WaitParty PartyOfIdent(uint64_t ident) const {
    if (const Thread* thread = ThreadWithIdent(ident)) return ThreadParty(*thread);
    return WaitParty{WaiterKind::kThread, ident, ""};
  }

  std::optional<WaitTarget> GilWait() const {
    WaitTarget target{"gil", 0, "", std::nullopt, "take_gil"};
    if (!interp_.gil_holder) return target;
    target.held_by.emplace();
    for (const Thread& thread : interp_.threads) {
      if (thread.tstate_address == *interp_.gil_holder) target.held_by->push_back(ThreadParty(thread));
    }
    return target;
  }

  // The object the frame's `self` argument holds; 0 where it has none or it cannot be read.
  uint64_t SelfOf(const Frame& frame) {
    return pyunwind::SelfOf(objects_, values_, frame.frame_address, frame.code_address);
  }

  // An import waiting for the module lock another thread owns while it runs the module's body:
  // the innermost frames are importlib's _ModuleLock.acquire (waiting on its wakeup lock).
  std::optional<WaitTarget> ImportWait(const Thread& thread) {
    size_t seen = 0;
    for (const Frame& frame : thread.frames) {
      if (frame.kind != FrameKind::kPython) continue;
      if (++seen > kMaxStdlibWaitFrames) break;
      if (qualnames_.Of(frame) != "_ModuleLock.acquire" ||
          frame.filename() != "<frozen importlib._bootstrap>") {
        continue;
      }
      WaitTarget target{"import_lock", SelfOf(frame), "", std::nullopt, "import"};
      if (target.address == 0) return target;
      if (auto type = objects_.TypeName(target.address); type.ok()) target.type = *type;
      if (auto name = collections_.InstanceAttribute(target.address, "name"); name.ok()) {
        if (auto text = objects_.ReadString(*name); text.ok()) target.detail += " " + *text;
      }
      // The owner's ident; None once released (then any waiter may take it next).
      if (auto owner = collections_.InstanceAttribute(target.address, "owner"); owner.ok()) {
        if (auto ident = objects_.ReadInt(*owner); ident.ok() && *ident > 0) {
          target.held_by = std::vector<WaitParty>{PartyOfIdent(static_cast<uint64_t>(*ident))};
        } else if (auto type = objects_.TypeName(*owner); type.ok() && *type == "NoneType") {
          target.held_by.emplace();
        }
      }
      return target;
    }
    return std::nullopt;
  }

  // The outermost wait of the stdlib among the innermost threading.py / queue.py frames.
  std::optional<WaitTarget> StdlibWait(const Thread& thread) {
    const Frame* found = nullptr;
    const char* kind = nullptr;
    std::string found_qualname;
    size_t seen = 0;
    for (const Frame& frame : thread.frames) {
      if (frame.kind != FrameKind::kPython) continue;
      if (++seen > kMaxStdlibWaitFrames || !IsStdlibWaitFile(frame.filename())) break;
      std::string qualname = qualnames_.Of(frame);
      if (const char* k = StdlibWaitKind(qualname)) {
        found = &frame;
        kind = k;
        found_qualname = std::move(qualname);
      }
    }
    if (found == nullptr) return std::nullopt;
    WaitTarget target{kind, 0, "", std::nullopt, found_qualname};
    target.address = SelfOf(*found);
    if (target.address == 0) return target;
    if (auto type = objects_.TypeName(target.address); type.ok()) target.type = *type;
    if (target.type == "instance" && objects_.layout().classic.in_class != kAbsent) {
      // 2.7's classic instance (Queue.Queue): named by its class, as the qualname found it.
      target.type = found_qualname.substr(0, found_qualname.rfind('.'));
    }
    if (target.kind == "rlock") {
      // The owner's ident; None while free.
      auto owner = collections_.InstanceAttribute(
          target.address, objects_.layout().threading.rlock_owner_attribute);
      if (owner.ok() && *owner != 0) {
        if (auto ident = objects_.ReadInt(*owner); ident.ok() && *ident != 0) {
          target.held_by = std::vector<WaitParty>{PartyOfIdent(static_cast<uint64_t>(*ident))};
        } else if (auto type = objects_.TypeName(*owner); type.ok() && *type == "NoneType") {
          target.held_by.emplace();
        }
      }
    }
    if (target.kind == "join") {
      // The joined Thread's _ident: the thread that ends the wait by ending.
      auto ident = collections_.InstanceAttribute(target.address,
                                                  objects_.layout().threading.ident_attribute);
      if (ident.ok() && *ident != 0) {
        auto value = objects_.ReadInt(*ident);
        if (value.ok()) target.held_by = std::vector<WaitParty>{PartyOfIdent(static_cast<uint64_t>(*value))};
      }
    }
    return target;
  }

  // The lock a frame's C call acquires: the call's self, a bound C method's m_self, or the
  // context manager a `with` enters. 0 for a call that acquires nothing (release(), locked()).
  uint64_t ReceiverOf(const Frame& frame) {
    auto operands = CallOperandsOf(objects_, codes_, frame.frame_address);
    if (!operands.ok()) return 0;
    const bool acquires =
        operands->entering_with ||
        (frame.calling && (frame.calling->find("acquire") != std::string::npos ||
                           frame.calling->find("__enter__") != std::string::npos));
    if (!acquires) return 0;
    uint64_t object = operands->self;
    if (object == 0) object = operands->callee;
    auto type = objects_.TypeName(object);
    if (!type.ok()) return 0;
    const Layout& l = objects_.layout();
    if (*type == "builtin_function_or_method" && (operands->self == 0 || operands->entering_with)) {
      auto self = objects_.memory().ReadPointer(object + static_cast<uint64_t>(l.cfunction.m_self));
      return self ? *self : 0;
    }
    if (*type == "method" && operands->entering_with) {
      auto bound = collections_.BoundMethod(object);
      return bound.ok() ? bound->second : 0;
    }
    return operands->self;
  }

  std::optional<WaitTarget> LockWait(const Frame& frame) {
    const uint64_t lock = ReceiverOf(frame);
    if (lock == 0) return std::nullopt;
    auto type = objects_.TypeName(lock);
    if (!type.ok()) return std::nullopt;
    const std::string detail = frame.calling ? *frame.calling : qualnames_.Of(frame) + ": with";
    if (*type == objects_.layout().threading.lock_type) {
      return WaitTarget{"lock", lock, *type, std::nullopt, detail};
    }
    if (*type != "_thread.RLock") return std::nullopt;
    WaitTarget target{"rlock", lock, *type, std::nullopt, detail};
    const int32_t owner_offset = objects_.layout().rlock.owner;
    if (owner_offset == kAbsent) return target;
    auto owner = objects_.memory().ReadPointer(lock + static_cast<uint64_t>(owner_offset));
    if (!owner) return target;
    target.held_by.emplace();
    if (*owner != 0) target.held_by->push_back(PartyOfIdent(*owner));
    return target;
  }

  // Whether `value` is _thread.lock's own `method` (as LOAD_SPECIAL pushes it, unbound).
  bool IsLockMethod(uint64_t value, std::string_view method) {
    if (value == 0) return false;
    auto type = objects_.TypeName(value);
    if (!type.ok() || *type != "method_descriptor") return false;
    auto repr = CalleeRepr(objects_, value);
    return repr.ok() && *repr &&
           **repr == "<method '" + std::string(method) + "' of '" +
                          objects_.layout().threading.lock_type + "' objects>";
  }

  // The lock whose bound __exit__ `value` is (<built-in method __exit__ of _thread.lock
  // object at 0x...>), else 0.
  uint64_t ExitBoundTo(uint64_t value) {
    if (value == 0) return 0;
    auto type = objects_.TypeName(value);
    if (!type.ok() || *type != "builtin_function_or_method") return 0;
    auto repr = CalleeRepr(objects_, value);
    const std::string exit = std::string("<built-in method __exit__ of ") +
                             objects_.layout().threading.lock_type + " object";
    if (!repr.ok() || !*repr || (*repr)->rfind(exit, 0) != 0) return 0;
    auto self = objects_.memory().ReadPointer(value + static_cast<uint64_t>(objects_.layout().cfunction.m_self));
    return self ? *self : 0;
  }

  ObjectReader& objects_;
  CodeCache& codes_;
  const Interpreter& interp_;
  RemoteCollections collections_;
  ValueFormatter values_;
  MethodQualnames qualnames_;  // before futures_, which uses it
  FutureWaitReader futures_;
  const ExitRecognizers lock_exits_{
      [this](uint64_t value) { return ExitBoundTo(value); },
      [this](uint64_t value) { return IsLockMethod(value, "__exit__"); },
      [this](uint64_t value) { return IsLockMethod(value, "__enter__"); }};
};

}  // namespace

WaitParty ThreadParty(const Thread& thread) {
  return WaitParty{WaiterKind::kThread, thread.python_id.value_or(0),
                   thread.name ? *thread.name : thread.os_name.value_or("")};
}

std::vector<Wait> ThreadWaits(ObjectReader& objects, CodeCache& codes, const Interpreter& interp) {
  ThreadWaitReader reader(objects, codes, interp);
  std::vector<Wait> waits;
  for (const Thread& thread : interp.threads) {
    waits.push_back(Wait{ThreadParty(thread), reader.WaitOf(thread)});
  }
  reader.AddWithHolders(waits);
  return waits;
}

}  // namespace pyunwind
