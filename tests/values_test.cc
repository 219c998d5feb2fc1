// Reprs of the --locals / py-locals values (core/objects/values.h): the pure
// formatting rules against Python's own, then each type over a 3.11 image
// built in a FakeTarget; and py-list's listing of a file (core/commands/source_commands.h).
#include "core/objects/values.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/layout/layout.h"
#include "core/commands/source_commands.h"
#include "tests/fake_python.h"
#include "tests/fake_target.h"
#include "tests/temp_dir.h"

namespace pyunwind {
namespace {

constexpr uint64_t kLongSubclass = 1ull << 24, kListSubclass = 1ull << 25,
                   kTupleSubclass = 1ull << 26, kBytesSubclass = 1ull << 27,
                   kUnicodeSubclass = 1ull << 28, kDictSubclass = 1ull << 29,
                   kHeapType = 1ull << 9;

TEST(FloatRepr, MatchesPythonRepr) {
  // Expected strings are repr(x) of CPython 3.11.
  EXPECT_EQ(ValueFormatter::FloatRepr(2.5), "2.5");
  EXPECT_EQ(ValueFormatter::FloatRepr(0.1), "0.1");
  EXPECT_EQ(ValueFormatter::FloatRepr(1.0 / 3), "0.3333333333333333");
  EXPECT_EQ(ValueFormatter::FloatRepr(1.0), "1.0");
  EXPECT_EQ(ValueFormatter::FloatRepr(-0.0), "-0.0");
  EXPECT_EQ(ValueFormatter::FloatRepr(0.0001), "0.0001");
  EXPECT_EQ(ValueFormatter::FloatRepr(0.00001), "1e-05");
  EXPECT_EQ(ValueFormatter::FloatRepr(1e-7), "1e-07");
  EXPECT_EQ(ValueFormatter::FloatRepr(1e15), "1000000000000000.0");
  EXPECT_EQ(ValueFormatter::FloatRepr(1e16), "1e+16");
  EXPECT_EQ(ValueFormatter::FloatRepr(123456789012345678.0), "1.2345678901234568e+17");
  EXPECT_EQ(ValueFormatter::FloatRepr(-1.5e-300), "-1.5e-300");
  EXPECT_EQ(ValueFormatter::FloatRepr(1e308 * 10), "inf");
  EXPECT_EQ(ValueFormatter::FloatRepr(-1e308 * 10), "-inf");
  EXPECT_EQ(ValueFormatter::FloatRepr(0.0 / 0.0 * 0.0 + __builtin_nan("")), "nan");
  EXPECT_EQ(ValueFormatter::FloatRepr(12345.678), "12345.678");
}

TEST(StrRepr, FollowsPythonQuotingAndEscapes) {
  EXPECT_EQ(ValueFormatter::StrRepr(U"two"), "'two'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"it's"), "\"it's\"");
  EXPECT_EQ(ValueFormatter::StrRepr(U"a'b\"c"), "'a\\'b\"c'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"say \"hi\""), "'say \"hi\"'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"a\nb\tc\\d\re"), "'a\\nb\\tc\\\\d\\re'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"\x01\x7f"), "'\\x01\\x7f'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"h\u00e9llo \u2713"), "'h\u00e9llo \u2713'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"\u00a0\u00ad\u0085"), "'\\xa0\\xad\\x85'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"\u200b\u2028\ufeff"), "'\\u200b\\u2028\\ufeff'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"\U0001F600"), "'\U0001F600'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"\U000F0000"), "'\\U000f0000'");
  EXPECT_EQ(ValueFormatter::StrRepr(std::u32string(1, char32_t{0xD800})), "'\\ud800'");
  EXPECT_EQ(ValueFormatter::StrRepr(U"", false), "''");
  EXPECT_EQ(ValueFormatter::StrRepr(U"cut", true), "'cut");
}

TEST(BytesRepr, FollowsPythonQuotingAndEscapes) {
  EXPECT_EQ(ValueFormatter::BytesRepr(std::string("\x00\xff" "bytes", 7)), "b'\\x00\\xffbytes'");
  EXPECT_EQ(ValueFormatter::BytesRepr("it's"), "b\"it's\"");
  EXPECT_EQ(ValueFormatter::BytesRepr("a\n\t\\"), "b'a\\n\\t\\\\'");
  EXPECT_EQ(ValueFormatter::BytesRepr(""), "b''");
}

