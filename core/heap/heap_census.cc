#include "core/heap/heap_census.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "core/base/work_budget.h"
#include "core/heap/object_size.h"
#include "core/heap/static_type_names.h"

namespace pyunwind {
namespace {

// Sizes are bounded one by one (object_size.cc), not their sum over 2^28 hostile objects.
uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

// --containers' order: most bytes first, then by address.
bool Larger(const HeapContainer& a, const HeapContainer& b) {
  return a.bytes != b.bytes ? a.bytes > b.bytes : a.address < b.address;
}

class CensusWalk final : public HeapObjectSink {
 public:
  CensusWalk(ObjectReader& objects, ValueFormatter& types,
             const std::vector<HeapInterpreter>& interpreters,
             const HeapOptions& options, HeapCensus& census)
      : objects_(objects), types_(types), interpreters_(interpreters), options_(options),
        census_(census),
        mask_(objects.layout().gc.link_mask) {}

  // One list, from its head's first node round to the head again.
  void WalkList(uint64_t head, const char* list_name) {
    RemoteMemory& memory = objects_.memory();
    auto first = memory.ReadPointer(head);
    if (!first) {
      Damaged(fmt::format("cannot read the head of the {} list at {:#x}", list_name, head));
      return;
    }
    uint64_t previous = head;
    uint64_t node = *first & mask_;
    for (uint64_t walked = 0; node != head; ++walked) {
      if (walked >= options_.max_list_objects) {
        census_.complete = false;
        census_.warnings.push_back(fmt::format(
            "the {} list has more than {} objects: the rest are not counted...truncated",
            list_name, options_.max_list_objects));
        return;
      }
      if (!memory.budget().Spend(Work::kHeapObjects, 1)) {
        stopped_ = true;
        return;
      }
      uint64_t links[2];  // _gc_next, _gc_prev
      if (node % 8 != 0 || !memory.Read(node, links, sizeof links)) {
        if (OutOfBudget()) return;
        Damaged(fmt::format("cannot read the object at {:#x} in the {} list: the list is cut "
                            "there", node + objects_.layout().gc.head_size, list_name));
        return;
      }
      if ((links[1] & mask_) != previous) {
        Damaged(fmt::format("the object at {:#x} in the {} list does not link back to the one "
                            "before it: the list is cut there",
                            node + objects_.layout().gc.head_size, list_name));
        return;
      }
      if (!Object(node + objects_.layout().gc.head_size)) return;
      previous = node;
      node = links[0] & mask_;
    }
  }

  bool stopped() const { return stopped_ || limited_; }
  bool limited() const { return limited_; }

  // HeapObjectSink: the mimalloc walk's objects and damage.
  bool Object(uint64_t object) override {
    if (counted_ >= options_.max_objects) {
      limited_ = true;
      return false;
    }
    ++counted_;
    Count(object);
    return !stopped_;
  }
  void Damaged(std::string what) override {
    if (OutOfBudget()) return;
    if (census_.damaged++ == 0) first_damage_ = std::move(what);
  }
  bool Stopped() override { return stopped() || OutOfBudget(); }

  // The first damage seen, and how much there was: one warning.
  void Finish() {
    if (census_.damaged == 0) return;
    census_.warnings.push_back(fmt::format("{} damaged objects or links were not counted; the "
                                           "first: {}",
                                           census_.damaged, first_damage_));
  }

 private:
  struct TypeEntry {
    size_t group = 0;
    TypeSize size;
  };

  // A read failed because a budget ran out (not because the target is damaged): the walk
  // stops.
  bool OutOfBudget() {
    RemoteMemory& memory = objects_.memory();
    if (memory.budget().Exhausted() || memory.BudgetExhausted()) stopped_ = true;
    return stopped_;
  }

