#include "core/commands/arguments.h"

#include <gtest/gtest.h>

#include "core/commands/commands.h"
#include "core/session/frame_selections.h"

namespace pyunwind {
namespace {

using Words = std::vector<std::string>;

// The words LLDB 14's own splitter makes of these lines (checked by
// tests/e2e/same_output_test.cc in both debuggers).
TEST(SplitCommandLine, QuotesAndBackslashesAsLldb) {
  EXPECT_EQ(SplitCommandLine("  --all\t--json "), (Words{"--all", "--json"}));
  EXPECT_EQ(SplitCommandLine("'a b' \"c d\""), (Words{"a b", "c d"}));
  EXPECT_EQ(SplitCommandLine("a\"b c\"d"), (Words{"ab cd"}));
  EXPECT_EQ(SplitCommandLine("'a\\b' \"a\\b\" \"a\\\"b\" \"a\\\\b\""),
            (Words{"a\\b", "a\\b", "a\"b", "a\\b"}));
  EXPECT_EQ(SplitCommandLine("a\\ b"), (Words{"a b"}));
  EXPECT_EQ(SplitCommandLine("\"unclosed one"), (Words{"unclosed one"}));
  EXPECT_EQ(SplitCommandLine("''"), (Words{""}));
  EXPECT_TRUE(SplitCommandLine("").empty());
}

TEST(ParseUnsigned, DigitsOnlyUpToMax) {
  EXPECT_EQ(ParseUnsigned("42"), 42u);
  EXPECT_EQ(ParseUnsigned("0x1f", UINT64_MAX, 16), 0x1fu);
  EXPECT_EQ(ParseUnsigned("1f", UINT64_MAX, 16), 0x1fu);
  EXPECT_EQ(ParseUnsigned("10", 9), std::nullopt);
  for (const char* bad : {"", "-1", "+1", " 1", "1 ", "1x", "0x1"}) {
    EXPECT_EQ(ParseUnsigned(bad), std::nullopt) << bad;
  }
}

TEST(FrameSelections, KeptForTheStopAndThread) {
  FrameSelections selections;
  const ProcessStop stop{100, 1, 5};
  selections.Set(stop, 7, 2);
  EXPECT_EQ(selections.Get(stop, 7), 2u);
  EXPECT_EQ(selections.Get(stop, 8), std::nullopt);
  EXPECT_EQ(selections.Get({100, 2, 5}, 7), std::nullopt);  // another attach
  EXPECT_EQ(selections.Get({100, 1, 6}, 7), std::nullopt);  // resumed since
  EXPECT_EQ(selections.Get(stop, 7), std::nullopt);         // and forgotten
}

// "--name VALUE" and "--name=VALUE" (py-bt --limit, --source-dir; py-tasks --name...; --outfile).
TEST(OptionWithValue, BothForms) {
  EXPECT_TRUE(IsOptionWithValue("--limit", "--limit"));
  EXPECT_TRUE(IsOptionWithValue("--limit=3", "--limit"));
  EXPECT_TRUE(IsOptionWithValue("--limit=", "--limit"));
  EXPECT_FALSE(IsOptionWithValue("--limits", "--limit"));
  EXPECT_FALSE(IsOptionWithValue("--lim", "--limit"));
  const std::vector<std::string> args = {"--limit", "3", "--limit=4", "--limit"};
  size_t i = 0;
  EXPECT_EQ(TakeOptionValue(args, i, "--limit"), "3");
  EXPECT_EQ(i, 1u);
  i = 2;
  EXPECT_EQ(TakeOptionValue(args, i, "--limit"), "4");
  EXPECT_EQ(i, 2u);
  i = 3;
  EXPECT_EQ(TakeOptionValue(args, i, "--limit"), std::nullopt);
  EXPECT_EQ(i, 3u);
}

// (Was lldb_plugin/args_test.cc: now the one error line of both front-ends.)
TEST(ErrorLine, StripsPrefixAndNewline) {
  EXPECT_EQ(ErrorLine("error: pyunwind: no Python found\n"), "pyunwind: no Python found");
  EXPECT_EQ(ErrorLine("pyunwind: bad option --x\n"), "pyunwind: bad option --x");
  EXPECT_EQ(ErrorLine("pyunwind: plain"), "pyunwind: plain");
}

TEST(ErrorLine, NeverEmpty) {
  EXPECT_FALSE(ErrorLine("").empty());
  EXPECT_FALSE(ErrorLine("\n").empty());
  EXPECT_FALSE(ErrorLine("error: \n").empty());
}

}  // namespace
}  // namespace pyunwind