TEST(DigitsToDecimal, AnySize) {
  EXPECT_EQ(ValueFormatter::DigitsToDecimal({}), "0");
  EXPECT_EQ(ValueFormatter::DigitsToDecimal({42}), "42");
  EXPECT_EQ(ValueFormatter::DigitsToDecimal({7, 0, 0, 1024}), "1267650600228229401496703205383");  // 2**100 + 7
  // 2**300 - 1: ten digits of 2**30 - 1.
  EXPECT_EQ(ValueFormatter::DigitsToDecimal(std::vector<uint32_t>(10, (1u << 30) - 1)),
            "2037035976334486086268445688409378161051468393665936250636140449354381299763336706183"
            "397375");
}

class ValuesTest : public ::testing::Test, protected testing::FakeImage311 {
 protected:
  ValuesTest() {
    none_type_ = StaticType("NoneType", 0);
    none_ = heap_.Alloc(16);
    objects_.Header(none_, none_type_);
    float_type_ = StaticType("float", 0);
    list_type_ = StaticType("list", kListSubclass);
    tuple_type_ = StaticType("tuple", kTupleSubclass);
    set_type_ = StaticType("set", 0);
    frozenset_type_ = StaticType("frozenset", 0);
    bool_type_ = StaticType("bool", kLongSubclass);
    // FakeObjects' own types get the flags CPython gives them.
    SetFlags(TypeOf(objects_.Int(1)), kLongSubclass);
    SetFlags(TypeOf(objects_.Str("x")), kUnicodeSubclass);
    SetFlags(TypeOf(objects_.Bytes("x")), kBytesSubclass);
    SetFlags(TypeOf(objects_.Dict({})), kDictSubclass);
  }

  uint64_t TypeOf(uint64_t object) {
    uint64_t type = 0;
    target_.ReadMemory(object + layout_.object.ob_type, &type, 8);
    return type;
  }
  void SetFlags(uint64_t type, uint64_t flags) { target_.PutU64(type + layout_.type.tp_flags, flags); }
  uint64_t StaticType(const char* name, uint64_t flags) {
    const uint64_t type = objects_.Type(name);
    SetFlags(type, flags);
    return type;
  }

  uint64_t Float(double value) {
    const uint64_t object = heap_.Alloc(24);
    objects_.Header(object, float_type_);
    target_.Put<double>(object + layout_.float_object.ob_fval, value);
    return object;
  }
  uint64_t Bool(bool value) {
    const uint64_t object = heap_.Alloc(32);
    objects_.Header(object, bool_type_);
    target_.Put<int64_t>(object + layout_.long_object.ob_size, value ? 1 : 0);
    target_.PutU32(object + layout_.long_object.ob_digit, value ? 1 : 0);
    return object;
  }
  uint64_t Tuple(const std::vector<uint64_t>& items) {
    const uint64_t object = heap_.Alloc(layout_.tuple.ob_item + 8 * items.size() + 8);
    objects_.Header(object, tuple_type_);
    target_.Put<int64_t>(object + layout_.tuple.ob_size, items.size());
    for (size_t i = 0; i < items.size(); ++i) target_.PutU64(object + layout_.tuple.ob_item + 8 * i, items[i]);
    return object;
  }
  uint64_t List(const std::vector<uint64_t>& items) {
    const uint64_t array = heap_.Alloc(8 * items.size() + 8);
    for (size_t i = 0; i < items.size(); ++i) target_.PutU64(array + 8 * i, items[i]);
    const uint64_t object = heap_.Alloc(48);
    objects_.Header(object, list_type_);
    target_.Put<int64_t>(object + layout_.list.ob_size, items.size());
    target_.PutU64(object + layout_.list.ob_item, array);
    return object;
  }
  // A set table of 8 slots {key, hash}; items in slot order.
  uint64_t Set(const std::vector<uint64_t>& items, bool frozen = false) {
    const uint64_t table = heap_.Alloc(8 * 16);
    for (size_t i = 0; i < items.size(); ++i) {
      target_.PutU64(table + 16 * i, items[i]);
      target_.PutU64(table + 16 * i + 8, 1000 + i);
    }
    const uint64_t object = heap_.Alloc(200);
    objects_.Header(object, frozen ? frozenset_type_ : set_type_);
    target_.Put<int64_t>(object + 32, 7);  // mask
    target_.PutU64(object + 40, table);
    return object;
  }

  std::string Repr(uint64_t object) {
    memory_.Clear();
    ValueFormatter values(reader_);
    auto repr = values.Repr(object);
    return repr.ok() ? *repr : "ERROR: " + repr.error().message;
  }

  uint64_t none_type_ = 0, none_ = 0, float_type_ = 0, list_type_ = 0, tuple_type_ = 0,
           set_type_ = 0, frozenset_type_ = 0, bool_type_ = 0;
};