  void Count(uint64_t object) {
    auto type = objects_.TypeOf(object);
    if (!type.ok()) {
      Damaged(type.error().message);
      return;
    }
    const TypeEntry* entry = Entry(*type);
    if (entry == nullptr) return;
    auto size = TrackedObjectSize(objects_, object, entry->size);
    if (!size.ok()) {
      Damaged(size.error().message);
      return;
    }
    HeapGroup& group = census_.groups[entry->group];
    ++group.count;
    group.bytes = SaturatingAdd(group.bytes, *size);
    if (options_.containers != 0 && IsContainer(entry->size)) {
      KeepIfLarge(object, *type, group, entry->size, *size);
    }
  }

  // The largest containers so far, in a heap whose top is the smallest kept.
  void KeepIfLarge(uint64_t object, uint64_t type_address, const HeapGroup& group,
                   const TypeSize& type, uint64_t bytes) {
    std::vector<HeapContainer>& kept = census_.containers;
    const size_t most = std::min(options_.containers, kMaxHeapContainers);
    if (kept.size() >= most && !Larger(HeapContainer{object, 0, {}, 0, bytes}, kept.front())) {
      return;
    }
    auto length = ContainerLength(objects_, object, type);
    if (!length.ok()) {
      Damaged(length.error().message);
      return;
    }
    if (kept.size() >= most) {
      std::pop_heap(kept.begin(), kept.end(), Larger);
      kept.pop_back();
    }
    kept.push_back({object, type_address, group.name, *length, bytes});
    std::push_heap(kept.begin(), kept.end(), Larger);
  }

  // The type's group and sizes, read once; null (counted as damaged) when unreadable.
  const TypeEntry* Entry(uint64_t type) {
    if (auto found = entries_.find(type); found != entries_.end()) {
      if (!found->second) Damaged(fmt::format("the type at {:#x} cannot be read", type));
      return found->second ? &*found->second : nullptr;
    }
    std::optional<TypeEntry> entry;
    auto info = types_.TypeInfoAt(type);
    auto size = info.ok() ? ReadTypeSize(objects_, type,
                                         info->kind == ValueFormatter::Kind::kSet ||
                                             info->kind == ValueFormatter::Kind::kFrozenSet)
                          : Result<TypeSize>(info.error());
    if (!size.ok()) {
      Damaged(size.error().message);
    } else {
      entry = TypeEntry{GroupFor(type, info->named ? info->name : UnnamedTypeName(type, info->name)),
                        *size};
    }
    if (entries_.size() < 4 * options_.max_types) {
      auto kept = entries_.emplace(type, entry).first;
      return kept->second ? &*kept->second : nullptr;
    }
    // Past the cache's bound a type is read again each time (a hostile heap only).
    scratch_ = entry;
    return scratch_ ? &*scratch_ : nullptr;
  }

  // A static type the target holds no tp_name of: its name from the `types` module, read the
  // first time one is met; else the reader's "type at 0x...".
  std::string UnnamedTypeName(uint64_t type, const std::string& fallback) {
    if (!static_names_) {
      static_names_.emplace();
      for (const HeapInterpreter& interp : interpreters_) {
        if (!static_names_->empty()) break;
        *static_names_ = StaticTypeNames(objects_, interp.address);
      }
    }
    auto found = static_names_->find(type);
    return found != static_names_->end() ? found->second : fallback;
  }

  size_t GroupFor(uint64_t type, const std::string& name) {
    if (census_.groups.size() < options_.max_types) {
      census_.groups.push_back({type, name, 0, 0});
      return census_.groups.size() - 1;
    }
    if (!other_group_) {
      census_.groups.push_back({0, "(other types)", 0, 0});
      other_group_ = census_.groups.size() - 1;
      census_.warnings.push_back(fmt::format(
          "more than {} types: the objects of the rest are counted in \"(other types)\"",
          options_.max_types));
    }
    return *other_group_;
  }

