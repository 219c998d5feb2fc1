#include "core/greenlet/greenlets.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/address.h"
#include "core/base/limits.h"
#include "core/greenlet/greenlet_layout.h"
#include "core/heap/tracked_objects.h"
#include "core/objects/remote_collections.h"
#include "core/target/target.h"
#include "core/walk/frames.h"

namespace pyunwind {
namespace {

namespace gl = greenlet_layout;

std::string TextOr(Result<std::string> text, std::string fallback) {
  return text.ok() ? std::move(*text) : std::move(fallback);
}

// The `greenlet` package's dict in the first interpreter that imported it; 0 when none did.
uint64_t GreenletModuleDict(ObjectReader& objects, const Snapshot& snapshot) {
  const Layout& l = objects.layout();
  if (l.interp.modules == kAbsent || l.module.md_dict == kAbsent) return 0;
  RemoteCollections collections(objects);
  for (const Interpreter& interp : snapshot.interpreters) {
    auto modules = objects.memory().ReadPointer(interp.address + l.interp.modules);
    if (!modules || !Aligned(*modules)) continue;
    auto module = collections.DictGetString(*modules, "greenlet");
    if (!module.ok() || !Aligned(*module)) continue;
    auto dict = objects.memory().ReadPointer(*module + l.module.md_dict);
    if (dict && Aligned(*dict)) return *dict;
  }
  return 0;
}

// The fields of a greenlet's C++ object the stacks need (greenlet_layout.h).
struct SavedState {
  uint64_t stack_start = 0;
  uint64_t stack_stop = 0;
  uint64_t stack_copy = 0;
  uint64_t stack_saved = 0;
  uint64_t top_frame = 0;
  uint64_t cframe = 0;
  uint64_t current_frame = 0;
  uint64_t self = 0;
};

std::optional<SavedState> ReadSavedState(RemoteMemory& memory, const gl::GreenletLayout& layout,
                                         uint64_t pimpl) {
  uint8_t raw[gl::kMaxReadSize];
  const size_t size = static_cast<size_t>(layout.read_size);
  if (!Aligned(pimpl) || size > sizeof raw || !memory.Read(pimpl, raw, size)) return std::nullopt;
  auto at = [&raw](int32_t offset) {
    uint64_t value = 0;
    if (offset >= 0) std::memcpy(&value, raw + offset, sizeof value);
    return value;
  };
  SavedState s;
  s.stack_start = at(layout.stack_start);
  s.stack_stop = at(layout.stack_stop);
  s.stack_copy = at(layout.stack_copy);
  s.stack_saved = at(layout.stack_saved);
  s.top_frame = at(layout.top_frame);
  s.cframe = at(layout.cframe);
  s.current_frame = at(layout.current_frame);
  s.self = at(layout.self);
  return s;
}

// The layout of greenlet `version` on this Python, or null when none was checked there.
const gl::GreenletLayout* LayoutOf(const std::string& version, const Layout& l) {
  if (l.version.major() != 3) return nullptr;
  for (const gl::GreenletLayout& layout : gl::kKnownLayouts) {
    if (layout.minor == l.version.minor() && version.starts_with(layout.version_prefix)) {
      return &layout;
    }
  }
  return nullptr;
}

// How a suspended greenlet's thread is told, the first the Python and greenlet allow:
enum class ThreadBy {
  kCFrames,        // its C frames' chain ends at the thread state's root _PyCFrame (3.11)
  kStackBounds,    // its stack lies within the C stack bounds the thread state keeps (3.14+)
  kStackRegions,   // its stack lies in the memory region holding the thread's SP (any version)
};

ThreadBy ThreadByOf(const gl::GreenletLayout& layout, const Layout& l) {
  if (layout.cframe >= 0 && l.tstate.root_cframe != kAbsent) return ThreadBy::kCFrames;
  if (l.tstate.c_stack_top != kAbsent && l.tstate.c_stack_hard_limit != kAbsent) {
    return ThreadBy::kStackBounds;
  }
  return ThreadBy::kStackRegions;
}

// "greenlet 2.0.x on 3.11, 3.1.x on 3.13, 3.3.x on 3.14 and 3.15": the layouts LayoutOf knows.
std::string KnownLayouts() {
  std::string out;
  for (size_t i = 0; i < std::size(gl::kKnownLayouts); ++i) {
    const gl::GreenletLayout& layout = gl::kKnownLayouts[i];
    const bool same_release = i > 0 && std::string_view(gl::kKnownLayouts[i - 1].version_prefix) ==
                                           layout.version_prefix;
    if (same_release) {
      out += fmt::format(" and 3.{}", layout.minor);
    } else {
      out += fmt::format("{}{}x on 3.{}", i ? ", " : "greenlet ", layout.version_prefix,
                         layout.minor);
    }
  }
  return out;
}

// 8 bytes of a suspended greenlet's C stack at `address`, as the greenlet left them: greenlet
// copied the first stack_saved bytes from stack_start on to stack_copy before another
// greenlet's stack overwrote them; the rest are still in place.
std::optional<uint64_t> ReadStackWord(RemoteMemory& memory, const SavedState& g, uint64_t address) {
  uint8_t bytes[8];
  for (size_t i = 0; i < sizeof bytes;) {
    const uint64_t at = address + i;
    const bool saved = at >= g.stack_start && at - g.stack_start < g.stack_saved;
    // The run of bytes on the same side of stack_start + stack_saved.
    size_t run = sizeof bytes - i;
    if (saved) {
      run = std::min<uint64_t>(run, g.stack_saved - (at - g.stack_start));
    } else if (at < g.stack_start) {
      run = std::min<uint64_t>(run, g.stack_start - at);
    }
    const uint64_t from = saved ? g.stack_copy + (at - g.stack_start) : at;
    if (!memory.Read(from, bytes + i, run)) return std::nullopt;
    i += run;
  }
  uint64_t value;
  std::memcpy(&value, bytes, sizeof value);
  return value;
}

class GreenletReader {
 public:
  GreenletReader(ObjectReader& objects, CodeCache& codes, Target& target, Snapshot& snapshot,
                 const gl::GreenletLayout& layout, uint64_t type)
      : objects_(objects), codes_(codes), snapshot_(snapshot), layout_(layout),
        greenlet_type_(type), thread_by_(ThreadByOf(layout, objects.layout())) {
    const Layout& l = objects.layout();
    if (thread_by_ == ThreadBy::kStackRegions) {
      FindStackRegions(target);
      return;
    }
    for (Interpreter& interp : snapshot.interpreters) {
      for (Thread& thread : interp.threads) {
        if (thread.tstate_address == 0) continue;
        if (thread_by_ == ThreadBy::kCFrames) {
          roots_.emplace(thread.tstate_address + uint64_t(l.tstate.root_cframe), &thread);
          continue;
        }
        RemoteMemory& memory = objects.memory();
        const auto top = memory.ReadPointer(thread.tstate_address + uint64_t(l.tstate.c_stack_top));
        const auto hard =
            memory.ReadPointer(thread.tstate_address + uint64_t(l.tstate.c_stack_hard_limit));
        // Zero until the thread first checks its stack depth; a thread's stack is below top.
        if (top && hard && *hard < *top && *top - *hard <= kMaxThreadStackBytes) {
          stacks_.push_back({*hard, *top, &thread});
        }
      }
    }
  }

