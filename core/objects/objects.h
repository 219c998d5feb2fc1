// Reading Python objects out of the target: types, strings, bytes, ints.
// Every length and count is bounded; nothing here follows a pointer it has
// not read itself. Each object kind's header is decoded here only; reprs
// (values.h) and containers (remote_collections.h) build on these readers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout/layout.h"
#include "core/objects/str_hash.h"
#include "core/target/memory.h"
#include "core/base/result.h"

namespace pyunwind {

// A str object's text: its first characters, and how many it has in all.
struct StrText {
  std::u32string text;
  uint64_t length = 0;
  bool truncated() const { return length > text.size(); }
};

// An int object: its sign and magnitude as little-endian 30-bit digits.
struct IntDigits {
  bool negative = false;
  uint64_t count = 0;            // digits the int has
  std::vector<uint32_t> digits;  // empty when `count` exceeded what the caller wanted
};

class ObjectReader {
 public:
  ObjectReader(RemoteMemory& memory, const Layout& layout) : memory_(memory), layout_(layout) {}

  // The type object of `object`.
  Result<uint64_t> TypeOf(uint64_t object);
  // tp_name of a type object (cut after 256 bytes, marked "..."), and of an object's type.
  Result<std::string> TypeNameOfType(uint64_t type);
  Result<std::string> TypeName(uint64_t object_address);
  // A NUL-terminated C string (a type's or a C function's name), cut after
  // `max_length` bytes (marked "...").
  Result<std::string> ReadCString(uint64_t address, size_t max_length);

  // A compact str object's first `max_chars` characters (2.7: a str or unicode object's).
  Result<StrText> ReadStrText(uint64_t address, size_t max_chars);
  // A str object as UTF-8. Text beyond `max_chars` characters is cut and
  // marked with "...".
  Result<std::string> ReadString(uint64_t address, size_t max_chars = kMaxStringLength);

  // A bytes object's contents, refused when longer than `max_size`.
  Result<std::string> ReadBytes(uint64_t address, size_t max_size);

  // An int object's digits; `digits` is left empty past `max_digits`.
  Result<IntDigits> ReadIntDigits(uint64_t address, size_t max_digits);
  // An int object that fits in 60 bits.
  Result<int64_t> ReadInt(uint64_t address);

  // The value stored under a str key of a dict (0 when the key is absent);
  // RemoteCollections::DictGetString.
  Result<uint64_t> LookupStringKey(uint64_t dict_address, std::string_view key);

  // The tp_flags of an object's type (type_flags.h).
  Result<uint64_t> TypeFlagsOf(uint64_t object);

  // How many strong references the object has (ob_refcnt); an error on free-threaded builds,
  // whose count is split between the owning thread and the others.
  Result<uint64_t> Refcount(uint64_t object);

  RemoteMemory& memory() { return memory_; }
  const Layout& layout() const { return layout_; }

  // The target's str hash (str_hash.h), for dict look-ups by hash; none without its secret.
  void UseHashSecret(std::optional<HashSecret> secret) {
    str_hasher_.reset();
    if (secret) str_hasher_.emplace(*secret);
  }
  StrHasher* str_hasher() { return str_hasher_ ? &*str_hasher_ : nullptr; }

 private:
  // 2.7: a str (bytes, as UTF-8 text where they are) or a unicode object.
  Result<StrText> ReadPython2Text(uint64_t address, size_t max_chars);
  // 2.7: a PyIntObject, as digits.
  Result<IntDigits> ReadPython2Int(uint64_t address);

  RemoteMemory& memory_;
  const Layout& layout_;
  std::optional<StrHasher> str_hasher_;
};

}  // namespace pyunwind
