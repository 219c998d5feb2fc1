// A command's options, declared once (name, short name, the kind of value it takes, help),
// and the one parser every command's words go through: the spelling of options, their
// values and the errors about them are the same for every command.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/result.h"

namespace pyunwind {

enum class ValueKind {
  kNone,    // a flag: --json
  kNumber,  // a number from `min` to `max`: --limit N
  kText,    // a word that is not empty: --outfile FILE
  kChoice,  // one of `choices`: --state STATE
};

struct OptionSpec {
  std::string_view name;             // "--limit"
  std::string_view short_name = {};  // "-a"; empty: none
  ValueKind kind = ValueKind::kNone;
  std::string_view value_name = {};  // what the help calls the value: "N", "DIR"
  std::string_view help = {};        // one sentence, wrapped by the help
  uint64_t min = 0;                  // kNumber
  uint64_t max = 0;
  std::vector<std::string_view> choices = {};  // kChoice
  // What "--x needs ..." says the value is, when it is missing (kText, kChoice).
  std::string_view needs = "a value";
  std::string_view alias = {};  // another spelling the help does not show ("--no-colour")
};

// A command line taken apart by ParseOptions: the options given, in order, with their
// values, and the words that are not options (operands).
class ParsedArgs {
 public:
  // Whether `option` (a name of the command's OptionSpecs) was given.
  bool Has(std::string_view option) const;
  // The value of the last `option` given, if any.
  std::optional<std::string> Text(std::string_view option) const;
  std::optional<uint64_t> Number(std::string_view option) const;
  // Every value of `option`, in the order given (a repeated option).
  std::vector<std::string> Texts(std::string_view option) const;
  const std::vector<std::string>& operands() const { return operands_; }
  // The options given, in order, with their values ("" for a flag).
  const std::vector<std::pair<const OptionSpec*, std::string>>& given() const { return given_; }

 private:
  friend Result<ParsedArgs> ParseOptions(std::string_view command, std::string_view help_name,
                                         const std::vector<OptionSpec>& options,
                                         size_t max_operands,
                                         const std::vector<std::string>& args);
  const OptionSpec& Declared(std::string_view option) const;

  const std::vector<OptionSpec>* options_ = nullptr;
  std::vector<std::pair<const OptionSpec*, std::string>> given_;
  std::vector<std::string> operands_;
};

// Takes `args` apart by `options`: "--name", a short name, "--name VALUE" and
// "--name=VALUE"; a word starting with '-' is an option, any other an operand (at most
// `max_operands`). Errors are one sentence starting with "`command`: " and pointing to
// "help `help_name`".
Result<ParsedArgs> ParseOptions(std::string_view command, std::string_view help_name,
                                const std::vector<OptionSpec>& options, size_t max_operands,
                                const std::vector<std::string>& args);

// The usage line ("Usage: py-bt [--all|-a] ... OPERANDS"), wrapped, and the options'
// help, one aligned entry each, as `help` prints them.
std::string UsageText(std::string_view help_name, const std::vector<OptionSpec>& options,
                      std::string_view operands);
std::string OptionsText(const std::vector<OptionSpec>& options);

}  // namespace pyunwind