  // Whether `object` is a greenlet (its type greenlet.greenlet or a subclass of it).
  bool IsGreenlet(uint64_t object) {
    auto type = objects_.TypeOf(object);
    if (!type.ok()) return false;
    if (auto found = kinds_.find(*type); found != kinds_.end()) return found->second;
    bool is_greenlet = false;
    uint64_t base = *type;
    for (size_t i = 0; i < kMaxBaseClasses && Aligned(base); ++i) {
      if (base == greenlet_type_) {
        is_greenlet = true;
        break;
      }
      base = objects_.memory().ReadPointer(base + objects_.layout().type.tp_base).value_or(0);
    }
    if (kinds_.size() < kMaxGreenletTypes) kinds_.emplace(*type, is_greenlet);
    return is_greenlet;
  }

  // The stack of the greenlet `object` if it is suspended, attached to its thread.
  void Read(uint64_t object) {
    RemoteMemory& memory = objects_.memory();
    auto pimpl = memory.ReadPointer(object + gl::kPimpl);
    if (!pimpl || *pimpl == 0) return;  // being created or torn down: nothing saved
    const std::optional<SavedState> g = ReadSavedState(memory, layout_, *pimpl);
    // Its C++ object names it back: the layout is the one this reads.
    if (!g || g->self != object) {
      Damaged(object, "its C++ object does not point back at it");
      return;
    }
    // Not started, dead, or running (its frames are the thread's).
    if (g->stack_start == 0 || g->stack_stop == 0 || g->top_frame == 0) return;
    if (TextOr(objects_.TypeName(g->top_frame), "") != "frame") {
      Damaged(object, fmt::format("its top frame {:#x} is not a frame object", g->top_frame));
      return;
    }
    if (shown_ >= kMaxGreenlets) {
      ++not_shown_;
      return;
    }
    Thread* thread = ThreadOf(*g);
    if (thread == nullptr) {
      ++threadless_;
      return;
    }
    ++shown_;
    GreenletStack& out = thread->greenlets.emplace_back();
    out.address = object;
    out.type = TextOr(objects_.TypeName(object), "?");
    out.is_main = g->stack_stop == gl::kMainStackStop;
    WalkFrames(objects_, codes_, g->current_frame, kMaxFramesPerThread, out.stack);
  }

