#include "core/render/json_string.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

namespace pyunwind {
namespace {

std::string Appended(std::string_view text) {
  std::string out = "x";
  AppendJsonString(out, text);
  return out;
}

TEST(AppendJsonString, SameAsTheLibraryForEveryKindOfName) {
  using namespace std::string_literals;
  for (const std::string& text :
       {""s, "worker-3"s, "say \"hi\""s, "back\\slash"s, "tab\there"s, "\x1b[31mRED\r\n"s,
        "größe🐍"s, "bad \xff\xfe utf-8"s, "nul\0in"s, "del\x7f"s}) {
    SCOPED_TRACE(text);
    const std::string want =
        nlohmann::json(text).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    EXPECT_EQ(Appended(text), "x" + want);
    EXPECT_TRUE(nlohmann::json::accept(Appended(text).substr(1)));
  }
}

}  // namespace
}  // namespace pyunwind
