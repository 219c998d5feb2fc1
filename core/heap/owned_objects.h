// py-heap's objects the collector does not track but a tracked one owns directly: the items of
// lists and tuples, the keys and values of dicts, the elements of sets and frozensets, and an
// instance's attributes (its managed dict's values, or the dict itself), as tp_traverse visits
// them, and an instance's __slots__ (its class's object members, up the heap classes it
// derives from, as subtype_traverse visits them; a C heap type's object members, as its
// tp_traverse does) and the dict at a positive tp_dictoffset (a
// function's __dict__, an exception's, a module's md_dict: their tp_traverse visits it).
// Most are str, int, float, bytes, None and tuples or dicts of such; each is counted
// once (by address), in groups by type apart from the tracked ones, with the bytes
// sys.getsizeof gives. Type objects (static types are not heap objects) are left out, and so
// are what other tracked objects own (a function's name, a code object's constants).
//
// Hostile-safe: the objects counted are capped (HeapOptions::max_owned_objects,
// kMaxOwnedObjects) and so are the entries read for them (kMaxOwnedEntries, apart from the
// command's work budget, which the tracked objects' walk spends): past either the rest are not
// counted and the census says "limited". A length past 2^32 or an entry that cannot be read is
// counted as damaged.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/heap/object_size.h"
#include "core/heap/tracked_objects.h"
#include "core/objects/objects.h"
#include "core/objects/values.h"

namespace pyunwind {

// One type's untracked objects reached through containers.
struct OwnedGroup {
  uint64_t type = 0;
  std::string name;
  uint64_t count = 0;
  uint64_t bytes = 0;
};

class OwnedObjects {
 public:
  // Names a type as the census does (`fallback`: the reader's "type at 0x...").
  using TypeNamer = std::function<std::string(uint64_t type, const ValueFormatter::TypeInfo&)>;

  OwnedObjects(ObjectReader& objects, ValueFormatter& types, TypeNamer namer,
               uint64_t max_objects, uint64_t max_entries, size_t max_types,
               TrackedObjects& walk);
  ~OwnedObjects();

  // Counts the untracked objects that `owner`, a tracked object of a type whose sizes are
  // `owner_type`, holds directly.
  void VisitOwner(uint64_t owner, uint64_t owner_type, const TypeSize& owner_type_size);

  // The groups (in no order), and whether max_objects stopped the count.
  std::vector<OwnedGroup> TakeGroups();
  bool limited() const { return limited_; }
  // limited() by the entries read (kMaxOwnedEntries), not by the objects counted.
  bool entries_limited() const { return entries_limited_; }
  uint64_t counted() const;

 private:
  struct ChildType;
  struct OwnerType;
  class AddressSet;

  void Items(uint64_t array, uint64_t count);
  void ListItems(uint64_t list);
  void TupleItems(uint64_t tuple);
  void DictEntries(uint64_t dict);
  void SetEntries(uint64_t set);
  void InstanceAttributes(uint64_t object, uint64_t type, const TypeSize& size);
  void ValuesOf(uint64_t values, uint64_t count);
  // The slots and the dict at a positive tp_dictoffset of an instance of `type`.
  void SlotsAndDict(uint64_t object, uint64_t type, const TypeSize& size);
  // Where `type`'s instances keep them, read once; null when it has neither (or is damaged).
  const OwnerType* OwnerTypeOf(uint64_t type, const TypeSize& size);
  // Reads `count` pointers at `address` into `into`; false (damaged, or the budget spent)
  // when it cannot.
  bool ReadPointers(uint64_t address, uint64_t count, const char* what, uint64_t owner,
                    std::vector<uint64_t>& into);
  void Child(uint64_t object);
  const ChildType* TypeOf(uint64_t type);
  bool Tracked(uint64_t object, const ChildType& type);
  // The entries a type's instances' shared keys hold (3.11, 3.12: how many values to read).
  std::optional<uint64_t> SharedKeysEntries(uint64_t type);

  ObjectReader& objects_;
  ValueFormatter& types_;
  TypeNamer namer_;
  const uint64_t max_objects_;
  const uint64_t max_entries_;
  const size_t max_types_;
  TrackedObjects& walk_;
  std::unique_ptr<AddressSet> seen_;
  std::unordered_map<uint64_t, std::unique_ptr<ChildType>> child_types_;
  std::unordered_map<uint64_t, std::optional<uint64_t>> shared_keys_;
  std::unordered_map<uint64_t, std::unique_ptr<OwnerType>> owner_types_;
  std::vector<OwnedGroup> groups_;
  std::optional<size_t> other_group_;
  std::vector<uint64_t> buffer_;         // a slice of items or entries
  std::vector<uint64_t> values_buffer_;  // a split table's values beside its keys
  uint64_t entries_read_ = 0;
  bool limited_ = false;
  bool entries_limited_ = false;
};

}  // namespace pyunwind
