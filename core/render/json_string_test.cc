#include "core/render/json_string.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace pyunwind {
namespace {

using namespace std::string_literals;

std::string Appended(std::string_view text) {
  std::string out = "x";
  AppendJsonString(out, text);
  return out;
}

// No raw byte of an unsafe code point: no C0 control, no DEL, no UTF-8 of a C1 control
// (C2 80-9F), of a separator or bidi control (E2 80 A8-AE, E2 81 A6-A9), ...
void ExpectTerminalSafe(const std::string& json) {
  for (char c : json) {
    EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << json;
  }
  for (const std::string& raw : {"\xc2\x85"s, "\xc2\x9b"s, "\xe2\x80\xae"s, "\xe2\x81\xa6"s,
                                 "\xe2\x80\xa8"s, "\xe2\x80\x8b"s, "\xef\xbb\xbf"s,
                                 "\xf3\xa0\x80\x81"s, "\xc2\xad"s}) {
    EXPECT_EQ(json.find(raw), std::string::npos) << json;
  }
}

TEST(AppendJsonString, SameAsTheLibraryWhereNothingIsUnsafe) {
  for (const std::string& text :
       {""s, "worker-3"s, "say \"hi\""s, "back\\slash"s, "tab\there"s, "\x1b[31mRED\r\n"s,
        "größe🐍"s, "bad \xff\xfe utf-8"s, "nul\0in"s, "nbsp\xc2\xa0"s}) {
    SCOPED_TRACE(text);
    const std::string want =
        nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    EXPECT_EQ(Appended(text), "x" + want);
    EXPECT_TRUE(nlohmann::json::accept(Appended(text).substr(1)));
  }
}

TEST(AppendJsonString, UnsafeCodePointsAreEscapedAsTheTextOutputEscapesThem) {
  EXPECT_EQ(Appended("del\x7f"), R"(x"del\u007f")");
  EXPECT_EQ(Appended("csi\xc2\x9b" "2J"), R"(x"csi\u009b2J")");           // C1 CSI
  EXPECT_EQ(Appended("evil\xe2\x80\xaeyp.txt"), R"(x"evil\u202eyp.txt")");  // RLO
  EXPECT_EQ(Appended("\xe2\x81\xa6x\xe2\x81\xa9"), R"(x"\u2066x\u2069")");   // isolates
  EXPECT_EQ(Appended("\xd8\x9c\xe2\x80\x8e\xe2\x80\x8f"), R"(x"\u061c\u200e\u200f")");
  EXPECT_EQ(Appended("a\xe2\x80\xa8" "b\xe2\x80\xa9"), R"(x"a\u2028b\u2029")");
  EXPECT_EQ(Appended("zw\xe2\x80\x8b\xe2\x80\x8d\xef\xbb\xbf\xc2\xad"),
            R"(x"zw\u200b\u200d\ufeff\u00ad")");
  // Above U+FFFF: a surrogate pair (U+E0001 LANGUAGE TAG, U+1D173 MUSICAL SYMBOL BEGIN BEAM).
  EXPECT_EQ(Appended("\xf3\xa0\x80\x81\xf0\x9d\x85\xb3"), R"(x"\udb40\udc01\ud834\udd73")");
  // What a reader gets back is the text itself.
  const std::string text = "\x1b]0;T\x07\xc2\x9b\xe2\x80\xae\xf3\xa0\x81\xa1ok🐍";
  EXPECT_EQ(nlohmann::json::parse(Appended(text).substr(1)).get<std::string>(), text);
}

TEST(AppendJsonString, InvalidUtf8StaysValidJson) {
  for (const std::string& text : {"\xff"s, "\xc3"s, "\xc0\xaf"s, "\xed\xa0\x80"s,
                                  "\xe2\x80"s "\xae"s "\xe2\x80"s, "ok\xc2"s, "\xf4\x90\x80\x80"s,
                                  "\xc2\x9b\xff\xe2\x80\xae"s}) {
    SCOPED_TRACE(text);
    const std::string json = Appended(text).substr(1);
    EXPECT_TRUE(nlohmann::json::accept(json)) << json;
    ExpectTerminalSafe(json);
  }
}

TEST(DumpJson, EscapesStringsAndKeysOfATree) {
  nlohmann::ordered_json doc = {{"name\xe2\x80\xae", "a\x7f\xc2\x85\xe2\x80\x8b"},
                                {"list", {"\xf3\xa0\x80\x81", 1, nullptr}},
                                {"bad", "\xff\xfe"}};
  const std::string json = DumpJson(doc);
  EXPECT_EQ(json,
            R"({"name\u202e":"a\u007f\u0085\u200b","list":["\udb40\udc01",1,null],"bad":"��"})");
  EXPECT_EQ(nlohmann::ordered_json::parse(json), nlohmann::ordered_json::parse(doc.dump(
                                                     -1, ' ', false,
                                                     nlohmann::json::error_handler_t::replace)));
  ExpectTerminalSafe(json);
  EXPECT_EQ(DumpJson(nlohmann::json{{"k", "größe"}}), R"({"k":"größe"})");
}

}  // namespace
}  // namespace pyunwind