  ObjectReader& objects_;
  ValueFormatter& types_;
  const std::vector<HeapInterpreter>& interpreters_;
  const HeapOptions& options_;
  HeapCensus& census_;
  const uint64_t mask_;
  std::unordered_map<uint64_t, std::optional<TypeEntry>> entries_;
  std::optional<TypeEntry> scratch_;
  std::optional<std::unordered_map<uint64_t, std::string>> static_names_;
  std::optional<size_t> other_group_;
  std::string first_damage_;
  uint64_t counted_ = 0;  // objects met, for --limit-objects
  bool stopped_ = false;
  bool limited_ = false;
};

}  // namespace

Result<HeapCensus> TakeHeapCensus(ObjectReader& objects, ValueFormatter& types,
                                  const std::vector<HeapInterpreter>& interpreters,
                                  const HeapOptions& options) {
  const Layout& l = objects.layout();
  if (l.free_threaded ? l.mimalloc.tstate_heaps == kAbsent
                      : l.gc.generations == kAbsent || l.interp.gc == kAbsent) {
    return MakeError(fmt::format("py-heap: {}Python {} is not read yet (3.11 and newer are{})",
                                 l.free_threaded ? "free-threaded " : "", l.version.ToString(),
                                 l.free_threaded ? "; free-threaded: 3.13 and 3.14" : ""));
  }
  HeapCensus census;
  census.interpreters = interpreters.size();
  CensusWalk walk(objects, types, interpreters, options, census);
  for (const HeapInterpreter& interpreter : interpreters) {
    const uint64_t interp = interpreter.address;
    if (l.free_threaded) {
      MimallocWalkResult heaps =
          VisitMimallocObjects(objects, interp, interpreter.thread_states, walk, options.mimalloc);
      if (heaps.cut) census.complete = false;
      for (std::string& warning : heaps.warnings) census.warnings.push_back(std::move(warning));
      if (walk.Stopped()) break;
      continue;
    }
    const uint64_t gc = interp + uint64_t(l.interp.gc);
    // A collection moves objects onto lists of its own and keeps gc_refs in _gc_prev.
    if (l.interp.gc_collecting != kAbsent &&
        objects.memory().ReadValue<int32_t>(interp + l.interp.gc_collecting).value_or(0) != 0) {
      census.warnings.push_back(fmt::format(
          "interpreter {:#x} was collecting garbage: objects it was examining are not on its "
          "lists, and some links may read as damaged",
          interp));
    }
    for (int32_t i = 0; i < l.gc.generation_count && !walk.stopped(); ++i) {
      const std::string name = fmt::format("generation {}", i);
      walk.WalkList(gc + l.gc.generations + uint64_t(i) * l.gc.generation_size, name.c_str());
    }
    if (!walk.stopped()) walk.WalkList(gc + l.gc.permanent, "permanent generation");
    if (walk.stopped()) break;
  }
  walk.Stopped();  // notes a budget that ran out inside the last read
  walk.Finish();
  if (walk.limited()) {
    census.complete = false;
    census.limited = true;
    census.warnings.push_back(fmt::format(
        "the census stopped after {} objects (--limit-objects): the rest are not "
        "counted...truncated",
        options.max_objects));
  } else if (walk.stopped()) {
    census.complete = false;
    census.warnings.push_back(objects.memory().BudgetWarning().value_or(
        "the census stopped: output is incomplete...truncated"));
  }
  if (census.damaged != 0) census.complete = false;
  std::erase_if(census.groups, [](const HeapGroup& g) { return g.count == 0; });
  std::sort(census.containers.begin(), census.containers.end(), Larger);
  std::sort(census.groups.begin(), census.groups.end(), [](const HeapGroup& a, const HeapGroup& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    return a.name < b.name;
  });
  for (const HeapGroup& group : census.groups) {
    census.objects += group.count;
    census.bytes = SaturatingAdd(census.bytes, group.bytes);
  }
  return census;
}

}  // namespace pyunwind
