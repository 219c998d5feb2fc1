// Builds CPython 3.11 objects in a FakeTarget, at the offsets of a Layout
// (LayoutFromTable(0x030b02f0)) and with CPython's own encodings (string
// state bits, dict key tables, 30-bit int digits).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/layout/layout.h"
#include "core/target/memory.h"
#include "core/objects/objects.h"
#include "tests/fake_target.h"

namespace pyunwind::testing {

// UTF-8 to code points (the test's own literals: assumed valid).
inline std::u32string DecodeUtf8(std::string_view text) {
  std::u32string out;
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<uint8_t>(text[i]);
    const int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1F) : extra == 2 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k <= extra; ++k) cp = (cp << 6) | (static_cast<uint8_t>(text[i + k]) & 0x3F);
    out += static_cast<char32_t>(cp);
    i += 1 + extra;
  }
  return out;
}

class FakeObjects {
 public:
  // PyUnicodeObject state bits (3.11, 3.12): interned 0-1, kind 2-4, compact 5, ascii 6, ready 7.
  static uint32_t StringState(int kind, bool compact, bool ascii) {
    return (kind << 2) | (compact << 5) | (ascii << 6) | (1u << 7);
  }

  FakeObjects(FakeTarget& target, FakeHeap& heap, const Layout& layout)
      : target_(target), heap_(heap), layout_(layout) {
    str_type_ = Type("str");
    bytes_type_ = Type("bytes");
    int_type_ = Type("int");
    dict_type_ = Type("dict");
    code_type_ = Type("code");
  }

  // A type object with only tp_name set.
  uint64_t Type(std::string_view name) {
    const uint64_t type = heap_.Alloc(416);
    const uint64_t text = heap_.Alloc(name.size() + 1, 1);
    target_.PutBytes(text, name);
    target_.PutU8(text + name.size(), 0);
    target_.PutU64(type + layout_.type.tp_name, text);
    return type;
  }

  void Header(uint64_t object, uint64_t type) {
    target_.PutU64(object, 1);  // ob_refcnt
    target_.PutU64(object + layout_.object.ob_type, type);
  }

  // A compact str of the narrowest kind that holds `text` (UTF-8 in).
  uint64_t Str(std::string_view utf8) { return Str(DecodeUtf8(utf8)); }
  uint64_t Str(const std::u32string& text) {
    uint32_t widest = 0;
    for (char32_t c : text) widest = std::max<uint32_t>(widest, c);
    const int kind = widest < 0x100 ? 1 : widest < 0x10000 ? 2 : 4;
    const bool ascii = widest < 0x80;
    const uint64_t data_offset = ascii ? layout_.unicode.ascii_data : layout_.unicode.compact_data;
    const uint64_t object = heap_.Alloc(data_offset + (text.size() + 1) * kind);
    Header(object, str_type_);
    target_.PutU64(object + layout_.unicode.length, text.size());
    target_.PutU64(object + layout_.unicode.length + 8, static_cast<uint64_t>(-1));  // hash
    target_.PutU32(object + layout_.unicode.state, StringState(kind, true, ascii));
    for (size_t i = 0; i <= text.size(); ++i) {
      const uint32_t cp = i < text.size() ? text[i] : 0;
      target_.Write(object + data_offset + i * kind, &cp, kind);  // little-endian
    }
    return object;
  }

  uint64_t Bytes(std::string_view data) {
    const uint64_t object = heap_.Alloc(layout_.bytes.ob_sval + data.size() + 1);
    Header(object, bytes_type_);
    target_.PutU64(object + layout_.bytes.ob_size, data.size());
    target_.PutU64(object + layout_.bytes.ob_size + 8, static_cast<uint64_t>(-1));  // ob_shash
    target_.PutBytes(object + layout_.bytes.ob_sval, data);
    target_.PutU8(object + layout_.bytes.ob_sval + data.size(), 0);
    return object;
  }

