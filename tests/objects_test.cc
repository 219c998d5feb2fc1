// core/objects: strings, bytes, ints and dicts read out of a hand-built 3.11
// memory image (tests/fake_python.h), and the refusal of damaged objects
// with an error, never a crash.
#include "core/objects/objects.h"

#include <fmt/format.h>

#include <gtest/gtest.h>

#include <string>

#include "core/base/utf8.h"
#include "core/objects/remote_collections.h"
#include "tests/fake_python.h"
#include "tests/fake_target.h"

namespace pyunwind {
namespace {

using testing::FakeObjects;
using testing::kFakeHeap;
using testing::kFakeHeapSize;

class ObjectsTest : public ::testing::Test, protected testing::FakeImage311 {
 protected:
  // A string object written by hand, for states FakeObjects would not make.
  uint64_t RawString(int64_t length, uint32_t state, std::string_view data, bool ascii_offset) {
    const uint64_t object = heap_.Alloc(256);
    objects_.Header(object, objects_.str_type());
    target_.Put<int64_t>(object + layout_.unicode.length, length);
    target_.PutU32(object + layout_.unicode.state, state);
    target_.PutBytes(
        object + (ascii_offset ? layout_.unicode.ascii_data : layout_.unicode.compact_data), data);
    return object;
  }

