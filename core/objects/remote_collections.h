// Reading CPython containers out of the target: dicts (any key type), sets,
// lists, tuples, weak references, bound methods, and the attributes of
// instances of Python classes (managed dicts, split "values" tables, inline
// values of 3.13+). Everything is bounded by an entry cap; nothing follows a
// pointer it has not read itself; bad memory gives an error, never a crash.
// Reusable beyond asyncio (locals, reprs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/limits.h"
#include "core/objects/objects.h"
#include "core/base/result.h"

namespace pyunwind {

class RemoteCollections {
 public:
  explicit RemoteCollections(ObjectReader& objects);

  // (key, value) pairs of a dict, in insertion order, split tables included.
  Result<std::vector<std::pair<uint64_t, uint64_t>>> DictItems(
      uint64_t dict, size_t max_entries = kMaxContainerEntries);
  // The value under a str key of any dict (0 when absent).
  Result<uint64_t> DictGetString(uint64_t dict, std::string_view key);

  // The members of a set or frozenset. More than `max_entries` is an error,
  // unless `cut` is given: then the first `max_entries` are returned and
  // *cut counts the members left out.
  Result<std::vector<uint64_t>> SetItems(uint64_t set, size_t max_entries = kMaxContainerEntries,
                                         size_t* cut = nullptr);
  Result<std::vector<uint64_t>> ListItems(uint64_t list, size_t max_entries = kMaxContainerEntries);
  Result<std::vector<uint64_t>> TupleItems(uint64_t tuple,
                                           size_t max_entries = kMaxContainerEntries);
  // The first `keep` items of a tuple and how many it holds; a size over
  // `max_size` is refused as implausible.
  struct TupleHead {
    std::vector<uint64_t> items;
    uint64_t size = 0;
  };
  Result<TupleHead> TupleFirstItems(uint64_t tuple, size_t keep, uint64_t max_size);

  // The items of a collections.deque, left to right; more than `max_entries` is an error.
  Result<std::vector<uint64_t>> DequeItems(uint64_t deque,
                                           size_t max_entries = kMaxContainerEntries);

  // The referent of a weakref: Py_None once it is dead.
  Result<uint64_t> WeakrefTarget(uint64_t weakref);
  // im_func and im_self of a bound method object.
  Result<std::pair<uint64_t, uint64_t>> BoundMethod(uint64_t method);
  // func_qualname of a function object.
  Result<std::string> FunctionQualname(uint64_t function);

  // An attribute stored in the instance dict of `object` (not class
  // attributes, not descriptors). 0 when absent.
  Result<uint64_t> InstanceAttribute(uint64_t object, std::string_view name);
  // The dict object of an instance of a Python class, 0 where it has none (no dict yet, its
  // attributes in a values table of its own, or none at all).
  Result<uint64_t> InstanceDict(uint64_t object);
  // A __slots__ attribute of `object`: the member descriptor `name` in the dict of its class
  // or of a base (kMaxBaseClasses of them) says where the instance keeps it. 0 when absent or
  // unset.
  Result<uint64_t> SlotAttribute(uint64_t object, std::string_view name);

  ObjectReader& objects() { return objects_; }

 private:
  // Where an instance keeps its attributes: its dict object, else a values table (split
  // keys: the type's ht_cached_keys); both 0 where it keeps none.
  struct InstanceStorage {
    uint64_t type = 0;
    uint64_t dict = 0;
    uint64_t values = 0;
  };
  Result<InstanceStorage> StorageOf(uint64_t object);
  // A PyDictKeysObject: a header, 2**log2_size indices of 2**(log2_index_bytes - log2_size)
  // bytes each, then the entries: {key, value} where all keys are str ("unicode"), else
  // {hash, key, value}.
  struct Keys {
    uint64_t address = 0;
    uint64_t indices = 0;  // dk_indices
    bool unicode = false;
    uint8_t log2_size = 0;
    uint8_t log2_index_bytes = 0;
    int64_t entries = 0;
    uint64_t first_entry = 0;
    uint64_t EntrySize() const { return unicode ? 16 : 24; }
    uint64_t KeyOffset() const { return unicode ? 0 : 8; }  // in an entry
  };
  Result<Keys> ReadKeys(uint64_t keys_address);
  // 2.7's dict: its open-addressing table, in slot order.
  Result<std::vector<std::pair<uint64_t, uint64_t>>> Python2DictItems(uint64_t dict,
                                                                      size_t max_entries);
  // A dict's keys, and its values where the table is split (0 otherwise).
  struct DictTables {
    Keys keys;
    uint64_t values = 0;
  };
  Result<DictTables> ReadDict(uint64_t dict);
  // Index of a str key in a keys table whose keys are all strings, or -1.
  Result<int64_t> KeyIndex(const Keys& keys, std::string_view key);
  Result<uint64_t> ValuesSlot(uint64_t values, int64_t index);
  // The value of entry `index` (in the split values where there are); null if unreadable.
  std::optional<uint64_t> EntryValue(const DictTables& tables, int64_t index);
  // The entry index of a str key found by its hash, probing the index as CPython does (-1:
  // absent); null where that cannot settle it (no hash secret, not yet checked against the
  // target, a damaged table) and every key must be read instead.
  std::optional<int64_t> IndexByHash(const Keys& keys, std::string_view key);
  // Checks the str hasher against the cached hash of a key of `keys`.
  void CheckStrHasher(StrHasher& hasher, const Keys& keys);
  // Counts entries against the command's work budget; the budget's reason once it ran out.
  Status SpendEntries(uint64_t entries);

  ObjectReader& objects_;
  RemoteMemory& memory_;
  const Layout& layout_;
};

}  // namespace pyunwind
