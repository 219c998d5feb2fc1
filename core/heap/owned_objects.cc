#include "core/heap/owned_objects.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "core/base/limits.h"
#include "core/objects/type_flags.h"

namespace pyunwind {
namespace {

// Pointers read from the target at a time (a list of 10^7 items is read in slices).
constexpr uint64_t kPointersPerRead = 4096;
// No container holds more (2^32 items are 32 GiB of pointers): past it a length is garbage.
constexpr uint64_t kMaxEntries = uint64_t{1} << 32;
// T_OBJECT_EX (Py_T_OBJECT_EX): the member type of a __slots__ entry; T_OBJECT (_Py_T_OBJECT):
// an object member of a C type (re.Pattern's `pattern`).
constexpr int32_t kMemberObjectEx = 16;
constexpr int32_t kMemberObject = 6;

}  // namespace

// The addresses counted: open addressing over a power-of-two table kept at most half full
// (8 bytes a slot: 4M objects take 64 MiB at most; 0 marks a free slot).
class OwnedObjects::AddressSet {
 public:
  bool Contains(uint64_t address) const {
    if (slots_.empty()) return false;
    for (size_t i = Slot(address);; i = (i + 1) & mask_) {
      if (slots_[i] == address) return true;
      if (slots_[i] == 0) return false;
    }
  }
  void Insert(uint64_t address) {
    if (2 * (size_ + 1) > slots_.size()) Grow();
    size_t i = Slot(address);
    while (slots_[i] != 0 && slots_[i] != address) i = (i + 1) & mask_;
    if (slots_[i] == 0) ++size_;
    slots_[i] = address;
  }
  uint64_t size() const { return size_; }