TEST_F(ValuesTest, Scalars) {
  EXPECT_EQ(Repr(none_), "None");
  EXPECT_EQ(Repr(Bool(true)), "True");
  EXPECT_EQ(Repr(Bool(false)), "False");
  EXPECT_EQ(Repr(objects_.Int(42)), "42");
  EXPECT_EQ(Repr(objects_.Int(-17)), "-17");
  EXPECT_EQ(Repr(objects_.Int(0)), "0");
  EXPECT_EQ(Repr(objects_.Int(INT64_MAX)), "9223372036854775807");
  EXPECT_EQ(Repr(Float(2.5)), "2.5");
  EXPECT_EQ(Repr(objects_.Str("label-\u00fc")), "'label-\u00fc'");
  EXPECT_EQ(Repr(objects_.Str("\U0001F600 it's")), "\"\U0001F600 it's\"");
  EXPECT_EQ(Repr(objects_.Bytes(std::string("\x00\xff" "bytes", 7))), "b'\\x00\\xffbytes'");
}

TEST_F(ValuesTest, BigIntFromDigits) {
  const uint64_t object = heap_.Alloc(64);
  objects_.Header(object, TypeOf(objects_.Int(1)));
  target_.Put<int64_t>(object + layout_.long_object.ob_size, -4);  // negative, 4 digits
  const uint32_t digits[4] = {7, 0, 0, 1024};
  target_.Write(object + layout_.long_object.ob_digit, digits, sizeof digits);
  EXPECT_EQ(Repr(object), "-1267650600228229401496703205383");
  // A digit out of range is refused, not printed.
  target_.PutU32(object + layout_.long_object.ob_digit, 1u << 30);
  EXPECT_NE(Repr(object).find("ERROR"), std::string::npos);
}

// docs/limits.md, "Reprs": ints of up to kMaxReprIntDigits 30-bit digits (about 9,000
// decimal digits) are shown in full, longer ones by size only.
TEST_F(ValuesTest, IntsOverTheDigitCapShowTheirSize) {
  auto int_of = [&](size_t digits) {
    const uint64_t object = heap_.Alloc(layout_.long_object.ob_digit + 4 * digits + 8);
    objects_.Header(object, TypeOf(objects_.Int(1)));
    target_.Put<int64_t>(object + layout_.long_object.ob_size, digits);
    for (size_t i = 0; i < digits; ++i) {
      target_.PutU32(object + layout_.long_object.ob_digit + 4 * i, (1u << 30) - 1);
    }
    return object;
  };
  // 2**30000 - 1 has 9,031 decimal digits: the cap is about 9,000, not 1,000
  // (--locals then cuts the text at 200 characters; py-print shows it all).
  memory_.Clear();
  ValueFormatter values(reader_, ReprLimits{kMaxPrintReprLength, kMaxReprItems, kMaxReprDepth});
  auto repr = values.Repr(int_of(kMaxReprIntDigits));
  ASSERT_TRUE(repr.ok()) << repr.error().message;
  const std::string& at_cap = *repr;
  EXPECT_EQ(at_cap.size(), 9031u) << at_cap.substr(0, 100);
  EXPECT_EQ(at_cap.find_first_not_of("0123456789"), std::string::npos) << at_cap.substr(0, 100);
  EXPECT_EQ(Repr(int_of(kMaxReprIntDigits + 1)),
            "<int of " + std::to_string(kMaxReprIntDigits + 1) + " 30-bit digits>");
}

TEST_F(ValuesTest, Containers) {
  const uint64_t one = objects_.Int(1);
  const uint64_t two = objects_.Str("two");
  EXPECT_EQ(Repr(Tuple({one, two})), "(1, 'two')");
  EXPECT_EQ(Repr(Tuple({one})), "(1,)");
  EXPECT_EQ(Repr(Tuple({})), "()");
  EXPECT_EQ(Repr(List({one, objects_.Int(2), objects_.Int(3)})), "[1, 2, 3]");
  EXPECT_EQ(Repr(List({})), "[]");
  EXPECT_EQ(Repr(objects_.Dict({{objects_.Str("a"), one}, {objects_.Str("b"), List({objects_.Int(2)})}})),
            "{'a': 1, 'b': [2]}");
  EXPECT_EQ(Repr(objects_.Dict({{one, two}}, /*kind=*/0)), "{1: 'two'}");
  EXPECT_EQ(Repr(objects_.Dict({{objects_.Str("k"), none_}}, 1, /*split=*/true)), "{'k': None}");
  EXPECT_EQ(Repr(Set({one, objects_.Int(3)})), "{1, 3}");
  EXPECT_EQ(Repr(Set({})), "set()");
  EXPECT_EQ(Repr(Set({one}, true)), "frozenset({1})");
  EXPECT_EQ(Repr(Set({}, true)), "frozenset()");
}