  // The reader, its page cache emptied: the test writes the image as it goes.
  ObjectReader& Fresh() {
    memory_.Clear();
    return reader_;
  }
};

TEST_F(ObjectsTest, LayoutIsThe311Table) {
  EXPECT_EQ(layout_.unicode.ascii_data, 48);
  EXPECT_EQ(layout_.unicode.compact_data, 72);
  EXPECT_EQ(layout_.version.ToString(), "3.11.2");
}

TEST_F(ObjectsTest, ReadsEveryCompactKind) {
  struct Case {
    const char* name;
    std::string text;
  } cases[] = {
      {"empty", ""},
      {"ascii", "hello_world.py"},
      {"latin1", "größe"},
      {"ucs2", "λ外"},
      {"ucs4", "🐍"},
      {"ucs4 mixed", "a🐍λ"},
      {"nul inside", std::string("a\0b", 3)},
  };
  for (const Case& c : cases) {
    const uint64_t object = objects_.Str(c.text);
    auto text = Fresh().ReadString(object);
    ASSERT_TRUE(text.ok()) << c.name << ": " << text.error().message;
    EXPECT_EQ(*text, c.text) << c.name;
  }
}

TEST_F(ObjectsTest, TheKindDecidesTheDataOffset) {
  // Latin-1 text is compact but not ASCII: its data follows PyCompactUnicodeObject.
  const uint64_t latin1 = objects_.Str("é");
  memory_.Clear();
  EXPECT_EQ(memory_.ReadValue<uint8_t>(latin1 + 72), 0xE9);
  const uint64_t ascii = objects_.Str("e");
  memory_.Clear();
  EXPECT_EQ(memory_.ReadValue<uint8_t>(ascii + 48), 'e');
}

TEST_F(ObjectsTest, TruncatesAtMaxChars) {
  const uint64_t ascii = objects_.Str("abcdefgh");
  EXPECT_EQ(*Fresh().ReadString(ascii, 3), "abc...");
  EXPECT_EQ(*Fresh().ReadString(ascii, 8), "abcdefgh");
  EXPECT_EQ(*Fresh().ReadString(ascii, 100), "abcdefgh");
  EXPECT_EQ(*Fresh().ReadString(ascii, 0), "...");
  // Characters, not bytes: two of "λ外🐍" are three UTF-8 characters' worth of bytes.
  EXPECT_EQ(*Fresh().ReadString(objects_.Str("λ外🐍"), 2), "λ外...");
  EXPECT_EQ(*Fresh().ReadString(objects_.Str("🐍🐍🐍"), 1), "🐍...");
}

TEST_F(ObjectsTest, LongStringIsCutAtTheDefaultBound) {
  const std::string text(kMaxStringLength + 10, 'x');
  auto read = Fresh().ReadString(objects_.Str(text));
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*read, std::string(kMaxStringLength, 'x') + "...");
}

TEST_F(ObjectsTest, RefusesStringsThatAreNotCompact) {
  const struct {
    const char* name;
    uint32_t state;
    bool ascii_offset;
  } cases[] = {
      {"not compact (legacy string)", FakeObjects::StringState(1, false, false), false},
      {"kind 0 (wstr only)", FakeObjects::StringState(0, true, false), false},
      {"kind 3", FakeObjects::StringState(3, true, false), false},
      {"kind 7", FakeObjects::StringState(7, true, false), false},
      {"ascii flag with kind 2", FakeObjects::StringState(2, true, true), true},
      {"ascii flag with kind 4", FakeObjects::StringState(4, true, true), true},
      {"all ones", 0xffffffffu, true},
  };
  for (const auto& c : cases) {
    auto read = Fresh().ReadString(RawString(3, c.state, "abc", c.ascii_offset));
    EXPECT_FALSE(read.ok()) << c.name;
    if (!read.ok()) {
      EXPECT_FALSE(read.error().message.empty());
      EXPECT_EQ(read.error().message.find('\n'), std::string::npos);
    }
  }
}

TEST_F(ObjectsTest, RefusesBadPointersAndUnreadableMemory) {
  const uint64_t good = objects_.Str("abc");
  EXPECT_FALSE(Fresh().ReadString(0).ok());
  EXPECT_FALSE(Fresh().ReadString(good + 1).ok());  // unaligned
  EXPECT_FALSE(Fresh().ReadString(good + 4).ok());
  EXPECT_FALSE(Fresh().ReadString(0x10000).ok());  // nothing mapped there
  EXPECT_FALSE(Fresh().ReadString(~uint64_t{7}).ok());  // reading it would wrap around
  // Header readable, text running off the end of the mapping.
  const uint64_t at_end = kFakeHeap + kFakeHeapSize - 56;
  objects_.Header(at_end, objects_.str_type());
  target_.Put<int64_t>(at_end + layout_.unicode.length, 100);
  target_.PutU32(at_end + layout_.unicode.state, FakeObjects::StringState(1, true, true));
  auto read = Fresh().ReadString(at_end);
  EXPECT_FALSE(read.ok());
  // A read the target refused says so in its kind; a bad pointer is not a failed read.
  EXPECT_EQ(read.error().kind, ErrorKind::kUnreadableMemory) << read.error().message;
  EXPECT_EQ(Fresh().ReadString(0x10000).error().kind, ErrorKind::kUnreadableMemory);
  EXPECT_EQ(Fresh().ReadString(good + 1).error().kind, ErrorKind::kOther);
}

TEST_F(ObjectsTest, RefusesAbsurdLengths) {
  const uint32_t ascii = FakeObjects::StringState(1, true, true);
  EXPECT_FALSE(Fresh().ReadString(RawString(-1, ascii, "abc", true)).ok());
  EXPECT_FALSE(Fresh().ReadString(RawString(INT64_MIN, ascii, "abc", true)).ok());
  EXPECT_FALSE(Fresh().ReadString(RawString(int64_t{1} << 41, ascii, "abc", true)).ok());
  EXPECT_FALSE(Fresh().ReadString(RawString(INT64_MAX, ascii, "abc", true)).ok());
  // A huge but "possible" length reads at most max_chars characters: either
  // the cut text or an error, never a multi-gigabyte allocation.
  auto big = Fresh().ReadString(RawString(int64_t{1} << 39, ascii, "abc", true), 3);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(*big, "abc...");
  // ... and where those characters run off the mapping, an error.
  const uint64_t near_end = kFakeHeap + kFakeHeapSize - 128;
  objects_.Header(near_end, objects_.str_type());
  target_.Put<int64_t>(near_end + layout_.unicode.length, int64_t{1} << 39);
  target_.PutU32(near_end + layout_.unicode.state, FakeObjects::StringState(4, true, false));
  EXPECT_FALSE(Fresh().ReadString(near_end).ok());
}

TEST_F(ObjectsTest, InvalidCodePointsBecomeReplacementCharacters) {
  const uint64_t object = RawString(2, FakeObjects::StringState(4, true, false),
                                    std::string("\x00\xD8\x00\x00\x00\x00\x11\x00", 8), false);
  EXPECT_EQ(*Fresh().ReadString(object), "\xEF\xBF\xBD\xEF\xBF\xBD");  // U+D800, U+110000
}

TEST_F(ObjectsTest, ReadsBytes) {
  const std::string binary("\x00\x80\xff linetable", 13);
  const uint64_t object = objects_.Bytes(binary);
  EXPECT_EQ(*Fresh().ReadBytes(object, 100), binary);
  EXPECT_EQ(*Fresh().ReadBytes(object, 13), binary);
  EXPECT_FALSE(Fresh().ReadBytes(object, 12).ok());  // longer than allowed: refused, not cut
  EXPECT_EQ(*Fresh().ReadBytes(objects_.Bytes(""), 0), "");
  EXPECT_FALSE(Fresh().ReadBytes(object + 2, 100).ok());
  EXPECT_FALSE(Fresh().ReadBytes(0, 100).ok());
  EXPECT_FALSE(Fresh().ReadBytes(0x20000, 100).ok());
  const uint64_t negative = objects_.Bytes("abc");
  target_.Put<int64_t>(negative + layout_.bytes.ob_size, -5);
  EXPECT_FALSE(Fresh().ReadBytes(negative, 100).ok());
  const uint64_t huge = objects_.Bytes("abc");
  target_.Put<int64_t>(huge + layout_.bytes.ob_size, int64_t{1} << 50);
  EXPECT_FALSE(Fresh().ReadBytes(huge, kMaxLocationTableBytes).ok());
  const uint64_t past_end = objects_.Bytes("abc");
  target_.Put<int64_t>(past_end + layout_.bytes.ob_size, 2 << 20);  // beyond the mapping
  EXPECT_FALSE(Fresh().ReadBytes(past_end, kMaxLocationTableBytes).ok());
}

TEST_F(ObjectsTest, ReadsInts311) {
  for (int64_t value : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{42}, int64_t{-42},
                        int64_t{(1 << 30) - 1}, int64_t{1} << 30, -(int64_t{1} << 30),
                        int64_t{0x030b02f0}, int64_t{(int64_t{1} << 60) - 1},
                        -((int64_t{1} << 60) - 1), int64_t{123456789012345}}) {
    auto read = Fresh().ReadInt(objects_.Int(value));
    ASSERT_TRUE(read.ok()) << value << ": " << read.error().message;
    EXPECT_EQ(*read, value);
  }
  // Three digits (>= 2**60) are refused.
  const uint64_t big = objects_.Int(1);
  target_.Put<int64_t>(big + layout_.long_object.ob_size, 3);
  EXPECT_FALSE(Fresh().ReadInt(big).ok());
  target_.Put<int64_t>(big + layout_.long_object.ob_size, -3);
  EXPECT_FALSE(Fresh().ReadInt(big).ok());
  target_.Put<int64_t>(big + layout_.long_object.ob_size, int64_t{1} << 62);
  EXPECT_FALSE(Fresh().ReadInt(big).ok());
  EXPECT_FALSE(Fresh().ReadInt(0).ok());
  EXPECT_FALSE(Fresh().ReadInt(big + 4).ok());
  EXPECT_FALSE(Fresh().ReadInt(0x30000).ok());
}

