// py-heap's census: every object the collector tracks in each interpreter (tracked_objects.h:
// the collector's lists on default builds, the mimalloc heaps on free-threaded ones), grouped
// by type, with count and bytes as sys.getsizeof gives them (object_size.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/limits.h"
#include "core/base/result.h"
#include "core/heap/container_referrers.h"
#include "core/heap/mimalloc_heaps.h"
#include "core/heap/tracked_objects.h"
#include "core/objects/objects.h"
#include "core/objects/values.h"

namespace pyunwind {

struct HeapGroup {
  uint64_t type = 0;  // the type object; 0 for the group of types past kMaxHeapTypes
  std::string name;   // tp_name as the target has it ("type at 0x..." where unreadable)
  uint64_t count = 0;
  uint64_t bytes = 0;
  // Objects the collector does not track, reached through the tracked containers and
  // instances that hold them (owned_objects.h).
  bool through_containers = false;
};

// One of the largest containers (--containers N).
struct HeapContainer {
  uint64_t address = 0;
  uint64_t type = 0;
  std::string type_name;  // its group's name
  uint64_t length = 0;    // len(): items, keys or elements
  uint64_t bytes = 0;     // sys.getsizeof
  // Its module globals, class attributes and frames' locals (container_referrers.h); null
  // where they were not looked for.
  std::optional<std::vector<HeapReferrer>> referrers;
};

struct HeapCensus {
  size_t interpreters = 0;
  uint64_t objects = 0;  // the sum of the tracked groups' counts
  uint64_t bytes = 0;    // the sum of the tracked groups' bytes
  // The same for the groups reached through containers (untracked objects).
  uint64_t through_containers_objects = 0;
  uint64_t through_containers_bytes = 0;
  // HeapOptions::max_owned_objects stopped their count: the rest are not counted.
  bool through_containers_limited = false;
  // Objects whose type or size could not be read, and broken links: in no group.
  uint64_t damaged = 0;
  std::vector<HeapGroup> groups;  // tracked and untracked ones, most bytes first (then count, name)
  // The HeapOptions::containers largest lists, tuples, dicts, sets and frozensets counted, most
  // bytes first (then address).
  std::vector<HeapContainer> containers;
  // With --containers: the classes met (type objects, at most kMaxReferrerClasses), whose
  // dicts may refer to them.
  std::vector<uint64_t> classes;
  // With --containers: the generators, coroutines and async generators met (at most
  // kMaxReferrerGenerators), whose suspended frames' locals may refer to them.
  std::vector<uint64_t> generators;
  bool generators_cut = false;  // more were met than kept
  // False when a list was cut (a cap, a broken link), the budget or --limit-objects stopped
  // the walk.
  bool complete = true;
  // The census stopped at HeapOptions::max_objects (--limit-objects): the rest is not counted.
  bool limited = false;
  std::vector<std::string> warnings;
};

struct HeapOptions {
  uint64_t max_list_objects = kMaxGcListObjects;
  size_t max_types = kMaxHeapTypes;
  // Objects counted before the census stops (--limit-objects); the rest are not read.
  uint64_t max_objects = UINT64_MAX;
  // How many of the largest containers to keep (--containers; at most kMaxHeapContainers).
  size_t containers = 0;
  // Untracked objects reached through containers counted (owned_objects.h).
  uint64_t max_owned_objects = kMaxOwnedObjects;
  // Container entries read for them.
  uint64_t max_owned_entries = kMaxOwnedEntries;
  MimallocLimits mimalloc;
};

// The census of `interpreters`. `types` names the types (a core without its executable has no
// tp_name of static types: the builtins dict names them).
Result<HeapCensus> TakeHeapCensus(ObjectReader& objects, ValueFormatter& types,
                                  const std::vector<HeapInterpreter>& interpreters,
                                  const HeapOptions& options = {});

}  // namespace pyunwind