TEST_F(ValuesTest, CutsDepthItemsLengthAndCycles) {
  const uint64_t one = objects_.Int(1);
  // Depth: the fourth level of nesting shows as [...].
  EXPECT_EQ(Repr(List({List({List({List({one})})})})), "[[[[...]]]]");
  // Items: 50 shown, then ", ...".
  std::vector<uint64_t> many(60, one);
  const std::string items = Repr(List(many));
  EXPECT_EQ(items.substr(items.size() - 6), ", ...]");
  EXPECT_EQ(std::count(items.begin(), items.end(), '1'), 50);
  // Length: 200 characters, then "...".
  const std::string long_text(300, 'x');
  const std::string cut = Repr(objects_.Str(long_text));
  EXPECT_EQ(cut.size(), kMaxReprLength + 3);
  EXPECT_EQ(cut.substr(0, 3), "'xx");
  EXPECT_EQ(cut.substr(cut.size() - 4), "x...");
  // A list that holds itself: [...] where Python prints it.
  const uint64_t array = heap_.Alloc(16);
  const uint64_t self = heap_.Alloc(48);
  objects_.Header(self, list_type_);
  target_.Put<int64_t>(self + layout_.list.ob_size, 2);
  target_.PutU64(self + layout_.list.ob_item, array);
  target_.PutU64(array, one);
  target_.PutU64(array + 8, self);
  EXPECT_EQ(Repr(self), "[1, [...]]");
}

TEST_F(ValuesTest, OtherObjectsAndBadMemory) {
  const uint64_t thing_type = StaticType("Thing", kHeapType);
  const uint64_t thing = heap_.Alloc(32);
  objects_.Header(thing, thing_type);
  EXPECT_EQ(Repr(thing), fmt::format("<Thing object at {:#x}>", thing));
  // A heap type named like a builtin is not that builtin.
  const uint64_t fake_int_type = StaticType("int", kHeapType | kLongSubclass);
  const uint64_t fake = heap_.Alloc(32);
  objects_.Header(fake, fake_int_type);
  EXPECT_EQ(Repr(fake), fmt::format("<int object at {:#x}>", fake));
  // A dotted tp_name: the short name is the type.
  memory_.Clear();
  ValueFormatter values(reader_);
  const uint64_t lock = heap_.Alloc(32);
  objects_.Header(lock, StaticType("_thread.lock", 0));
  ValueDescription d = values.Describe(lock);
  EXPECT_EQ(d.type, "lock");
  EXPECT_EQ(*d.repr, fmt::format("<_thread.lock object at {:#x}>", lock));
  // Unreadable: repr null, with the reason.
  d = values.Describe(0x1000);
  EXPECT_FALSE(d.repr);
  ASSERT_TRUE(d.error);
  // An element that cannot be read is marked, the rest still shown.
  EXPECT_EQ(Repr(List({objects_.Int(1), 0x10000})), "[1, <unreadable 0x10000>]");
  // A tagged int of 3.14+.
  EXPECT_EQ(*ValueFormatter::TaggedInt(-5).repr, "-5");
}

