// CPython's hash() of a str, as the target computes it, so that a dict is searched the way
// CPython searches it (one probe sequence, RemoteCollections::DictGetString) instead of by
// reading every key: finding "threading" in sys.modules read 41 pages of key strings of
// the `scale` scenario, the probe reads three.
//
// A str's hash is SipHash-1-3 of its characters (Python/pyhash.c: _Py_HashBytes over the
// 1, 2 or 4-byte units), keyed with the process's random _Py_HashSecret (PYTHONHASHSEED).
// Builds can choose another algorithm (--with-hash-algorithm) or a cutoff for short strings,
// so the hasher is trusted only after it gave the hash the target itself cached for a str.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/target/memory.h"

namespace pyunwind {

// The siphash keys of _Py_HashSecret (its first 16 bytes).
struct HashSecret {
  uint64_t k0 = 0;
  uint64_t k1 = 0;
};

// SipHash-1-3 of `size` bytes, as CPython's pyhash.c computes it.
uint64_t SipHash13(const HashSecret& secret, const uint8_t* data, size_t size);

// _Py_HashSecret of the target, through the debugger's symbol look-up; null without symbols
// (a core without its executable) or when the variable cannot be read.
std::optional<HashSecret> ReadHashSecret(RemoteMemory& memory);

class StrHasher {
 public:
  explicit StrHasher(HashSecret secret) : secret_(secret) {}

  // hash(text) for an ASCII text, once a check agreed with the target; null before, after a
  // check disagreed, and for other text.
  std::optional<int64_t> Hash(std::string_view ascii) const;
  // Compares hash(text) with `cached`, the hash the target stored in its str of that ASCII
  // text (-1: not computed, which decides nothing). The first comparison decides.
  void Check(std::string_view ascii, int64_t cached);
  bool checked() const { return verdict_ != Verdict::kUnchecked; }

 private:
  // hash(text) of an ASCII text, unchecked.
  std::optional<int64_t> Compute(std::string_view ascii) const;

  enum class Verdict { kUnchecked, kAgrees, kDisagrees };
  HashSecret secret_;
  Verdict verdict_ = Verdict::kUnchecked;
};

}  // namespace pyunwind
