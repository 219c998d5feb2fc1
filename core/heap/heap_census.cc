#include "core/heap/heap_census.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "core/base/work_budget.h"
#include "core/heap/object_size.h"
#include "core/heap/owned_objects.h"
#include "core/heap/static_type_names.h"
#include "core/heap/tracked_objects.h"
#include "core/objects/type_flags.h"

namespace pyunwind {
namespace {

// Sizes are bounded one by one (object_size.cc), not their sum over 2^28 hostile objects.
uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

// --containers' order: most bytes first, then by address.
bool Larger(const HeapContainer& a, const HeapContainer& b) {
  return a.bytes != b.bytes ? a.bytes > b.bytes : a.address < b.address;
}

class CensusWalk {
 public:
  CensusWalk(ObjectReader& objects, ValueFormatter& types,
             const std::vector<HeapInterpreter>& interpreters, const HeapOptions& options,
             HeapCensus& census, TrackedObjects& walk)
      : objects_(objects), types_(types), interpreters_(interpreters), options_(options),
        census_(census), walk_(walk),
        owned_(objects, types,
               [this](uint64_t type, const ValueFormatter::TypeInfo& info) {
                 return info.named ? info.name : UnnamedTypeName(type, info.name);
               },
               options.max_owned_objects, options.max_owned_entries, options.max_types, walk) {}

  // Counts the object, or stops the walk at --limit-objects.
  void Visit(uint64_t object) {
    if (counted_ >= options_.max_objects) {
      limited_ = true;
      walk_.Stop();
      return;
    }
    ++counted_;
    Count(object);
  }

  bool limited() const { return limited_; }
  OwnedObjects& owned() { return owned_; }

 private:
  void Count(uint64_t object) {
    auto type = objects_.TypeOf(object);
    if (!type.ok()) {
      walk_.Damaged(type.error().message);
      return;
    }
    const TypeEntry* entry = Entry(*type);
    if (entry == nullptr) return;
    auto size = TrackedObjectSize(objects_, object, entry->size);
    if (!size.ok()) {
      walk_.Damaged(size.error().message);
      return;
    }
    HeapGroup& group = census_.groups[entry->group];
    ++group.count;
    group.bytes = SaturatingAdd(group.bytes, *size);
    if (options_.containers != 0 && IsContainer(entry->size)) {
      KeepIfLarge(object, *type, group, entry->size, *size);
    }
    if (options_.containers != 0 && entry->is_class &&
        census_.classes.size() < kMaxReferrerClasses) {
      census_.classes.push_back(object);
    }
    if (options_.containers != 0 && entry->size.rule == SizeRule::kGenerator) {
      if (census_.generators.size() < kMaxReferrerGenerators) {
        census_.generators.push_back(object);
      } else {
        census_.generators_cut = true;
      }
    }
    owned_.VisitOwner(object, *type, entry->size);
  }

  // The largest containers so far, in a heap whose top is the smallest kept.
  void KeepIfLarge(uint64_t object, uint64_t type_address, const HeapGroup& group,
                   const TypeSize& type, uint64_t bytes) {
    std::vector<HeapContainer>& kept = census_.containers;
    const size_t most = std::min(options_.containers, kMaxHeapContainers);
    if (kept.size() >= most && !Larger(HeapContainer{object, 0, {}, 0, bytes, {}}, kept.front())) {
      return;
    }
    auto length = ContainerLength(objects_, object, type);
    if (!length.ok()) {
      walk_.Damaged(length.error().message);
      return;
    }
    if (kept.size() >= most) {
      std::pop_heap(kept.begin(), kept.end(), Larger);
      kept.pop_back();
    }
    kept.push_back({object, type_address, group.name, *length, bytes, {}});
    std::push_heap(kept.begin(), kept.end(), Larger);
  }

  struct TypeEntry {
    size_t group = 0;
    TypeSize size;
    bool is_class = false;  // its objects are type objects
  };