// object.__repr__ and type.__repr__ of a class: its __module__ (from its dict) and its
// qualified name, the module left out for builtins; tp_name without a dict or a str __module__.
TEST_F(ValuesTest, HeapTypesByModuleAndQualname) {
  const uint64_t type_type = StaticType("type", 0);
  auto heap_type = [&](const char* name, const char* qualname, uint64_t module) {
    const uint64_t type = heap_.Alloc(layout_.type.ht_cached_keys + 16);
    objects_.Header(type, type_type);
    const std::string text = name;
    const uint64_t tp_name = heap_.Alloc(text.size() + 1, 1);
    target_.PutBytes(tp_name, text);
    target_.PutU8(tp_name + text.size(), 0);
    target_.PutU64(type + layout_.type.tp_name, tp_name);
    SetFlags(type, kHeapType);
    target_.PutU64(type + layout_.type.ht_cached_keys - 8, objects_.Str(qualname));
    if (module != 0) {
      target_.PutU64(type + layout_.type.tp_dict,
                     objects_.Dict({{objects_.Str("__doc__"), none_},
                                    {objects_.Str("__module__"), module}}));
    }
    return type;
  };
  auto instance = [&](uint64_t type) {
    const uint64_t object = heap_.Alloc(32);
    objects_.Header(object, type);
    return object;
  };
  const uint64_t inner = heap_type("Inner", "Outer.Inner", objects_.Str("app.models"));
  const uint64_t a = instance(inner);
  EXPECT_EQ(Repr(a), fmt::format("<app.models.Outer.Inner object at {:#x}>", a));
  EXPECT_EQ(Repr(inner), "<class 'app.models.Outer.Inner'>");
  // In a list, by the same rule; the name read once per type.
  const uint64_t b = instance(inner);
  EXPECT_EQ(Repr(List({a, b})), fmt::format("[<app.models.Outer.Inner object at {:#x}>, "
                                            "<app.models.Outer.Inner object at {:#x}>]", a, b));
  const uint64_t builtin = heap_type("Shown", "Q.Shown", objects_.Str("builtins"));
  const uint64_t c = instance(builtin);
  EXPECT_EQ(Repr(c), fmt::format("<Shown object at {:#x}>", c));
  EXPECT_EQ(Repr(builtin), "<class 'Shown'>");
  const uint64_t not_str = heap_type("Odd", "Q.Odd", objects_.Int(3));
  const uint64_t d = instance(not_str);
  EXPECT_EQ(Repr(d), fmt::format("<Odd object at {:#x}>", d));
  const uint64_t no_dict = heap_type("Bare", "Q.Bare", 0);
  const uint64_t e = instance(no_dict);
  EXPECT_EQ(Repr(e), fmt::format("<Bare object at {:#x}>", e));
  // A static type's tp_name carries its module.
  const uint64_t lock_type = StaticType("_thread.lock", 0);
  objects_.Header(lock_type, type_type);
  EXPECT_EQ(Repr(lock_type), "<class '_thread.lock'>");
  // A core without its executable has no tp_name of str: __module__ is a str by its flags.
  const uint64_t nameless_str = StaticType("str", kUnicodeSubclass);
  target_.PutU64(nameless_str + layout_.type.tp_name, 0x10000);
  const uint64_t module = objects_.Str("app");
  objects_.Header(module, nameless_str);
  const uint64_t f = instance(heap_type("Core", "Core", module));
  EXPECT_EQ(Repr(f), fmt::format("<app.Core object at {:#x}>", f));
  // A dict that cannot be read: no guess at the module.
  const uint64_t lost = heap_type("Lost", "Lost", 0);
  target_.PutU64(lost + layout_.type.tp_dict, 0x10000);
  EXPECT_FALSE(ValueFormatter(reader_).Repr(instance(lost)).ok());
}

// None is told by its static type's name where that is readable, so that the
// builtins dict (the fallback for a core without its executable) is not read.
TEST_F(ValuesTest, NoneByItsTypeName) {
  memory_.Clear();
  ValueFormatter values(reader_);
  values.UseBuiltinsOf(0x10);  // an interpreter that cannot be read: not needed
  EXPECT_TRUE(values.IsNone(none_));
  EXPECT_FALSE(values.IsNone(objects_.Int(0)));
  EXPECT_FALSE(values.IsNone(Bool(false)));
  const uint64_t impostor = heap_.Alloc(16);
  objects_.Header(impostor, StaticType("NoneType", kHeapType));  // a class named so
  EXPECT_FALSE(values.IsNone(impostor));
  EXPECT_FALSE(values.IsNone(0x1000));  // unreadable
  EXPECT_TRUE(values.IsNone(none_));
}

TEST(ListSource, MarksTheCurrentLineLikeGdb) {
  const std::string path = testing::TestTempPath("py_list_test.py");
  {
    std::ofstream out(path);
    for (int i = 1; i <= 20; ++i) out << "line " << i << "\n";
  }
  auto listing = ListSource(path, 10 - 5, 10 + 5, 10);
  ASSERT_TRUE(listing.ok()) << listing.error().message;
  EXPECT_EQ(*listing,
            "   5    line 5\n   6    line 6\n   7    line 7\n   8    line 8\n   9    line 9\n"
            " >10    line 10\n  11    line 11\n  12    line 12\n  13    line 13\n  14    line 14\n"
            "  15    line 15\n");
  // Near the top and past the end: what there is.
  listing = ListSource(path, 2 - 5, 2 + 5, 2);
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(listing->substr(0, 30), "   1    line 1\n  >2    line 2\n");
  listing = ListSource(path, 18, 25, 20);
  ASSERT_TRUE(listing.ok());
  EXPECT_EQ(*listing, "  18    line 18\n  19    line 19\n >20    line 20\n");
  std::remove(path.c_str());
  EXPECT_FALSE(ListSource(path, 1, 10, 1).ok());
}

}  // namespace
}  // namespace pyunwind