 private:
  // Fibonacci hashing: objects are 16-byte aligned, the low bits say nothing.
  size_t Slot(uint64_t address) const {
    return size_t((address * 0x9E3779B97F4A7C15ull) >> shift_) & mask_;
  }
  void Grow() {
    std::vector<uint64_t> old = std::move(slots_);
    const size_t size = old.empty() ? 1024 : old.size() * 2;
    slots_.assign(size, 0);
    mask_ = size - 1;
    shift_ = 64 - __builtin_ctzll(size);
    size_ = 0;
    for (uint64_t address : old) {
      if (address != 0) Insert(address);
    }
  }

  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
  int shift_ = 64;
  uint64_t size_ = 0;
};

struct OwnedObjects::ChildType {
  TypeSize size;
  size_t group = 0;
  bool skip = false;  // type objects: static types are no heap objects, classes are tracked
};

struct OwnedObjects::OwnerType {
  std::vector<uint64_t> slots;  // offsets of the __slots__ in an instance
  uint64_t dict_offset = 0;     // 0: no dict at a positive tp_dictoffset
};

OwnedObjects::OwnedObjects(ObjectReader& objects, ValueFormatter& types, TypeNamer namer,
                           uint64_t max_objects, uint64_t max_entries, size_t max_types,
                           TrackedObjects& walk)
    : objects_(objects), types_(types), namer_(std::move(namer)), max_objects_(max_objects),
      max_entries_(max_entries), max_types_(max_types), walk_(walk), seen_(std::make_unique<AddressSet>()) {}

OwnedObjects::~OwnedObjects() = default;

uint64_t OwnedObjects::counted() const { return seen_->size(); }

std::vector<OwnedGroup> OwnedObjects::TakeGroups() {
  std::vector<OwnedGroup> groups = std::move(groups_);
  std::erase_if(groups, [](const OwnedGroup& g) { return g.count == 0; });
  return groups;
}

void OwnedObjects::VisitOwner(uint64_t owner, uint64_t owner_type, const TypeSize& size) {
  if (limited_ || walk_.stopped()) return;
  switch (size.rule) {
    case SizeRule::kList: ListItems(owner); break;
    case SizeRule::kDict: DictEntries(owner); break;
    case SizeRule::kSet: SetEntries(owner); break;
    default:
      if (size.flags & kTupleSubclassFlag) TupleItems(owner);
  }
  if (IsPython2(objects_.layout())) return;
  if (size.flags & kManagedDictFlag) InstanceAttributes(owner, owner_type, size);
  SlotsAndDict(owner, owner_type, size);
}

void OwnedObjects::SlotsAndDict(uint64_t object, uint64_t type, const TypeSize& size) {
  const OwnerType* owner = OwnerTypeOf(type, size);
  if (owner == nullptr || limited_ || walk_.stopped()) return;
  // Entries read, as a container's are (a hostile class has 4,096 slots).
  const uint64_t entries = owner->slots.size() + (owner->dict_offset != 0 ? 1 : 0);
  if (entries > max_entries_ - std::min(entries_read_, max_entries_)) {
    limited_ = entries_limited_ = true;
    return;
  }
  entries_read_ += entries;
  for (uint64_t offset : owner->slots) {
    auto value = objects_.memory().ReadPointer(object + offset);
    if (!value) {
      walk_.Damaged(fmt::format("cannot read the slots of the object at {:#x}", object));
      return;
    }
    Child(*value);
  }
  if (owner->dict_offset != 0) {
    auto dict = objects_.memory().ReadPointer(object + owner->dict_offset);
    if (!dict) {
      walk_.Damaged(fmt::format("cannot read the dict of the object at {:#x}", object));
      return;
    }
    Child(*dict);
  }
}

// A class's __slots__ are members of type T_OBJECT_EX in the PyMemberDef array after its heap
// type object (tp_members, Py_SIZE(type) of them); subtype_traverse visits those of each base
// up to the first that is no class statement's (a static type: object, a C type). A C type
// made as a heap type (PyType_FromSpec: re.Pattern) keeps its members there too, and its own
// tp_traverse visits its object members (T_OBJECT or T_OBJECT_EX): read alike. A dict at a
// positive tp_dictoffset (no managed dict) is visited by subtype_traverse or by the C type's
// own tp_traverse that put it there.
const OwnedObjects::OwnerType* OwnedObjects::OwnerTypeOf(uint64_t type, const TypeSize& size) {
  if (auto found = owner_types_.find(type); found != owner_types_.end()) {
    return found->second.get();
  }
  RemoteMemory& memory = objects_.memory();
  const Layout& l = objects_.layout();
  const Layout::Type& t = l.type;
  const Layout::MemberDef& m = l.member_def;
  auto owner = std::make_unique<OwnerType>();
  bool damaged = t.tp_members == kAbsent || t.tp_base == kAbsent || t.tp_dictoffset == kAbsent ||
                 m.size <= 0 || m.type == kAbsent || m.offset == kAbsent;
  // Inside the instance, past its header.
  auto inside = [&](int64_t offset) {
    return offset >= 2 * 8 && uint64_t(offset) + 8 <= size.basicsize;
  };
  if (!damaged && !(size.flags & kManagedDictFlag)) {
    auto dict_offset = memory.ReadValue<int64_t>(type + t.tp_dictoffset);
    damaged = !dict_offset;
    if (dict_offset && *dict_offset > 0 && inside(*dict_offset)) {
      owner->dict_offset = uint64_t(*dict_offset);
    }
  }
  std::vector<uint8_t> members;
  uint64_t base = type;
  for (size_t depth = 0; !damaged && base != 0; ++depth) {
    auto flags = memory.ReadValue<uint64_t>(base + t.tp_flags);
    auto count = memory.ReadValue<int64_t>(base + l.object.ob_size);
    auto next = memory.ReadPointer(base + t.tp_base);
    if (depth == kMaxBaseClasses || !flags || !count || !next || *count < 0 ||
        *count > kMaxClassSlots) {
      damaged = true;
      break;
    }
    if (!(*flags & kHeapTypeFlag)) break;  // a static type: its own tp_traverse
    if (*count > 0) {
      auto array = memory.ReadPointer(base + t.tp_members);
      members.resize(uint64_t(*count) * uint64_t(m.size));
      if (!array || !memory.Read(*array, members.data(), members.size())) {
        damaged = true;
        break;
      }
      for (int64_t i = 0; i < *count; ++i) {
        const uint8_t* member = members.data() + i * m.size;
        int32_t member_type;
        int64_t offset;
        std::memcpy(&member_type, member + m.type, sizeof member_type);
        std::memcpy(&offset, member + m.offset, sizeof offset);
        if (member_type != kMemberObjectEx && member_type != kMemberObject) continue;
        if (!inside(offset)) {
          damaged = true;
          break;
        }
        owner->slots.push_back(uint64_t(offset));
      }
    }
    base = *next;
  }
  std::sort(owner->slots.begin(), owner->slots.end());
  owner->slots.erase(std::unique(owner->slots.begin(), owner->slots.end()), owner->slots.end());
  if (damaged) {
    walk_.Damaged(fmt::format("cannot read the slots of the class at {:#x}", type));
    owner.reset();
  } else if (owner->slots.empty() && owner->dict_offset == 0) {
    owner.reset();
  }
  if (owner_types_.size() >= 4 * max_types_) return nullptr;  // a hostile heap only: not kept
  return owner_types_.emplace(type, std::move(owner)).first->second.get();
}

bool OwnedObjects::ReadPointers(uint64_t address, uint64_t count, const char* what,
                                uint64_t owner, std::vector<uint64_t>& into) {
  into.resize(count);
  if (count == 0) return true;
  if (count > max_entries_ - std::min(entries_read_, max_entries_)) {
    limited_ = entries_limited_ = true;
    return false;
  }
  entries_read_ += count;
  if (!objects_.memory().Read(address, into.data(), count * 8)) {
    walk_.Damaged(fmt::format("cannot read the {} of the object at {:#x}", what, owner));
    return false;
  }
  return true;
}

// `count` object pointers in a row (list and tuple items, split-table values), in slices.
void OwnedObjects::Items(uint64_t array, uint64_t count) {
  for (uint64_t done = 0; done < count && !limited_ && !walk_.stopped();) {
    const uint64_t slice = std::min(count - done, kPointersPerRead);
    if (!ReadPointers(array + done * 8, slice, "items", array, buffer_)) return;
    for (uint64_t item : buffer_) Child(item);
    done += slice;
  }
}

void OwnedObjects::ListItems(uint64_t list) {
  const Layout::List& l = objects_.layout().list;
  auto size = objects_.memory().ReadValue<int64_t>(list + l.ob_size);
  auto items = objects_.memory().ReadPointer(list + l.ob_item);
  if (!size || !items || *size < 0 || uint64_t(*size) > kMaxEntries) {
    walk_.Damaged(fmt::format("cannot read the items of the list at {:#x}", list));
    return;
  }
  if (*size != 0) Items(*items, uint64_t(*size));
}

void OwnedObjects::TupleItems(uint64_t tuple) {
  const Layout::Tuple& t = objects_.layout().tuple;
  auto size = objects_.memory().ReadValue<int64_t>(tuple + t.ob_size);
  if (!size || *size < 0 || uint64_t(*size) > kMaxEntries) {
    walk_.Damaged(fmt::format("cannot read the items of the tuple at {:#x}", tuple));
    return;
  }
  Items(tuple + t.ob_item, uint64_t(*size));
}

// The keys and values of a dict: a combined table's entries ({key, value} when all keys are
// str, else {hash, key, value}), or a split table's shared keys beside its own values.
void OwnedObjects::DictEntries(uint64_t dict) {
  RemoteMemory& memory = objects_.memory();
  const Layout& l = objects_.layout();
  const Layout::DictKeys& k = l.dict_keys;
  auto keys = memory.ReadPointer(dict + l.dict.ma_keys);
  auto values = memory.ReadPointer(dict + l.dict.ma_values);
  uint8_t header[3];  // log2_size, log2_index_bytes, kind
  auto nentries = keys ? memory.ReadValue<int64_t>(*keys + k.nentries) : std::nullopt;
  if (!keys || !values || !nentries || !memory.Read(*keys + k.log2_size, header, sizeof header)) {
    walk_.Damaged(fmt::format("cannot read the keys of the dict at {:#x}", dict));
    return;
  }
  const int log2_index_bytes = header[k.log2_index_bytes - k.log2_size];
  if (*nentries < 0 || uint64_t(*nentries) > kMaxEntries || log2_index_bytes > 40) {
    walk_.Damaged(fmt::format("the dict at {:#x} has an impossible key table", dict));
    return;
  }
  const bool unicode = header[k.kind - k.log2_size] != 0;
  const uint64_t words = unicode ? k.unicode_entry_size / 8 : k.general_entry_size / 8;
  const uint64_t key_word = unicode ? 0 : 1;
  const uint64_t entries = *keys + k.header_size + (uint64_t{1} << log2_index_bytes);
  for (uint64_t done = 0; done < uint64_t(*nentries) && !limited_ && !walk_.stopped();) {
    const uint64_t slice = std::min(uint64_t(*nentries) - done, kPointersPerRead / words);
    std::vector<uint64_t>& table = buffer_;
    std::vector<uint64_t>& split = values_buffer_;
    if (!ReadPointers(entries + done * words * 8, slice * words, "entries", dict, table)) return;
    if (*values != 0 &&
        !ReadPointers(*values + l.dict.values_header + done * 8, slice, "values", dict, split)) {
      return;
    }
    for (uint64_t i = 0; i < slice; ++i) {
      const uint64_t key = table[i * words + key_word];
      const uint64_t value = *values != 0 ? split[i] : table[i * words + key_word + 1];
      if (key == 0 || value == 0) continue;  // never used, or deleted
      Child(key);
      Child(value);
    }
    done += slice;
  }
}

// A set's elements: its table's entries, less the free ones and the dummies of removed keys
// (hash -1, which no real hash is).
void OwnedObjects::SetEntries(uint64_t set) {
  RemoteMemory& memory = objects_.memory();
  const Layout::Set& s = objects_.layout().set;
  auto table = memory.ReadPointer(set + s.table);
  auto mask = memory.ReadValue<int64_t>(set + s.mask);
  if (!table || !mask || *mask < 0 || uint64_t(*mask) >= kMaxEntries) {
    walk_.Damaged(fmt::format("cannot read the table of the set at {:#x}", set));
    return;
  }
  const uint64_t slots = uint64_t(*mask) + 1;
  for (uint64_t done = 0; done < slots && !limited_ && !walk_.stopped();) {
    const uint64_t slice = std::min(slots - done, kPointersPerRead / 2);
    std::vector<uint64_t>& entries = buffer_;
    if (!ReadPointers(*table + done * 16, slice * 2, "table", set, entries)) return;
    for (uint64_t i = 0; i < slice; ++i) {
      const uint64_t key = entries[2 * i + s.entry_key / 8];
      const int64_t hash = int64_t(entries[2 * i + s.entry_hash / 8]);
      if (key != 0 && hash != -1) Child(key);
    }
    done += slice;
  }
}

// An instance's attributes as subtype_traverse visits them: the values of its split table
// while it has one (3.11: a pointer before the object; 3.12: tagged into the dict pointer;
// 3.13+: inline after the object while valid), else its dict.
void OwnedObjects::InstanceAttributes(uint64_t object, uint64_t type, const TypeSize& size) {
  RemoteMemory& memory = objects_.memory();
  const Layout::ManagedDict& m = objects_.layout().managed_dict;
  if (m.dict_before == kAbsent) return;
  auto dict = memory.ReadPointer(object - m.dict_before);
  if (!dict) {
    walk_.Damaged(fmt::format("cannot read the managed dict of the object at {:#x}", object));
    return;
  }
  if (m.values_inline && (size.flags & kInlineValuesFlag)) {
    const uint64_t values = object + size.basicsize;
    uint8_t header[4];  // capacity, size, embedded, valid
    if (!memory.Read(values, header, sizeof header)) {
      walk_.Damaged(fmt::format("cannot read the attributes of the object at {:#x}", object));
      return;
    }
    if (header[m.inline_valid] != 0) return ValuesOf(values, header[0]);
  } else if (m.values_before != kAbsent && *dict == 0) {
    auto values = memory.ReadPointer(object - m.values_before);
    if (!values) {
      walk_.Damaged(fmt::format("cannot read the attributes of the object at {:#x}", object));
      return;
    }
    if (*values == 0) return;
    if (auto entries = SharedKeysEntries(type)) ValuesOf(*values, *entries);
    return;
  } else if (m.values_tagged && (*dict & 1)) {
    if (auto entries = SharedKeysEntries(type)) ValuesOf(*dict + 1, *entries);
    return;
  }
  Child(*dict);
}

void OwnedObjects::ValuesOf(uint64_t values, uint64_t count) {
  Items(values + objects_.layout().dict.values_header, count);
}

std::optional<uint64_t> OwnedObjects::SharedKeysEntries(uint64_t type) {
  if (auto found = shared_keys_.find(type); found != shared_keys_.end()) return found->second;
  std::optional<uint64_t> entries;
  const Layout& l = objects_.layout();
  if (l.type.ht_cached_keys != kAbsent) {
    auto keys = objects_.memory().ReadPointer(type + l.type.ht_cached_keys);
    auto count = keys && *keys != 0
                     ? objects_.memory().ReadValue<int64_t>(*keys + l.dict_keys.nentries)
                     : std::nullopt;
    if (count && *count >= 0 && *count <= 1 << 16) entries = uint64_t(*count);
  }
  if (!entries) walk_.Damaged(fmt::format("cannot read the shared keys of the class at {:#x}", type));
  if (shared_keys_.size() < 4 * max_types_) shared_keys_.emplace(type, entries);
  return entries;
}

// The type's sizes and group, read once; null when unreadable (counted as damaged).
const OwnedObjects::ChildType* OwnedObjects::TypeOf(uint64_t type) {
  if (auto found = child_types_.find(type); found != child_types_.end()) {
    return found->second.get();
  }
  std::unique_ptr<ChildType> entry;
  auto info = types_.TypeInfoAt(type);
  if (info.ok()) {
    // Generators are always tracked: never one of these.
    auto size = ReadTypeSize(objects_, type,
                             info->kind == ValueFormatter::Kind::kSet ||
                                     info->kind == ValueFormatter::Kind::kFrozenSet
                                 ? NamedKind::kSet
                                 : NamedKind::kOther);
    if (size.ok()) {
      entry = std::make_unique<ChildType>();
      entry->size = *size;
      entry->skip = (size->flags & kTypeSubclassFlag) != 0;
      if (groups_.size() < max_types_) {
        groups_.push_back({type, namer_(type, *info), 0, 0});
        entry->group = groups_.size() - 1;
      } else {
        if (!other_group_) {
          groups_.push_back({0, "(other types)", 0, 0});
          other_group_ = groups_.size() - 1;
        }
        entry->group = *other_group_;
      }
    }
  }
  if (!entry) walk_.Damaged(fmt::format("the type at {:#x} cannot be read", type));
  if (child_types_.size() >= 4 * max_types_) return nullptr;  // a hostile heap only
  return child_types_.emplace(type, std::move(entry)).first->second.get();
}

// Whether the collector tracks the object: a PyGC_Head linked into a list (default builds),
// the tracked bit of ob_gc_bits (free-threaded ones).
bool OwnedObjects::Tracked(uint64_t object, const ChildType& type) {
  if (!(type.size.flags & kHaveGcFlag)) return false;
  const Layout& l = objects_.layout();
  if (l.free_threaded) {
    auto bits = objects_.memory().ReadValue<uint8_t>(object + l.mimalloc.object_gc_bits);
    return !bits || (*bits & l.mimalloc.tracked_bit) != 0;
  }
  auto next = objects_.memory().ReadValue<uint64_t>(object - l.gc.head_size);
  return !next || (*next & l.gc.link_mask) != 0;
}

void OwnedObjects::Child(uint64_t object) {
  if (object == 0 || limited_ || seen_->Contains(object)) return;
  if (object % 8 != 0) {
    walk_.Damaged(fmt::format("a container holds the misaligned pointer {:#x}", object));
    return;
  }
  auto type = objects_.TypeOf(object);
  if (!type.ok()) {
    walk_.Damaged(type.error().message);
    return;
  }
  const ChildType* entry = TypeOf(*type);
  if (entry == nullptr || entry->skip || Tracked(object, *entry)) return;
  if (seen_->size() >= max_objects_) {
    limited_ = true;
    return;
  }
  auto size = UntrackedObjectSize(objects_, object, entry->size);
  if (!size.ok()) {
    walk_.Damaged(size.error().message);
    return;
  }
  seen_->Insert(object);
  OwnedGroup& group = groups_[entry->group];
  ++group.count;
  group.bytes = *size > UINT64_MAX - group.bytes ? UINT64_MAX : group.bytes + *size;
}

}  // namespace pyunwind