// Regression: ob_size == INT64_MIN was negated (undefined behaviour) into a
// digit count that passed the "at most 2 digits" check; the digits were then
// read with size INT64_MIN * 4 == 0, and the garbage int read as 0 instead of
// being refused (fixed in a606baa).
TEST_F(ObjectsTest, ReadInt311RefusesMinimumObSize) {
  const uint64_t object = objects_.Int(1);
  target_.Put<int64_t>(object + layout_.long_object.ob_size, INT64_MIN);
  auto read = Fresh().ReadInt(object);
  EXPECT_FALSE(read.ok()) << "read as " << (read.ok() ? *read : 0);
}

TEST_F(ObjectsTest, ReadsInts312LvTag) {
  const Layout layout312 = *LayoutFromTable(0x030c06f0);
  ASSERT_NE(layout312.long_object.lv_tag, kAbsent);
  ObjectReader reader312(memory_, layout312);
  auto Fresh312 = [&]() -> ObjectReader& {
    memory_.Clear();
    return reader312;
  };
  // lv_tag: digit count << 3 | sign (0 positive, 1 zero, 2 negative).
  auto make = [&](uint64_t tag, uint32_t d0, uint32_t d1) {
    const uint64_t object = heap_.Alloc(40);
    target_.PutU64(object + layout312.long_object.lv_tag, tag);
    target_.PutU32(object + layout312.long_object.ob_digit, d0);
    target_.PutU32(object + layout312.long_object.ob_digit + 4, d1);
    return object;
  };
  EXPECT_EQ(*Fresh312().ReadInt(make(1, 0, 0)), 0);
  EXPECT_EQ(*Fresh312().ReadInt(make(1 << 3, 7, 0)), 7);
  EXPECT_EQ(*Fresh312().ReadInt(make((1 << 3) | 2, 7, 0)), -7);
  EXPECT_EQ(*Fresh312().ReadInt(make(2 << 3, 5, 3)), (int64_t{3} << 30) | 5);
  EXPECT_EQ(*Fresh312().ReadInt(make((2 << 3) | 2, 5, 3)), -((int64_t{3} << 30) | 5));
  EXPECT_EQ(*Fresh312().ReadInt(make(1 << 3, 0x030c06f0, 0)), 0x030c06f0);
  EXPECT_FALSE(Fresh312().ReadInt(make(3 << 3, 1, 1)).ok());
  EXPECT_FALSE(Fresh312().ReadInt(make(~uint64_t{0}, 1, 1)).ok());
}

