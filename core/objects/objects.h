// Reading Python objects out of the target: strings, bytes, ints, dicts.
// Every length and count is bounded; nothing here follows a pointer it has
// not read itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/layout/layout.h"
#include "core/target/memory.h"
#include "core/base/result.h"

namespace pyunwind {

class ObjectReader {
 public:
  ObjectReader(RemoteMemory& memory, const Layout& layout) : memory_(memory), layout_(layout) {}

  // A str object as UTF-8. Text beyond `max_chars` characters is cut and
  // marked with "...".
  Result<std::string> ReadString(uint64_t address, size_t max_chars = kMaxStringLength);

  // A bytes object's contents, refused when longer than `max_size`.
  Result<std::string> ReadBytes(uint64_t address, size_t max_size);

  // An int object that fits in 64 bits.
  Result<int64_t> ReadInt(uint64_t address);

  // The value stored under a str key in a dict whose keys are all strings
  // (module and sys dicts). Returns 0 when the key is absent.
  Result<uint64_t> LookupStringKey(uint64_t dict_address, std::string_view key);

  // tp_name of the object's type.
  Result<std::string> TypeName(uint64_t object_address);

  RemoteMemory& memory() { return memory_; }
  const Layout& layout() const { return layout_; }

 private:
  RemoteMemory& memory_;
  const Layout& layout_;
};

// Appends the UTF-8 encoding of `code_point` (replacement character for invalid ones).
void AppendUtf8(std::string& out, uint32_t code_point);

}  // namespace pyunwind
