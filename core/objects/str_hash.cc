#include "core/objects/str_hash.h"

#include <type_traits>

namespace pyunwind {
namespace {

constexpr uint64_t Rotate(uint64_t x, int bits) { return (x << bits) | (x >> (64 - bits)); }

struct SipState {
  uint64_t v0, v1, v2, v3;

  void Round() {
    v0 += v1;
    v2 += v3;
    v1 = Rotate(v1, 13) ^ v0;
    v3 = Rotate(v3, 16) ^ v2;
    v0 = Rotate(v0, 32);
    v2 += v1;
    v0 += v3;
    v1 = Rotate(v1, 17) ^ v2;
    v3 = Rotate(v3, 21) ^ v0;
    v2 = Rotate(v2, 32);
  }
  // One compression round per 8-byte word: the "1" of SipHash-1-3.
  void Absorb(uint64_t word) {
    v3 ^= word;
    Round();
    v0 ^= word;
  }
};

uint64_t LittleEndianWord(const uint8_t* bytes, size_t count) {
  uint64_t word = 0;
  for (size_t i = 0; i < count; ++i) word |= uint64_t{bytes[i]} << (8 * i);
  return word;
}

}  // namespace

uint64_t SipHash13(const HashSecret& secret, const uint8_t* data, size_t size) {
  SipState s{secret.k0 ^ 0x736f6d6570736575ULL, secret.k1 ^ 0x646f72616e646f6dULL,
             secret.k0 ^ 0x6c7967656e657261ULL, secret.k1 ^ 0x7465646279746573ULL};
  const size_t whole = size / 8 * 8;
  for (size_t i = 0; i < whole; i += 8) s.Absorb(LittleEndianWord(data + i, 8));
  s.Absorb((uint64_t{size} << 56) | LittleEndianWord(data + whole, size - whole));
  // Finalisation: three rounds, the "3".
  s.v2 ^= 0xff;
  s.Round();
  s.Round();
  s.Round();
  return (s.v0 ^ s.v1) ^ (s.v2 ^ s.v3);
}

std::optional<HashSecret> ReadHashSecret(RemoteMemory& memory) {
  const std::optional<uint64_t> address = memory.target().FindSymbol("_Py_HashSecret");
  if (!address) return std::nullopt;
  static_assert(std::is_trivially_copyable_v<HashSecret> && sizeof(HashSecret) == 16);
  HashSecret secret;
  if (!memory.Read(*address, &secret, sizeof secret)) return std::nullopt;
  return secret;
}

std::optional<int64_t> StrHasher::Compute(std::string_view ascii) const {
  for (char c : ascii) {
    if (static_cast<unsigned char>(c) >= 0x80) return std::nullopt;
  }
  if (ascii.empty()) return 0;
  // An ASCII str stores one byte per character: these bytes are what CPython hashes.
  const auto hash = static_cast<int64_t>(
      SipHash13(secret_, reinterpret_cast<const uint8_t*>(ascii.data()), ascii.size()));
  return hash == -1 ? -2 : hash;  // -1 means "not computed" in a str
}

std::optional<int64_t> StrHasher::Hash(std::string_view ascii) const {
  if (verdict_ != Verdict::kAgrees) return std::nullopt;
  return Compute(ascii);
}

void StrHasher::Check(std::string_view ascii, int64_t cached) {
  if (checked() || cached == -1) return;
  const std::optional<int64_t> mine = Compute(ascii);
  if (!mine) return;
  verdict_ = *mine == cached ? Verdict::kAgrees : Verdict::kDisagrees;
}

}  // namespace pyunwind