TEST_F(ObjectsTest, LooksUpStringKeysInAUnicodeDict) {
  const uint64_t one = objects_.Int(1), two = objects_.Int(2), three = objects_.Int(3);
  const uint64_t dict = objects_.Dict({{objects_.Str("version"), one},
                                       {0, 0},  // a deleted entry
                                       {objects_.Str("hexversion"), two},
                                       {objects_.Str("hexversion_x"), three},
                                       {objects_.Str("größe"), three}});
  EXPECT_EQ(*Fresh().LookupStringKey(dict, "hexversion"), two);
  EXPECT_EQ(*Fresh().LookupStringKey(dict, "version"), one);
  EXPECT_EQ(*Fresh().LookupStringKey(dict, "hexversion_x"), three);
  EXPECT_EQ(*Fresh().LookupStringKey(dict, "größe"), three);
  EXPECT_EQ(*Fresh().LookupStringKey(dict, "hex"), 0u);  // absent
  EXPECT_EQ(*Fresh().LookupStringKey(dict, ""), 0u);
  EXPECT_EQ(*Fresh().ReadInt(*Fresh().LookupStringKey(dict, "hexversion")), 2);
}

TEST_F(ObjectsTest, LooksUpStringKeysInGeneralAndSplitDicts) {
  const uint64_t value = objects_.Int(99);
  const uint64_t general = objects_.Dict(
      {{objects_.Int(5), objects_.Int(6)}, {objects_.Str("hexversion"), value}}, /*kind=*/0);
  EXPECT_EQ(*Fresh().LookupStringKey(general, "hexversion"), value);
  EXPECT_EQ(*Fresh().LookupStringKey(general, "other"), 0u);
  const uint64_t split = objects_.Dict(
      {{objects_.Str("a"), objects_.Int(1)}, {objects_.Str("hexversion"), value}}, /*kind=*/2,
      /*split=*/true);
  EXPECT_EQ(*Fresh().LookupStringKey(split, "hexversion"), value);
}