  void Finish() {
    for (Interpreter& interp : snapshot_.interpreters) {
      for (Thread& thread : interp.threads) {
        std::stable_sort(thread.greenlets.begin(), thread.greenlets.end(),
                         [](const GreenletStack& a, const GreenletStack& b) {
                           if (a.is_main != b.is_main) return a.is_main;
                           return a.address < b.address;
                         });
      }
    }
    if (threadless_ != 0) {
      // Where the threads' C stacks come from the debugger and it told none, say so.
      const bool no_stacks = thread_by_ == ThreadBy::kStackRegions && stacks_.empty();
      snapshot_.warnings.push_back(fmt::format(
          "{} suspended greenlets belong to no thread shown (their thread ended, or their C "
          "frames or stack cannot be followed to it): their stacks are not shown{}",
          threadless_,
          no_stacks ? " (the debugger told no thread's stack: no stack pointer, or no memory "
                      "region holding it)"
                    : ""));
    }
    if (not_shown_ != 0) {
      snapshot_.warnings.push_back(fmt::format(
          "more than {} suspended greenlets: {} more are not shown...truncated", kMaxGreenlets,
          not_shown_));
    }
    if (damaged_ != 0) {
      snapshot_.warnings.push_back(fmt::format(
          "{} greenlets could not be read (greenlet's layout differs from {}x's?); the first, "
          "{:#x}: {}",
          damaged_, layout_.version_prefix, first_damaged_, first_damage_));
    }
  }

 private:
  // Each thread's C stack: the memory region (a glibc thread stack is a mapping of its own,
  // its guard page another; the main thread's is [stack]) that holds the thread's stack
  // pointer. A region that holds two threads' is no one's; one larger than any C stack is
  // not believed.
  void FindStackRegions(Target& target) {
    std::vector<MemoryRegion> regions = target.MemoryRegions();
    std::sort(regions.begin(), regions.end(),
              [](const MemoryRegion& a, const MemoryRegion& b) { return a.start < b.start; });
    std::unordered_map<uint64_t, size_t> claims;  // region start -> threads whose SP it holds
    for (Interpreter& interp : snapshot_.interpreters) {
      for (Thread& thread : interp.threads) {
        if (!thread.native_id) continue;
        const std::optional<uint64_t> sp = target.StackPointer(*thread.native_id);
        if (!sp) continue;
        auto after = std::upper_bound(
            regions.begin(), regions.end(), *sp,
            [](uint64_t at, const MemoryRegion& r) { return at < r.start; });
        if (after == regions.begin()) continue;
        const MemoryRegion& region = *std::prev(after);
        if (*sp >= region.end || region.end - region.start > kMaxThreadStackBytes) continue;
        ++claims[region.start];
        stacks_.push_back({region.start, region.end, &thread});
      }
    }
    std::erase_if(stacks_, [&](const ThreadStack& s) { return claims[s.low] > 1; });
  }

