// The command table and the parser it drives: the spellings every command accepts, the
// errors it gives, and what the help, --outfile and the front-ends' list are made of.
#include "core/commands/command_table.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/base/limits.h"
#include "core/base/result.h"
#include "core/commands/commands.h"
#include "core/commands/options.h"

namespace pyunwind {
namespace {

using Words = std::vector<std::string>;

Result<ParsedArgs> Parse(std::string_view name, const Words& args) {
  const CommandSpec* command = FindCommand(name);
  EXPECT_NE(command, nullptr) << name;
  return ParseOptions(command->name, HelpName(*command), command->options, command->max_operands,
                      args);
}

std::string ErrorOf(std::string_view name, const Words& args) {
  auto parsed = Parse(name, args);
  return parsed.ok() ? "(parsed)" : parsed.error().message;
}

TEST(ParseOptions, LongShortAliasAndBothValueForms) {
  auto parsed = Parse("py-bt", {"-a", "--no-colour", "--limit", "3", "--source-dir=/a",
                                "--source-dir", "/b", "--outfile=out.txt"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_TRUE(parsed->Has("--all"));
  EXPECT_TRUE(parsed->Has("--no-color"));
  EXPECT_FALSE(parsed->Has("--json"));
  EXPECT_EQ(parsed->Number("--limit"), 3u);
  EXPECT_EQ(parsed->Texts("--source-dir"), (Words{"/a", "/b"}));
  EXPECT_EQ(parsed->Text("--outfile"), "out.txt");
  EXPECT_TRUE(parsed->operands().empty());
}

TEST(ParseOptions, TheLastValueGivenCounts) {
  auto parsed = Parse("py-tasks", {"--limit=2", "--state", "done", "--limit", "5", "--all"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->Number("--limit"), 5u);
  ASSERT_EQ(parsed->given().size(), 4u);
  EXPECT_EQ(parsed->given().back().first->name, "--all");
}

TEST(ParseOptions, Operands) {
  auto parsed = Parse("py-print", {"--depth", "2", "name"});
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->operands(), (Words{"name"}));
  EXPECT_EQ(ErrorOf("py-print", {"a", "b"}),
            "py-print: unexpected argument 'b' (see 'help py-print')");
  EXPECT_EQ(ErrorOf("py-up", {"1", "2"}), "py-up: unexpected argument '2' (see 'help py-up')");
  EXPECT_EQ(ErrorOf("py-bt", {"x"}), "py-bt: unexpected argument 'x' (see 'help py-bt')");
}

TEST(ParseOptions, Errors) {
  EXPECT_EQ(ErrorOf("py-bt", {"--bogus"}), "py-bt: unknown option '--bogus' (see 'help py-bt')");
  EXPECT_EQ(ErrorOf("version", {"--bogus"}),
            "version: unknown option '--bogus' (see 'help pyunwind version')");
  EXPECT_EQ(ErrorOf("py-bt", {"--limit"}), "py-bt: --limit needs a number");
  EXPECT_EQ(ErrorOf("py-bt", {"--limit", "0"}),
            "py-bt: --limit wants a number from 1 to " + std::to_string(kMaxFramesPerThread) +
                ", not '0'");
  EXPECT_EQ(ErrorOf("py-bt", {"--source-dir"}), "py-bt: --source-dir needs a directory");
  EXPECT_EQ(ErrorOf("py-bt", {"--outfile"}), "py-bt: --outfile needs a file name");
  EXPECT_EQ(ErrorOf("py-bt-full", {"--outfile="}), "py-bt-full: --outfile needs a file name");
  EXPECT_EQ(ErrorOf("py-tasks", {"--state", "later"}),
            "py-tasks: --state wants pending, running, done or all, not 'later'");
  EXPECT_EQ(ErrorOf("py-tasks", {"--name"}), "py-tasks: --name needs a value");
  EXPECT_EQ(ErrorOf("py-print", {"x", "--depth", "65"}),
            "py-print: --depth wants a number from 1 to 64, not '65'");
  EXPECT_EQ(ErrorOf("py-locals", {"--frame", "x"}),
            "py-locals: --frame wants a number from 0 to " +
                std::to_string(kMaxFramesPerThread) + ", not 'x'");
  // A flag takes no value.
  EXPECT_EQ(ErrorOf("py-bt", {"--json=1"}), "py-bt: unknown option '--json=1' (see 'help py-bt')");
}

// A command's wrong words fail as kBadArgument, whatever the message says.
TEST(ParseOptions, WrongWordsAreBadArguments) {
  const std::vector<std::pair<std::string_view, Words>> wrong = {
      {"py-tasks", {"--bogus"}},          {"py-tasks", {"--name"}},
      {"py-tasks", {"--state", "asleep"}}, {"py-tasks", {"--limit", "0"}},
      {"py-bt", {"--outfile"}},           {"py-locals", {"--frame", "x"}},
      {"py-up", {"1", "2"}}};
  for (const auto& [name, args] : wrong) {
    auto parsed = Parse(name, args);
    ASSERT_FALSE(parsed.ok()) << name << " " << args.front();
    EXPECT_EQ(parsed.error().kind, ErrorKind::kBadArgument) << parsed.error().message;
  }
  EXPECT_TRUE(Parse("py-tasks", {"--state", "all", "--limit", "3"}).ok());
}

TEST(CommandTable, NamesAreUniqueAndTheFrontEndsListIsTheTable) {
  std::set<std::string_view> names;
  for (const CommandSpec& command : CommandTable()) {
    EXPECT_TRUE(names.insert(command.name).second) << command.name;
    EXPECT_NE(command.run, nullptr) << command.name;
  }
  ASSERT_EQ(AllCommands().size(), CommandTable().size());
  for (size_t i = 0; i < CommandTable().size(); ++i) {
    EXPECT_EQ(AllCommands()[i].name, CommandTable()[i].name);
    EXPECT_EQ(AllCommands()[i].help, HelpText(CommandTable()[i]));
  }
  EXPECT_EQ(FindCommand("py-nope"), nullptr);
  EXPECT_FALSE(CommandReadsTarget("version"));
  EXPECT_TRUE(CommandReadsTarget("py-bt"));
}

TEST(CommandTable, OnlyTheLargeOutputsTakeOutfile) {
  std::set<std::string_view> takes;
  for (const CommandSpec& command : CommandTable()) {
    if (TakesOutfile(command)) takes.insert(command.name);
  }
  EXPECT_EQ(takes, (std::set<std::string_view>{"py-bt", "py-bt-full", "py-heap", "py-tasks", "py-waits"}));
}

// Every option is in the usage line and has a line of its own in the help.
TEST(CommandTable, HelpShowsEveryOption) {
  for (const CommandSpec& command : CommandTable()) {
    const std::string help = HelpText(command);
    EXPECT_EQ(help.rfind("Usage: " + HelpName(command) + (command.options.empty() &&
                                                                  command.operands.empty()
                                                              ? "\n"
                                                              : " "),
                         0),
              0u)
        << help;
    const std::string usage = help.substr(0, help.find(command.description));
    for (const OptionSpec& option : command.options) {
      EXPECT_NE(usage.find("[" + std::string(option.name)), std::string::npos) << help;
      EXPECT_NE(help.find("\n  " + std::string(option.short_name.empty() ? option.name
                                                                          : option.short_name)),
                std::string::npos)
          << help;
    }
    size_t start = 0;
    while (start < help.size()) {
      const size_t end = help.find('\n', start);
      EXPECT_LE(end - start, 88u) << help.substr(start, end - start);
      start = end + 1;
    }
  }
}

TEST(CommandTable, PyBtHelp) {
  const std::string help = HelpText(*FindCommand("py-bt"));
  EXPECT_EQ(help.substr(0, help.find('\n')),
            "Usage: py-bt [--all|-a] [--native] [--json] [--locals] [--limit N] [--verbose|-v]");
  EXPECT_NE(help.find("\n  -a, --all         every thread of every interpreter\n"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("\n  --source-dir DIR  look for each source file by its base name in DIR "
                      "first (the sources\n                    of a core made elsewhere); may "
                      "be repeated\n"),
            std::string::npos)
      << help;
}

}  // namespace
}  // namespace pyunwind
