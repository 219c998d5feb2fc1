// core/objects/str_hash.h: CPython's str hash, checked against what a Python process
// computes (its own _Py_HashSecret, with a fixed and a random seed), and dict look-ups by
// hash (RemoteCollections::DictGetString) over tables laid out the way CPython lays them out.
#include "core/objects/str_hash.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/objects/remote_collections.h"
#include "tests/fake_python.h"
#include "tests/fake_target.h"

namespace pyunwind {
namespace {

constexpr char kPython[] = "/usr/bin/python3.11";
const std::vector<std::string> kWords = {"threading", "", "a", "_active", "asyncio.tasks",
                                         "abcdefgh", std::string(100, 'x')};

// The process's hash secret (the first line) and hash() of each of kWords.
std::pair<HashSecret, std::vector<int64_t>> AskPython(const std::string& seed_env) {
  std::string script =
      "import ctypes\n"
      "s = ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(ctypes.pythonapi, "
      "'_Py_HashSecret')), 16)\n"
      "print(int.from_bytes(s[:8], 'little'), int.from_bytes(s[8:], 'little'))\n"
      "for w in [";
  for (const std::string& word : kWords) script += "'" + word + "', ";
  script += "]: print(hash(w))\n";
  const std::string command = seed_env + " " + kPython + " -c \"" + script + "\"";
  FILE* pipe = popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  for (size_t n; pipe && (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  if (pipe) pclose(pipe);
  std::istringstream in(out);
  HashSecret secret;
  in >> secret.k0 >> secret.k1;
  std::vector<int64_t> hashes;
  for (int64_t h; in >> h;) hashes.push_back(h);
  return {secret, hashes};
}

TEST(StrHash, GivesWhatAPythonProcessGives) {
  if (access(kPython, X_OK) != 0) GTEST_SKIP() << kPython << " is not installed";
  for (const std::string seed : {"PYTHONHASHSEED=1234", "PYTHONHASHSEED=0", ""}) {
    SCOPED_TRACE(seed.empty() ? "a random seed" : seed);
    const auto [secret, hashes] = AskPython(seed);
    ASSERT_EQ(hashes.size(), kWords.size());
    StrHasher hasher(secret);
    EXPECT_FALSE(hasher.Hash(kWords[0])) << "not trusted before a check";
    hasher.Check(kWords[0], hashes[0]);
    for (size_t i = 0; i < kWords.size(); ++i) {
      EXPECT_EQ(hasher.Hash(kWords[i]), hashes[i]) << "hash('" << kWords[i] << "')";
    }
    EXPECT_FALSE(hasher.Hash("gr\xc3\xb6\xc3\x9f" "e")) << "only ASCII text is hashed here";
  }
}

TEST(StrHash, ACheckThatDisagreesTurnsItOff) {
  StrHasher hasher(HashSecret{1, 2});
  hasher.Check("threading", -1);  // not computed: decides nothing
  EXPECT_FALSE(hasher.checked());
  hasher.Check("threading", 12345);
  EXPECT_TRUE(hasher.checked());
  EXPECT_FALSE(hasher.Hash("threading"));
}

// A str-keyed dict as CPython 3.11 builds it: entries in insertion order, each slot of the
// index found by CPython's probe sequence for the key's hash, the keys' hashes cached.
class DictByHashTest : public ::testing::Test, protected testing::FakeImage311 {
 protected:
  static constexpr HashSecret kSecret{0x0123456789abcdefULL, 0x0fedcba987654321ULL};

  uint64_t StrWithHash(const std::string& text, int64_t hash) {
    const uint64_t str = objects_.Str(text);
    target_.Put<int64_t>(str + layout_.unicode.length + 8, hash);
    return str;
  }

  // 16 slots, 1-byte indices, up to 10 entries.
  uint64_t Dict(const std::vector<std::pair<std::string, uint64_t>>& items, HashSecret secret) {
    constexpr uint8_t kLog2Size = 4;
    constexpr uint64_t kSlots = 1 << kLog2Size;
    const uint64_t keys = heap_.Alloc(32 + kSlots + 16 * items.size());
    target_.PutU64(keys, 1);
    target_.PutU8(keys + 8, kLog2Size);
    target_.PutU8(keys + 9, kLog2Size);  // one byte per index
    target_.PutU8(keys + 10, 1);         // DICT_KEYS_UNICODE
    target_.Put<int64_t>(keys + 16, kSlots * 2 / 3 - items.size());
    target_.Put<int64_t>(keys + 24, items.size());
    std::vector<uint8_t> index(kSlots, 0xff);  // DKIX_EMPTY
    StrHasher hasher(secret);
    const uint64_t first = SipHash13(secret, reinterpret_cast<const uint8_t*>(items[0].first.data()),
                                     items[0].first.size());
    hasher.Check(items[0].first, static_cast<int64_t>(first));
    for (size_t i = 0; i < items.size(); ++i) {
      const int64_t hash = *hasher.Hash(items[i].first);
      uint64_t perturb = static_cast<uint64_t>(hash);
      uint64_t slot = perturb & (kSlots - 1);
      while (index[slot] != 0xff) {
        perturb >>= 5;
        slot = (slot * 5 + perturb + 1) & (kSlots - 1);
      }
      index[slot] = static_cast<uint8_t>(i);
      const uint64_t entry = keys + 32 + kSlots + 16 * i;
      target_.PutU64(entry, StrWithHash(items[i].first, hash));
      target_.PutU64(entry + 8, items[i].second);
    }
    for (uint64_t i = 0; i < kSlots; ++i) target_.PutU8(keys + 32 + i, index[i]);
    keys_ = keys;
    const uint64_t dict = heap_.Alloc(48);
    objects_.Header(dict, heap_.Alloc(416));
    target_.Put<int64_t>(dict + layout_.dict.ma_used, items.size());
    target_.PutU64(dict + layout_.dict.ma_keys, keys);
    target_.PutU64(dict + layout_.dict.ma_values, 0);
    return dict;
  }

  uint64_t keys_ = 0;  // the keys object of the last Dict

  uint64_t EntriesSpent() { return memory_.budget().Spent(Work::kContainerEntries); }

  const std::vector<std::pair<std::string, uint64_t>> items_ = {
      {"__name__", 0x1000}, {"_active", 0x2000}, {"_main_thread", 0x3000}, {"Thread", 0x4000},
      {"local", 0x5000},    {"_limbo", 0x6000},  {"_shutdown", 0x7000},    {"Event", 0x8000}};
};

TEST_F(DictByHashTest, FindsAKeyByItsHashReadingOneProbeNotEveryKey) {
  const uint64_t dict = Dict(items_, kSecret);
  reader_.UseHashSecret(kSecret);
  RemoteCollections c(reader_);
  for (const auto& [key, value] : items_) {
    const uint64_t before = EntriesSpent();
    EXPECT_EQ(*c.DictGetString(dict, key), value) << key;
    EXPECT_LE(EntriesSpent() - before, 3u) << key << ": more probes than a 16-slot table needs";
  }
  const uint64_t before = EntriesSpent();
  EXPECT_EQ(*c.DictGetString(dict, "_dangling"), 0u);
  EXPECT_LE(EntriesSpent() - before, 3u);
}

TEST_F(DictByHashTest, ATargetThatHashesOtherwiseIsSearchedKeyByKey) {
  const uint64_t dict = Dict(items_, kSecret);
  reader_.UseHashSecret(HashSecret{7, 8});  // not the target's: its cached hashes disagree
  RemoteCollections c(reader_);
  const uint64_t before = EntriesSpent();
  EXPECT_EQ(*c.DictGetString(dict, "Event"), 0x8000u);
  EXPECT_EQ(*c.DictGetString(dict, "_dangling"), 0u);
  EXPECT_GE(EntriesSpent() - before, 2 * items_.size());
}

TEST_F(DictByHashTest, WithoutASecretEveryKeyIsRead) {
  const uint64_t dict = Dict(items_, kSecret);
  RemoteCollections c(reader_);
  EXPECT_EQ(*c.DictGetString(dict, "_active"), 0x2000u);
  EXPECT_EQ(*c.DictGetString(dict, "_dangling"), 0u);
}

TEST_F(DictByHashTest, ADamagedIndexFallsBackToReadingEveryKey) {
  // Every slot points past the entries; every slot a deleted entry (no empty slot ends a probe).
  for (const uint8_t damage : {uint8_t{0x70}, uint8_t{0xfe}}) {
    const uint64_t dict = Dict(items_, kSecret);
    for (uint64_t i = 0; i < 16; ++i) target_.PutU8(keys_ + 32 + i, damage);
    memory_.Clear();
    reader_.UseHashSecret(kSecret);
    RemoteCollections c(reader_);
    EXPECT_EQ(*c.DictGetString(dict, "_shutdown"), 0x7000u) << int{damage};
    EXPECT_EQ(*c.DictGetString(dict, "_dangling"), 0u) << int{damage};
  }
}

}  // namespace
}  // namespace pyunwind