  // The thread the greenlet ran in: the one whose C stack holds its saved stack's start (the
  // thread's bounds on 3.14+, else the region of its SP where there are no C frames to
  // follow); on 3.11, the one whose root _PyCFrame ends its chain of C frames.
  Thread* ThreadOf(const SavedState& g) {
    if (thread_by_ != ThreadBy::kCFrames) {
      for (const ThreadStack& stack : stacks_) {
        if (g.stack_start >= stack.low && g.stack_start < stack.high) return stack.thread;
      }
      return nullptr;
    }
    const int32_t previous = objects_.layout().tstate.cframe_previous;
    std::unordered_set<uint64_t> seen;
    uint64_t cframe = g.cframe;
    for (size_t i = 0; i < kMaxGreenletCFrames && Aligned(cframe); ++i) {
      if (auto found = roots_.find(cframe); found != roots_.end()) return found->second;
      if (!seen.insert(cframe).second) return nullptr;  // a cycle
      auto next = ReadStackWord(objects_.memory(), g, cframe + uint64_t(previous));
      if (!next) return nullptr;
      cframe = *next;
    }
    return nullptr;
  }

  void Damaged(uint64_t object, std::string what) {
    if (damaged_++ == 0) {
      first_damaged_ = object;
      first_damage_ = std::move(what);
    }
  }

  ObjectReader& objects_;
  CodeCache& codes_;
  Snapshot& snapshot_;
  const gl::GreenletLayout& layout_;
  const uint64_t greenlet_type_;
  const ThreadBy thread_by_;
  std::unordered_map<uint64_t, Thread*> roots_;   // root _PyCFrame address -> its thread
  struct ThreadStack {
    uint64_t low, high;  // its C stack: [hard limit, top), or its memory region
    Thread* thread;
  };
  std::vector<ThreadStack> stacks_;
  std::unordered_map<uint64_t, bool> kinds_;      // type -> whether a greenlet class
  size_t shown_ = 0;
  size_t not_shown_ = 0;
  size_t threadless_ = 0;
  size_t damaged_ = 0;
  uint64_t first_damaged_ = 0;
  std::string first_damage_;
};

}  // namespace

bool GreenletImported(ObjectReader& objects, const Snapshot& snapshot) {
  return GreenletModuleDict(objects, snapshot) != 0;
}

void AddGreenletStacks(ObjectReader& objects, CodeCache& codes, Target& target,
                       Snapshot& snapshot) {
  snapshot.greenlets_read = true;
  const Layout& l = objects.layout();
  const uint64_t dict = GreenletModuleDict(objects, snapshot);
  if (dict == 0) {
    snapshot.warnings.push_back("--greenlets: the greenlet module is not imported");
    return;
  }
  RemoteCollections collections(objects);
  auto version_object = collections.DictGetString(dict, "__version__");
  std::string version = "(unknown version)";
  if (version_object.ok() && Aligned(*version_object)) {
    version = TextOr(objects.ReadString(*version_object, 32), version);
  }
  const gl::GreenletLayout* layout = LayoutOf(version, l);
  if (layout == nullptr || !TrackedObjects::Readable(l)) {
    snapshot.warnings.push_back(
        fmt::format("--greenlets: greenlet {} on Python {} is not read ({} are)", version,
                    l.version.MinorString(), KnownLayouts()));
    return;
  }
  auto type = collections.DictGetString(dict, "greenlet");
  if (!type.ok() || !Aligned(*type) ||
      TextOr(objects.TypeNameOfType(*type), "") != gl::kGreenletTypeName) {
    snapshot.warnings.push_back(
        "--greenlets: greenlet.greenlet is not the greenlet type: no greenlet is read");
    return;
  }
  std::vector<HeapInterpreter> interpreters;
  for (const Interpreter& interp : snapshot.interpreters) {
    HeapInterpreter& heap = interpreters.emplace_back();
    heap.address = interp.address;
    for (const Thread& thread : interp.threads) heap.thread_states.push_back(thread.tstate_address);
  }
  GreenletReader reader(objects, codes, target, snapshot, *layout, *type);
  TrackedObjects walk(objects, kMaxGcListObjects, snapshot.warnings);
  walk.Walk(interpreters, [&](uint64_t object) {
    if (reader.IsGreenlet(object)) reader.Read(object);
  });
  reader.Finish();
}

}  // namespace pyunwind
