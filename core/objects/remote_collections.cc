#include "core/objects/remote_collections.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "core/base/address.h"
#include "core/objects/type_flags.h"

namespace pyunwind {
namespace {

// PyDictKeysObject (3.11-3.15): dk_log2_index_bytes at 9, dk_kind at 10,
// dk_nentries at 24, indices at 32, then the entries ({key, value} for
// str-keyed tables, {hash, key, value} otherwise); 3.7-3.10 state where
// dk_size, dk_nentries and the indices are (Layout::Dict), and every entry is
// {hash, key, value}. setentry is {key, hash}.
// Characters of a key read to check the str hasher against its cached hash (module and
// attribute names are short; a longer key is skipped).
constexpr size_t kMaxCheckedKeyChars = 64;
// Probes of one look-up by hash. A dict at most two-thirds full finds a key, or an empty
// slot, in a few; a damaged index (no empty slot, every one a deleted entry) could make a
// sequence as long as the table: past this many the keys are read one by one instead.
constexpr uint64_t kMaxHashProbes = 4096;

}  // namespace

RemoteCollections::RemoteCollections(ObjectReader& objects)
    : objects_(objects), memory_(objects.memory()), layout_(objects.layout()) {}

Result<RemoteCollections::Keys> RemoteCollections::ReadKeys(uint64_t keys_address) {
  if (!Aligned(keys_address)) return MakeError(fmt::format("bad dict keys pointer {:#x}", keys_address));
  const Layout::Dict& d = layout_.dict;
  const bool sized = d.keys_size != kAbsent;  // 3.6-3.10
  uint8_t header[48];
  const size_t header_size = sized ? static_cast<size_t>(d.keys_indices) : 32;
  if (header_size > sizeof header || !memory_.Read(keys_address, header, header_size)) {
    return UnreadableMemory(fmt::format("cannot read the dict keys at {:#x}", keys_address));
  }
  Keys keys;
  keys.address = keys_address;
  keys.indices = keys_address + header_size;
  if (sized) {
    // dk_size is a power of two; the index entries are as wide as it needs (DK_IXSIZE).
    int64_t size = 0;
    std::memcpy(&size, header + d.keys_size, 8);
    std::memcpy(&keys.entries, header + d.keys_nentries, 8);
    if (size <= 0 || (size & (size - 1)) != 0 || size > (int64_t{1} << 30)) {
      return MakeError(fmt::format("the dict keys at {:#x} are not plausible", keys_address));
    }
    keys.log2_size = static_cast<uint8_t>(__builtin_ctzll(static_cast<uint64_t>(size)));
    const int width_log2 = size <= 0xff ? 0 : size <= 0xffff ? 1 : 2;
    keys.log2_index_bytes = static_cast<uint8_t>(keys.log2_size + width_log2);
  } else {
    keys.log2_size = header[8];
    keys.log2_index_bytes = header[9];
    keys.unicode = header[10] != 0;
    std::memcpy(&keys.entries, header + 24, 8);
  }
  if (keys.log2_index_bytes > 30 || keys.entries < 0 ||
      static_cast<uint64_t>(keys.entries) > kMaxContainerEntries) {
    return MakeError(fmt::format("the dict keys at {:#x} are not plausible", keys_address));
  }
  keys.first_entry = keys.indices + (uint64_t{1} << keys.log2_index_bytes);
  return keys;
}

Result<RemoteCollections::DictTables> RemoteCollections::ReadDict(uint64_t dict) {
  if (!Aligned(dict)) return MakeError(fmt::format("bad dict pointer {:#x}", dict));
  auto keys_address = memory_.ReadPointer(dict + layout_.dict.ma_keys);
  auto values = memory_.ReadPointer(dict + layout_.dict.ma_values);
  if (!keys_address || !values) {
    return UnreadableMemory(fmt::format("cannot read the dict at {:#x}", dict));
  }
  PYU_ASSIGN_OR_RETURN(Keys keys, ReadKeys(*keys_address));
  return DictTables{keys, *values};
}

Status RemoteCollections::SpendEntries(uint64_t entries) {
  if (memory_.budget().Spend(Work::kContainerEntries, entries)) return Ok{};
  return memory_.budget().StopError();
}

Result<uint64_t> RemoteCollections::ValuesSlot(uint64_t values, int64_t index) {
  const uint64_t base = values + layout_.dict.values_header;
  auto value = memory_.ReadPointer(base + 8 * static_cast<uint64_t>(index));
  if (!value) return UnreadableMemory("cannot read a split dict's value");
  return *value;
}

Result<std::vector<std::pair<uint64_t, uint64_t>>> RemoteCollections::Python2DictItems(
    uint64_t dict, size_t max_entries) {
  const Layout::Dict& d = layout_.dict;
  auto used = memory_.ReadValue<int64_t>(dict + d.ma_used);
  auto mask = memory_.ReadValue<int64_t>(dict + d.ma_mask);
  auto table = memory_.ReadPointer(dict + d.ma_table);
  if (!used || !mask || !table || !Aligned(*table)) {
    return UnreadableMemory(fmt::format("cannot read the dict at {:#x}", dict));
  }
  // ma_mask + 1 slots, a power of two, of which ma_used hold an item.
  const uint64_t slots = static_cast<uint64_t>(*mask) + 1;
  if (*mask < 0 || slots > kMaxSetSlots || (slots & (slots - 1)) != 0 || *used < 0 ||
      static_cast<uint64_t>(*used) > slots) {
    return MakeError(fmt::format("the dict at {:#x} is not plausible", dict));
  }
  if (static_cast<size_t>(*used) > max_entries) {
    return MakeError(fmt::format("the dict at {:#x} has more than {} entries", dict, max_entries));
  }
  PYU_RETURN_IF_ERROR(SpendEntries(slots));
  // PyDictEntry { me_hash; me_key; me_value; }.
  std::vector<uint64_t> raw(slots * 3);
  const bool large = raw.size() * 8 > (1u << 20);  // read once, kept by no one
  if (!(large ? memory_.ReadUncached(*table, raw.data(), raw.size() * 8)
              : memory_.Read(*table, raw.data(), raw.size() * 8))) {
    return UnreadableMemory(fmt::format("cannot read the entries of the dict at {:#x}", dict));
  }
  std::vector<std::pair<uint64_t, uint64_t>> items;
  for (uint64_t i = 0; i < slots && items.size() < static_cast<size_t>(*used); ++i) {
    const uint64_t key = raw[3 * i + 1], value = raw[3 * i + 2];
    if (key == 0 || value == 0) continue;  // never used, or the dummy of a deleted key
    items.emplace_back(key, value);
  }
  return items;
}

Result<std::vector<std::pair<uint64_t, uint64_t>>> RemoteCollections::DictItems(
    uint64_t dict, size_t max_entries) {
  if (layout_.dict.ma_table != kAbsent) {
    if (!Aligned(dict)) return MakeError(fmt::format("bad dict pointer {:#x}", dict));
    return Python2DictItems(dict, max_entries);
  }
  PYU_ASSIGN_OR_RETURN(DictTables tables, ReadDict(dict));
  const Keys& keys = tables.keys;
  if (static_cast<size_t>(keys.entries) > max_entries) {
    return MakeError(fmt::format("the dict at {:#x} has more than {} entries", dict, max_entries));
  }
  PYU_RETURN_IF_ERROR(SpendEntries(keys.entries));
  const uint64_t entry_size = keys.EntrySize();
  std::vector<uint8_t> table(keys.entries * entry_size);
  if (!memory_.Read(keys.first_entry, table.data(), table.size())) {
    return UnreadableMemory(fmt::format("cannot read the entries of the dict at {:#x}", dict));
  }
  std::vector<std::pair<uint64_t, uint64_t>> items;
  for (int64_t i = 0; i < keys.entries; ++i) {
    const uint8_t* entry = table.data() + i * entry_size + keys.KeyOffset();
    uint64_t key, value;
    std::memcpy(&key, entry, 8);
    std::memcpy(&value, entry + 8, 8);
    if (key == 0) continue;
    if (tables.values != 0) {
      PYU_ASSIGN_OR_RETURN(value, ValuesSlot(tables.values, i));
    }
    if (value == 0) continue;  // deleted
    items.emplace_back(key, value);
  }
  return items;
}

Result<int64_t> RemoteCollections::KeyIndex(const Keys& keys, std::string_view key) {
  // Shared keys hold str keys only: 3.11+ marks them so; before, every entry keeps its hash.
  if (!keys.unicode && layout_.dict.keys_size == kAbsent) return int64_t{-1};
  if (auto index = IndexByHash(keys, key)) return *index;
  PYU_RETURN_IF_ERROR(SpendEntries(keys.entries));
  const uint64_t entry_size = keys.EntrySize();
  std::vector<uint8_t> table(keys.entries * entry_size);
  if (!memory_.Read(keys.first_entry, table.data(), table.size())) {
    return UnreadableMemory("cannot read a dict's entries");
  }
  for (int64_t i = 0; i < keys.entries; ++i) {
    uint64_t entry_key;
    std::memcpy(&entry_key, table.data() + i * entry_size + keys.KeyOffset(), 8);
    if (entry_key == 0) continue;
    auto text = objects_.ReadString(entry_key, key.size() + 1);
    if (text.ok() && *text == key) return i;
  }
  return int64_t{-1};
}

void RemoteCollections::CheckStrHasher(StrHasher& hasher, const Keys& keys) {
  for (int64_t i = 0; i < std::min<int64_t>(keys.entries, 4) && !hasher.checked(); ++i) {
    auto key = memory_.ReadPointer(keys.first_entry + i * keys.EntrySize() + keys.KeyOffset());
    if (!key || *key == 0) continue;
    // Longer than kMaxCheckedKeyChars: cut and marked, so not the key's whole text. Text
    // that is not ASCII the hasher leaves unchecked.
    auto text = objects_.ReadString(*key, kMaxCheckedKeyChars);
    auto cached = memory_.ReadValue<int64_t>(*key + layout_.unicode.length + 8);
    if (text.ok() && text->size() <= kMaxCheckedKeyChars && cached) hasher.Check(*text, *cached);
  }
}

std::optional<uint64_t> RemoteCollections::EntryValue(const DictTables& tables, int64_t index) {
  if (tables.values != 0) {
    auto value = ValuesSlot(tables.values, index);
    return value.ok() ? std::optional<uint64_t>(*value) : std::nullopt;
  }
  const Keys& keys = tables.keys;
  return memory_.ReadPointer(keys.first_entry + static_cast<uint64_t>(index) * keys.EntrySize() +
                             keys.KeyOffset() + 8);
}

std::optional<int64_t> RemoteCollections::IndexByHash(const Keys& keys, std::string_view key) {
  StrHasher* hasher = objects_.str_hasher();
  if (hasher == nullptr) return std::nullopt;
  const int width_log2 = keys.log2_index_bytes - keys.log2_size;
  if (keys.log2_size > 30 || width_log2 < 0 || width_log2 > 3) return std::nullopt;
  if (!hasher->checked()) CheckStrHasher(*hasher, keys);
  const std::optional<int64_t> hash = hasher->Hash(key);
  if (!hash) return std::nullopt;

  const uint64_t mask = (uint64_t{1} << keys.log2_size) - 1;
  const size_t width = size_t{1} << width_log2;
  uint64_t perturb = static_cast<uint64_t>(*hash);
  uint64_t slot = static_cast<uint64_t>(*hash) & mask;
  // Once `perturb` is 0 the sequence visits every slot; a table always has an empty one.
  const uint64_t max_probes = std::min(mask + 17, kMaxHashProbes);
  for (uint64_t probe = 0; probe < max_probes; ++probe) {
    if (!SpendEntries(1).ok()) return std::nullopt;
    uint64_t raw = 0;
    if (!memory_.Read(keys.indices + slot * width, &raw, width)) return std::nullopt;
    // Sign-extended: -1 empty, -2 a deleted entry.
    const int64_t index = static_cast<int64_t>(raw << (64 - 8 * width)) >> (64 - 8 * width);
    if (index == -1) return int64_t{-1};  // absent
    if (index >= keys.entries || index < -2) return std::nullopt;
    if (index >= 0) {
      const uint64_t entry = keys.first_entry + static_cast<uint64_t>(index) * keys.EntrySize();
      std::optional<int64_t> entry_hash = *hash;  // a str-keys entry holds none
      if (!keys.unicode) entry_hash = memory_.ReadValue<int64_t>(entry);
      auto entry_key = memory_.ReadPointer(entry + keys.KeyOffset());
      if (!entry_hash || !entry_key) return std::nullopt;
      if (*entry_hash == *hash && *entry_key != 0) {
        auto text = objects_.ReadString(*entry_key, key.size() + 1);
        if (text.ok() && *text == key) return index;
      }
    }
    perturb >>= 5;  // PERTURB_SHIFT
    slot = (slot * 5 + perturb + 1) & mask;
  }
  return std::nullopt;
}

Result<uint64_t> RemoteCollections::DictGetString(uint64_t dict, std::string_view key) {
  // By the key's hash where that settles it; else every key is read.
  if (objects_.str_hasher() != nullptr && layout_.dict.ma_table == kAbsent) {
    if (auto tables = ReadDict(dict); tables.ok()) {
      if (auto index = IndexByHash(tables->keys, key)) {
        if (*index < 0) return uint64_t{0};
        if (auto value = EntryValue(*tables, *index)) return *value;
      }
    }
  }
  PYU_ASSIGN_OR_RETURN(auto items, DictItems(dict));
  for (const auto& [k, v] : items) {
    auto text = objects_.ReadString(k, key.size() + 1);
    if (text.ok() && *text == key) return v;
  }
  return uint64_t{0};
}

Result<std::vector<uint64_t>> RemoteCollections::SetItems(uint64_t set, size_t max_entries,
                                                          size_t* cut) {
  if (cut) *cut = 0;
  if (!Aligned(set)) return MakeError(fmt::format("bad set pointer {:#x}", set));
  auto mask = memory_.ReadValue<int64_t>(set + layout_.set.mask);
  auto table = memory_.ReadPointer(set + layout_.set.table);
  if (!mask || !table || !Aligned(*table)) {
    return UnreadableMemory(fmt::format("cannot read the set at {:#x}", set));
  }
  if (*mask < 0 || static_cast<uint64_t>(*mask) + 1 > kMaxSetSlots) {
    return MakeError(fmt::format("the set at {:#x} has an implausible size", set));
  }
  const uint64_t slots = static_cast<uint64_t>(*mask) + 1;
  PYU_RETURN_IF_ERROR(SpendEntries(slots));
  std::vector<uint64_t> raw(slots * 2);
  // A large table is read past the page cache: read once, kept by no one.
  const bool large = raw.size() * 8 > (1u << 20);
  if (!(large ? memory_.ReadUncached(*table, raw.data(), raw.size() * 8)
              : memory_.Read(*table, raw.data(), raw.size() * 8))) {
    return UnreadableMemory(fmt::format("cannot read the table of the set at {:#x}", set));
  }
  std::vector<uint64_t> items;
  for (uint64_t i = 0; i < slots; ++i) {
    const uint64_t key = raw[2 * i + layout_.set.entry_key / 8];
    const int64_t hash = static_cast<int64_t>(raw[2 * i + layout_.set.entry_hash / 8]);
    if (key == 0 || hash == -1) continue;  // empty, or the dummy of a deleted key
    if (items.size() >= max_entries) {
      if (!cut) {
        return MakeError(fmt::format("the set at {:#x} has more than {} members", set, max_entries));
      }
      ++*cut;
      continue;
    }
    items.push_back(key);
  }
  return items;
}

Result<std::vector<uint64_t>> RemoteCollections::ListItems(uint64_t list, size_t max_entries) {
  if (!Aligned(list)) return MakeError(fmt::format("bad list pointer {:#x}", list));
  const Layout::List& l = layout_.list;
  auto size = memory_.ReadValue<int64_t>(list + l.ob_size);
  auto items = memory_.ReadPointer(list + l.ob_item);
  if (!size || !items) return UnreadableMemory(fmt::format("cannot read the list at {:#x}", list));
  if (*size < 0 || static_cast<uint64_t>(*size) > max_entries) {
    return MakeError(fmt::format("the list at {:#x} has an implausible size {}", list, *size));
  }
  PYU_RETURN_IF_ERROR(SpendEntries(*size));
  std::vector<uint64_t> out(*size);
  if (*size > 0 && (!Aligned(*items) || !memory_.Read(*items, out.data(), out.size() * 8))) {
    return UnreadableMemory(fmt::format("cannot read the items of the list at {:#x}", list));
  }
  return out;
}

Result<std::vector<uint64_t>> RemoteCollections::TupleItems(uint64_t tuple, size_t max_entries) {
  PYU_ASSIGN_OR_RETURN(TupleHead head, TupleFirstItems(tuple, max_entries, max_entries));
  return std::move(head.items);
}

Result<RemoteCollections::TupleHead> RemoteCollections::TupleFirstItems(uint64_t tuple,
                                                                        size_t keep,
                                                                        uint64_t max_size) {
  if (!Aligned(tuple)) return MakeError(fmt::format("bad tuple pointer {:#x}", tuple));
  const Layout::Tuple& t = layout_.tuple;
  auto size = memory_.ReadValue<int64_t>(tuple + t.ob_size);
  if (!size) return UnreadableMemory(fmt::format("cannot read the tuple at {:#x}", tuple));
  if (*size < 0 || static_cast<uint64_t>(*size) > max_size) {
    return MakeError(fmt::format("the tuple at {:#x} has an implausible size {}", tuple, *size));
  }
  TupleHead head;
  head.size = static_cast<uint64_t>(*size);
  const size_t read = std::min<uint64_t>(head.size, keep);
  PYU_RETURN_IF_ERROR(SpendEntries(read));
  head.items.resize(read);
  if (read > 0 && !memory_.Read(tuple + t.ob_item, head.items.data(), read * 8)) {
    return UnreadableMemory(fmt::format("cannot read the items of the tuple at {:#x}", tuple));
  }
  return head;
}

Result<uint64_t> RemoteCollections::WeakrefTarget(uint64_t weakref) {
  if (!Aligned(weakref)) return MakeError(fmt::format("bad weakref pointer {:#x}", weakref));
  auto target = memory_.ReadPointer(weakref + layout_.weakref.wr_object);
  if (!target) return UnreadableMemory(fmt::format("cannot read the weakref at {:#x}", weakref));
  return *target;
}

Result<std::pair<uint64_t, uint64_t>> RemoteCollections::BoundMethod(uint64_t method) {
  if (!Aligned(method)) return MakeError(fmt::format("bad method pointer {:#x}", method));
  auto func = memory_.ReadPointer(method + layout_.method.im_func);
  auto self = memory_.ReadPointer(method + layout_.method.im_self);
  if (!func || !self) {
    return UnreadableMemory(fmt::format("cannot read the method at {:#x}", method));
  }
  return std::make_pair(*func, *self);
}

Result<std::string> RemoteCollections::FunctionQualname(uint64_t function) {
  if (!Aligned(function)) return MakeError(fmt::format("bad function pointer {:#x}", function));
  auto qualname = memory_.ReadPointer(function + layout_.function.func_qualname);
  if (!qualname) {
    return UnreadableMemory(fmt::format("cannot read the function at {:#x}", function));
  }
  return objects_.ReadString(*qualname);
}

namespace {
constexpr int32_t kMemberObjectEx = 16;  // T_OBJECT_EX (Py_T_OBJECT_EX): a __slots__ entry
}  // namespace

Result<uint64_t> RemoteCollections::SlotAttribute(uint64_t object, std::string_view name) {
  const Layout::Type& t = layout_.type;
  if (t.tp_dict == kAbsent || t.tp_base == kAbsent || t.tp_basicsize == kAbsent ||
      layout_.descriptor.d_member == kAbsent || layout_.member_def.offset == kAbsent) {
    return MakeError("the layout does not say where a class keeps its slots");
  }
  PYU_ASSIGN_OR_RETURN(uint64_t type, objects_.TypeOf(object));
  auto basicsize = memory_.ReadValue<int64_t>(type + t.tp_basicsize);
  if (!basicsize) return UnreadableMemory(fmt::format("cannot read the type of {:#x}", object));
  uint64_t descriptor = 0;
  size_t bases = 0;
  for (uint64_t base = type; base != 0 && descriptor == 0;) {
    if (++bases > kMaxBaseClasses) {
      return MakeError(fmt::format("more than {} base classes", kMaxBaseClasses));
    }
    auto dict = memory_.ReadPointer(base + t.tp_dict);
    auto next = memory_.ReadPointer(base + t.tp_base);
    if (!dict || !next) return UnreadableMemory(fmt::format("cannot read the class {:#x}", base));
    if (*dict != 0) {
      PYU_ASSIGN_OR_RETURN(descriptor, DictGetString(*dict, name));
    }
    base = *next;
  }
  if (descriptor == 0) return uint64_t{0};
  // A member descriptor's PyMemberDef names the slot and says it holds an object. Told by
  // that, not by the descriptor's type name, which a core without its executable lacks.
  const Layout::MemberDef& m = layout_.member_def;
  auto member = memory_.ReadPointer(descriptor + layout_.descriptor.d_member);
  if (!member || !Aligned(*member)) return uint64_t{0};  // a property, a method: no slot
  auto member_name = memory_.ReadPointer(*member + m.name);
  auto member_type = memory_.ReadValue<int32_t>(*member + m.type);
  auto offset = memory_.ReadValue<int64_t>(*member + m.offset);
  if (!member_name || !member_type || !offset || *member_type != kMemberObjectEx) {
    return uint64_t{0};
  }
  auto defined = objects_.ReadCString(*member_name, name.size() + 1);
  if (!defined.ok() || *defined != name) return uint64_t{0};
  // The slot lies inside the instance its class lays out.
  if (*offset < 16 || *offset + 8 > *basicsize) {
    return MakeError(fmt::format("slot {} at {} is outside its {}-byte instance", name, *offset,
                                 *basicsize));
  }
  auto value = memory_.ReadPointer(object + static_cast<uint64_t>(*offset));
  if (!value) return UnreadableMemory(fmt::format("cannot read slot {} of {:#x}", name, object));
  return *value;
}

Result<std::vector<uint64_t>> RemoteCollections::DequeItems(uint64_t deque, size_t max_entries) {
  const Layout::Deque& d = layout_.deque;
  if (d.leftblock == kAbsent || d.block_slots <= 0) return MakeError("the layout has no deque");
  auto size = memory_.ReadValue<int64_t>(deque + layout_.object.ob_size);
  auto left = memory_.ReadPointer(deque + d.leftblock);
  auto right = memory_.ReadPointer(deque + d.rightblock);
  auto left_index = memory_.ReadValue<int64_t>(deque + d.leftindex);
  auto right_index = memory_.ReadValue<int64_t>(deque + d.rightindex);
  if (!size || !left || !right || !left_index || !right_index) {
    return UnreadableMemory(fmt::format("cannot read the deque at {:#x}", deque));
  }
  if (*size < 0 || static_cast<uint64_t>(*size) > max_entries) {
    return MakeError(fmt::format("a deque of {} items", *size));
  }
  if (*left_index < 0 || *left_index > d.block_slots || *right_index < -1 ||
      *right_index >= d.block_slots) {
    return MakeError(fmt::format("the deque at {:#x} is damaged", deque));
  }
  PYU_RETURN_IF_ERROR(SpendEntries(static_cast<uint64_t>(*size)));
  const uint64_t right_link = static_cast<uint64_t>(d.block_data) + 8 * static_cast<uint64_t>(d.block_slots);
  std::vector<uint64_t> items;
  uint64_t block = *left;
  int64_t index = *left_index;
  for (int64_t n = 0; n < *size; ++n, ++index) {
    if (index == d.block_slots) {  // on to the next block
      auto next = memory_.ReadPointer(block + right_link);
      if (!next || *next == 0) return UnreadableMemory(fmt::format("a broken deque at {:#x}", deque));
      block = *next;
      index = 0;
    }
    auto item = memory_.ReadPointer(block + static_cast<uint64_t>(d.block_data) + 8 * static_cast<uint64_t>(index));
    if (!item) return UnreadableMemory(fmt::format("cannot read the deque at {:#x}", deque));
    items.push_back(*item);
  }
  // Its last item where the deque says it ends.
  if (*size > 0 && (block != *right || index - 1 != *right_index)) {
    return MakeError(fmt::format("the deque at {:#x} is damaged", deque));
  }
  return items;
}

Result<RemoteCollections::InstanceStorage> RemoteCollections::StorageOf(uint64_t object) {
  PYU_ASSIGN_OR_RETURN(uint64_t type, objects_.TypeOf(object));
  const Layout::Type& t = layout_.type;
  if (t.tp_flags == kAbsent || t.tp_dictoffset == kAbsent || t.tp_basicsize == kAbsent) {
    return MakeError("the layout does not say where a type keeps its instance dicts");
  }
  auto flags = memory_.ReadValue<uint64_t>(type + t.tp_flags);
  auto dictoffset = memory_.ReadValue<int64_t>(type + t.tp_dictoffset);
  auto basicsize = memory_.ReadValue<int64_t>(type + t.tp_basicsize);
  if (!flags || !dictoffset || !basicsize) {
    return UnreadableMemory(fmt::format("cannot read the type of {:#x}", object));
  }
  InstanceStorage storage{type, 0, 0};
  if (*dictoffset > 0 && *dictoffset < (1 << 20)) {
    auto dict = memory_.ReadPointer(object + *dictoffset);
    if (!dict) return UnreadableMemory(fmt::format("cannot read the dict of {:#x}", object));
    storage.dict = *dict;
    return storage;
  }
  // 2.7 has no managed dicts (its bit 4 is Py_TPFLAGS_CHECKTYPES).
  if (!(*flags & kManagedDictFlag) || IsPython2(layout_)) return storage;
  const Layout::ManagedDict& m = layout_.managed_dict;
  if (m.dict_before == kAbsent) return MakeError("the layout does not say where managed dicts are");
  auto dict = memory_.ReadPointer(object - m.dict_before);
  if (!dict) return UnreadableMemory(fmt::format("cannot read the managed dict of {:#x}", object));
  if (m.values_before != kAbsent && *dict == 0) {
    auto values = memory_.ReadPointer(object - m.values_before);
    if (values) storage.values = *values;
    return storage;
  }
  if (m.values_tagged && (*dict & 1)) {
    storage.values = *dict + 1;
    return storage;
  }
  if (m.values_inline && (*flags & kInlineValuesFlag)) {  // while they are valid
    const uint64_t values = object + *basicsize;
    auto valid = memory_.ReadValue<uint8_t>(values + m.inline_valid);
    if (valid && *valid) {
      storage.values = values;
      return storage;
    }
  }
  storage.dict = *dict;
  return storage;
}

Result<uint64_t> RemoteCollections::InstanceDict(uint64_t object) {
  PYU_ASSIGN_OR_RETURN(InstanceStorage storage, StorageOf(object));
  return storage.dict;
}

Result<uint64_t> RemoteCollections::InstanceAttribute(uint64_t object, std::string_view name) {
  PYU_ASSIGN_OR_RETURN(InstanceStorage storage, StorageOf(object));
  if (storage.values != 0) {
    const Layout::Type& t = layout_.type;
    if (t.ht_cached_keys == kAbsent) return MakeError("the layout does not say where a class keeps its shared keys");
    auto keys_address = memory_.ReadPointer(storage.type + t.ht_cached_keys);
    if (!keys_address) return UnreadableMemory("cannot read a class's shared keys");
    PYU_ASSIGN_OR_RETURN(Keys keys, ReadKeys(*keys_address));
    PYU_ASSIGN_OR_RETURN(int64_t index, KeyIndex(keys, name));
    if (index < 0) return uint64_t{0};
    return ValuesSlot(storage.values, index);
  }
  if (storage.dict == 0) return uint64_t{0};
  return DictGetString(storage.dict, name);
}

}  // namespace pyunwind