TEST_F(ObjectsTest, RefusesDamagedDicts) {
  const uint64_t dict = objects_.Dict({{objects_.Str("k"), objects_.Int(1)}});
  EXPECT_FALSE(Fresh().LookupStringKey(0, "k").ok());
  EXPECT_FALSE(Fresh().LookupStringKey(dict + 1, "k").ok());
  EXPECT_FALSE(Fresh().LookupStringKey(0x40000, "k").ok());
  const uint64_t keys = (memory_.Clear(), *memory_.ReadPointer(dict + layout_.dict.ma_keys));

  // Each damage on a fresh reader (the cache would keep the old bytes).
  auto lookup = [&](auto damage) {
    damage();
    RemoteMemory memory(target_);
    ObjectReader reader(memory, layout_);
    return reader.LookupStringKey(dict, "k");
  };
  EXPECT_FALSE(lookup([&] { target_.Put<int64_t>(keys + 24, -1); }).ok());
  EXPECT_FALSE(lookup([&] { target_.Put<int64_t>(keys + 24, int64_t{1} << 40); }).ok());
  EXPECT_FALSE(lookup([&] {
                 target_.Put<int64_t>(keys + 24, 1);
                 target_.PutU8(keys + 9, 200);
               }).ok());
  // Entries beyond the mapping.
  EXPECT_FALSE(lookup([&] {
                 target_.PutU8(keys + 9, 3);
                 target_.Put<int64_t>(keys + 24, 65536);  // 1 MiB of entries
               }).ok());
  EXPECT_FALSE(lookup([&] { target_.PutU64(dict + layout_.dict.ma_keys, 0x50000); }).ok());
  EXPECT_FALSE(lookup([&] { target_.PutU64(dict + layout_.dict.ma_keys, keys + 3); }).ok());
}

// A set with more members than asked for: an error, or with `cut` (py-tasks'
// registry of a million tasks) the first members and the count of the rest.
TEST_F(ObjectsTest, SetItemsCutsOnlyWhenAskedAndCounts) {
  const uint64_t set = heap_.Alloc(256);
  const uint64_t table = heap_.Alloc(16 * 16);
  for (uint64_t i = 0; i < 16; ++i) {
    const bool used = i % 3 == 0;  // slots 0, 3, 6, 9, 12, 15: six members
    target_.PutU64(table + 16 * i, used ? 0x1000 + 16 * i : (i == 4 ? 0x2000 : 0));
    target_.Put<int64_t>(table + 16 * i + 8, used ? static_cast<int64_t>(i) : -1);  // slot 4: a dummy
  }
  target_.Put<int64_t>(set + layout_.set.mask, 15);
  target_.PutU64(set + layout_.set.table, table);
  RemoteCollections c(Fresh());
  auto all = c.SetItems(set);
  ASSERT_TRUE(all.ok()) << all.error().message;
  EXPECT_EQ(all->size(), 6u);
  auto refused = c.SetItems(set, 4);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, fmt::format("the set at {:#x} has more than 4 members", set));
  EXPECT_EQ(refused.error().kind, ErrorKind::kOther);
  size_t cut = 99;
  auto first = c.SetItems(set, 4, &cut);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, (std::vector<uint64_t>{0x1000, 0x1030, 0x1060, 0x1090}));
  EXPECT_EQ(cut, 2u);
}