  // The type's group and sizes, read once; null (counted as damaged) when unreadable.
  const TypeEntry* Entry(uint64_t type) {
    if (auto found = entries_.find(type); found != entries_.end()) {
      if (!found->second) walk_.Damaged(fmt::format("the type at {:#x} cannot be read", type));
      return found->second ? &*found->second : nullptr;
    }
    std::optional<TypeEntry> entry;
    auto info = types_.TypeInfoAt(type);
    const std::string name =
        !info.ok() ? "" : info->named ? info->name : UnnamedTypeName(type, info->name);
    auto size = info.ok() ? ReadTypeSize(objects_, type,
                                         info->kind == ValueFormatter::Kind::kSet ||
                                                 info->kind == ValueFormatter::Kind::kFrozenSet
                                             ? NamedKind::kSet
                                             : NamedKindOf(name))
                          : Result<TypeSize>(info.error());
    if (!size.ok()) {
      walk_.Damaged(size.error().message);
    } else {
      entry = TypeEntry{GroupFor(type, name), *size, (info->flags & kTypeSubclassFlag) != 0};
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
  TrackedObjects& walk_;
  std::unordered_map<uint64_t, std::optional<TypeEntry>> entries_;
  std::optional<TypeEntry> scratch_;
  std::optional<std::unordered_map<uint64_t, std::string>> static_names_;
  std::optional<size_t> other_group_;
  OwnedObjects owned_;
  uint64_t counted_ = 0;  // objects met, for --limit-objects
  bool limited_ = false;
};

}  // namespace

Result<HeapCensus> TakeHeapCensus(ObjectReader& objects, ValueFormatter& types,
                                  const std::vector<HeapInterpreter>& interpreters,
                                  const HeapOptions& options) {
  const Layout& l = objects.layout();
  if (!TrackedObjects::Readable(l)) {
    return MakeError(fmt::format("py-heap: {}Python {} is not read yet (3.11 and newer are{})",
                                 l.free_threaded ? "free-threaded " : "", l.version.ToString(),
                                 l.free_threaded ? "; free-threaded: 3.13 and 3.14" : ""));
  }
  HeapCensus census;
  census.interpreters = interpreters.size();
  TrackedObjects walk(objects, options.max_list_objects, census.warnings, options.mimalloc);
  CensusWalk census_walk(objects, types, interpreters, options, census, walk);
  walk.Walk(interpreters, [&census_walk](uint64_t object) { census_walk.Visit(object); });
  census.damaged = walk.damaged();
  if (!walk.complete()) census.complete = false;
  if (census_walk.limited()) {
    census.limited = true;
    census.warnings.push_back(fmt::format(
        "the census stopped after {} objects (--limit-objects): the rest are not "
        "counted...truncated",
        options.max_objects));
  }
  std::erase_if(census.groups, [](const HeapGroup& g) { return g.count == 0; });
  for (OwnedGroup& owned : census_walk.owned().TakeGroups()) {
    census.through_containers_objects += owned.count;
    census.through_containers_bytes = SaturatingAdd(census.through_containers_bytes, owned.bytes);
    census.groups.push_back({owned.type, std::move(owned.name), owned.count, owned.bytes, true});
  }
  if (census_walk.owned().limited()) {
    census.through_containers_limited = true;
    census.complete = false;
    census.warnings.push_back(
        census_walk.owned().entries_limited()
            ? fmt::format("more than {} container entries were read for the untracked objects "
                          "they hold: the rest are not counted...truncated",
                          options.max_owned_entries)
            : fmt::format("more than {} untracked objects are reached through containers: the "
                          "rest are not counted...truncated",
                          options.max_owned_objects));
  }
  std::sort(census.containers.begin(), census.containers.end(), Larger);
  std::sort(census.groups.begin(), census.groups.end(), [](const HeapGroup& a, const HeapGroup& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    return a.name < b.name;
  });
  for (const HeapGroup& group : census.groups) {
    if (group.through_containers) continue;
    census.objects += group.count;
    census.bytes = SaturatingAdd(census.bytes, group.bytes);
  }
  return census;
}

}  // namespace pyunwind
