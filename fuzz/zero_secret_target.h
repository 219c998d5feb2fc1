// The target the fuzz target and the seed maker run the commands on: a core's, with the symbol
// _Py_HashSecret answered by a page of zeros below every mapping, the secret of a process
// started with PYTHONHASHSEED=0. A seed made from such a process reaches the dict look-ups by
// hash (core/objects/str_hash.h) with the dicts' index tables under mutation; every other seed
// reaches the check that refuses a secret the target's own hashes disagree with.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "core/target/forwarding_target.h"

namespace pyunwind::fuzz {

class ZeroHashSecretTarget final : public ForwardingTarget {
 public:
  // Page 1, which no CPython process maps (a core's own page there would be shadowed).
  static constexpr uint64_t kSecretPage = 0x1000;
  static constexpr uint64_t kPageSize = 4096;

  explicit ZeroHashSecretTarget(Target& inner) : ForwardingTarget(&inner) {}

  bool ReadMemory(uint64_t address, void* out, size_t size) override {
    if (address >= kSecretPage && address - kSecretPage < kPageSize &&
        size <= kSecretPage + kPageSize - address) {
      std::memset(out, 0, size);
      return true;
    }
    return ForwardingTarget::ReadMemory(address, out, size);
  }
  std::optional<uint64_t> FindSymbol(std::string_view name) override {
    if (name == "_Py_HashSecret") return kSecretPage;
    return ForwardingTarget::FindSymbol(name);
  }
};

}  // namespace pyunwind::fuzz