  // An int of up to two 30-bit digits, in the 3.11 form (ob_size carries the sign).
  uint64_t Int(int64_t value) {
    const bool negative = value < 0;
    uint64_t magnitude = negative ? -static_cast<uint64_t>(value) : value;
    std::vector<uint32_t> digits;
    while (magnitude != 0) {
      digits.push_back(magnitude & ((1u << 30) - 1));
      magnitude >>= 30;
    }
    const uint64_t object = heap_.Alloc(layout_.long_object.ob_digit + 4 * (digits.size() + 1));
    Header(object, int_type_);
    const int64_t size = negative ? -static_cast<int64_t>(digits.size()) : digits.size();
    target_.Put<int64_t>(object + layout_.long_object.ob_size, size);
    for (size_t i = 0; i < digits.size(); ++i) {
      target_.PutU32(object + layout_.long_object.ob_digit + 4 * i, digits[i]);
    }
    return object;
  }

  // A dict in the 3.11-3.14 form: PyDictKeysObject with dk_log2_size (8),
  // dk_log2_index_bytes (9), dk_kind (10), dk_nentries (24), indices at 32,
  // then the entries: {key, value} when every key is a str (kind 1), else
  // {hash, key, value} (kind 0). With `split`, the values live apart (kind 2).
  // An entry with key 0 is a deleted slot.
  uint64_t Dict(const std::vector<std::pair<uint64_t, uint64_t>>& items, int kind = 1,
                bool split = false) {
    const uint8_t log2_size = 3;
    if ((1u << log2_size) * 2 / 3 < items.size()) throw std::length_error("dict too big");
    const uint8_t log2_index_bytes = log2_size;  // one byte per index
    const uint64_t entry_size = kind == 0 ? 24 : 16;
    const uint64_t keys = heap_.Alloc(32 + (1u << log2_index_bytes) + entry_size * items.size());
    target_.PutU64(keys, 1);
    target_.PutU8(keys + 8, log2_size);
    target_.PutU8(keys + 9, log2_index_bytes);
    target_.PutU8(keys + 10, kind);
    target_.Put<int64_t>(keys + 16, (1 << log2_size) * 2 / 3 - items.size());  // dk_usable
    target_.Put<int64_t>(keys + 24, items.size());                             // dk_nentries
    for (size_t i = 0; i < (1u << log2_index_bytes); ++i) {
      target_.PutU8(keys + 32 + i, i < items.size() ? i : 0xff);  // not a real hash order
    }
    const uint64_t entries = keys + 32 + (1u << log2_index_bytes);
    uint64_t values = 0;
    if (split) values = heap_.Alloc(8 * items.size() + 8);
    for (size_t i = 0; i < items.size(); ++i) {
      const uint64_t entry = entries + i * entry_size + (kind == 0 ? 8 : 0);
      if (kind == 0) target_.PutU64(entry - 8, 0x1234 + i);  // me_hash
      target_.PutU64(entry, items[i].first);
      if (split) {
        target_.PutU64(values + 8 * i, items[i].second);
      } else {
        target_.PutU64(entry + 8, items[i].second);
      }
    }
    const uint64_t dict = heap_.Alloc(48);
    Header(dict, dict_type_);
    target_.Put<int64_t>(dict + layout_.dict.ma_used, items.size());
    target_.PutU64(dict + layout_.dict.ma_keys, keys);
    target_.PutU64(dict + layout_.dict.ma_values, values);
    return dict;
  }

  uint64_t str_type() const { return str_type_; }
  uint64_t code_type() const { return code_type_; }
  FakeTarget& target() { return target_; }
  FakeHeap& heap() { return heap_; }

 private:
  FakeTarget& target_;
  FakeHeap& heap_;
  const Layout& layout_;
  uint64_t str_type_ = 0, bytes_type_ = 0, int_type_ = 0, dict_type_ = 0, code_type_ = 0;
};

// A 3.11 process image to build objects in and read them back: the 3.11 layout, the target,
// a heap of kFakeHeapSize bytes at kFakeHeap, FakeObjects over it, and an ObjectReader
// through a page cache (clear memory_ after writing what a read should see).
inline constexpr uint64_t kFakeHeap = 0x7f0000000000;
inline constexpr uint64_t kFakeHeapSize = 1 << 20;

class FakeImage311 {
 protected:
  FakeImage311()
      : layout_(*LayoutFromTable(0x030b02f0)),
        heap_(target_, kFakeHeap, kFakeHeapSize),
        objects_(target_, heap_, layout_),
        memory_(target_),
        reader_(memory_, layout_) {}

  Layout layout_;
  FakeTarget target_;
  FakeHeap heap_;
  FakeObjects objects_;
  RemoteMemory memory_;
  ObjectReader reader_;
};

}  // namespace pyunwind::testing