// A deque of 60 items over two blocks (from slot 60 of the first to slot 55 of the second):
// read left to right; a size past the cap, a right end elsewhere or a broken link
// are errors.
TEST_F(ObjectsTest, DequeItemsFollowTheBlocks) {
  const Layout::Deque& d = layout_.deque;
  ASSERT_EQ(d.block_slots, 64);
  const uint64_t block_size = 8 + 64 * 8 + 8;
  const uint64_t deque = heap_.Alloc(128);
  const uint64_t first = heap_.Alloc(block_size), second = heap_.Alloc(block_size);
  target_.PutU64(first + block_size - 8, second);  // the first's right link
  std::vector<uint64_t> want;
  for (uint64_t i = 0; i < 60; ++i) {
    const uint64_t block = i < 4 ? first : second;
    const uint64_t slot = i < 4 ? 60 + i : i - 4;
    target_.PutU64(block + 8 + 8 * slot, 0x1000 + 16 * i);
    want.push_back(0x1000 + 16 * i);
  }
  target_.Put<int64_t>(deque + layout_.object.ob_size, 60);
  target_.PutU64(deque + d.leftblock, first);
  target_.PutU64(deque + d.rightblock, second);
  target_.Put<int64_t>(deque + d.leftindex, 60);
  target_.Put<int64_t>(deque + d.rightindex, 55);
  RemoteCollections c(Fresh());
  auto items = c.DequeItems(deque);
  ASSERT_TRUE(items.ok()) << items.error().message;
  EXPECT_EQ(*items, want);
  EXPECT_FALSE(c.DequeItems(deque, 59).ok());
  target_.Put<int64_t>(deque + d.rightindex, 54);  // not where the items end
  EXPECT_FALSE(RemoteCollections(Fresh()).DequeItems(deque).ok());  // memory read anew
  target_.Put<int64_t>(deque + d.rightindex, 64);  // past a block
  EXPECT_FALSE(RemoteCollections(Fresh()).DequeItems(deque).ok());  // memory read anew
  target_.Put<int64_t>(deque + d.rightindex, 55);
  target_.PutU64(first + block_size - 8, 0);
  EXPECT_FALSE(RemoteCollections(Fresh()).DequeItems(deque).ok());  // memory read anew
}

// A reader that runs out of the command's work budget fails with the budget's kind.
TEST_F(ObjectsTest, ReadsPastTheWorkBudgetFailAsExhausted) {
  const uint64_t set = heap_.Alloc(256);
  const uint64_t table = heap_.Alloc(16 * 16);
  target_.Put<int64_t>(set + layout_.set.mask, 15);
  target_.PutU64(set + layout_.set.table, table);
  WorkBudget::Amounts limits = WorkBudget::kDefaultLimits;
  limits[static_cast<size_t>(Work::kContainerEntries)] = 8;  // the table has 16 slots
  RemoteMemory memory(target_, kMaxBytesReadPerCommand, limits);
  ObjectReader reader(memory, layout_);
  RemoteCollections c(reader);
  auto items = c.SetItems(set);
  ASSERT_FALSE(items.ok());
  EXPECT_EQ(items.error().kind, ErrorKind::kBudgetExhausted) << items.error().message;
  EXPECT_EQ(items.error().message, memory.budget().Reason());
}

TEST_F(ObjectsTest, ReadsTypeNames) {
  EXPECT_EQ(*Fresh().TypeName(objects_.Str("x")), "str");
  EXPECT_EQ(*Fresh().TypeName(objects_.Int(3)), "int");
  EXPECT_FALSE(Fresh().TypeName(0).ok());
  EXPECT_FALSE(Fresh().TypeName(0x60000).ok());
}

TEST(AppendUtf8, EncodesAndReplaces) {
  std::string out;
  for (uint32_t cp : {0x41u, 0xE9u, 0x3BBu, 0x5916u, 0x1F40Du, 0xD800u, 0x110000u}) {
    AppendUtf8(out, cp);
  }
  EXPECT_EQ(out, "Aéλ外🐍\xEF\xBF\xBD\xEF\xBF\xBD");
}

}  // namespace
}  // namespace pyunwind
