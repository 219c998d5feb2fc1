#include "core/commands/options.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

#include "core/commands/arguments.h"

namespace pyunwind {
namespace {

// The width help text is wrapped at.
constexpr size_t kHelpWidth = 88;

bool Names(const OptionSpec& option, std::string_view word) {
  return word == option.name || (!option.short_name.empty() && word == option.short_name) ||
         (!option.alias.empty() && word == option.alias);
}

// The option `word` names ("--limit", "-a", "--limit=3"), if the command has it.
const OptionSpec* FindOption(const std::vector<OptionSpec>& options, std::string_view word) {
  for (const OptionSpec& option : options) {
    if (Names(option, word)) return &option;
    if (option.kind != ValueKind::kNone && IsOptionWithValue(word, option.name)) return &option;
  }
  return nullptr;
}

std::string ChoicesText(const std::vector<std::string_view>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size(); ++i) {
    if (i > 0) out += i + 1 == choices.size() ? " or " : ", ";
    out += choices[i];
  }
  return out;
}

// `value` checked against what `option` takes; the error names `command`.
Status CheckValue(std::string_view command, const OptionSpec& option, const std::string& value) {
  switch (option.kind) {
    case ValueKind::kNone:
      break;
    case ValueKind::kNumber: {
      const auto n = ParseUnsigned(value, option.max);
      if (!n || *n < option.min) {
        return BadArgument(fmt::format("{}: {} wants a number from {} to {}, not '{}'", command,
                                     option.name, option.min, option.max, value));
      }
      break;
    }
    case ValueKind::kText:
      if (value.empty()) return BadArgument(fmt::format("{}: {} needs {}", command, option.name, option.needs));
      break;
    case ValueKind::kChoice:
      if (std::find(option.choices.begin(), option.choices.end(), value) == option.choices.end()) {
        return BadArgument(fmt::format("{}: {} wants {}, not '{}'", command, option.name,
                                     ChoicesText(option.choices), value));
      }
      break;
  }
  return Ok{};
}

// `text` wrapped at kHelpWidth into lines that start at column `indent` (the first one
// where the caller left off, at `column`).
std::string Wrapped(std::string_view text, size_t indent, size_t column) {
  std::string out;
  size_t at = column;
  while (!text.empty()) {
    const size_t space = text.find(' ');
    const std::string_view word = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (at > indent && at + 1 + word.size() > kHelpWidth) {
      out += "\n" + std::string(indent, ' ');
      at = indent;
    } else if (at > indent) {
      out += ' ';
      ++at;
    }
    out += word;
    at += word.size();
  }
  return out + "\n";
}

std::string Label(const OptionSpec& option) {
  std::string label = option.short_name.empty()
                          ? std::string(option.name)
                          : fmt::format("{}, {}", option.short_name, option.name);
  if (option.kind != ValueKind::kNone) label += fmt::format(" {}", option.value_name);
  return label;
}

}  // namespace

const OptionSpec& ParsedArgs::Declared(std::string_view option) const {
  for (const OptionSpec& spec : *options_) {
    if (spec.name == option) return spec;
  }
  assert(false && "an option the command does not declare");
  return options_->front();
}

bool ParsedArgs::Has(std::string_view option) const {
  const OptionSpec& spec = Declared(option);
  return std::any_of(given_.begin(), given_.end(), [&](const auto& g) { return g.first == &spec; });
}

std::optional<std::string> ParsedArgs::Text(std::string_view option) const {
  const OptionSpec& spec = Declared(option);
  for (auto it = given_.rbegin(); it != given_.rend(); ++it) {
    if (it->first == &spec) return it->second;
  }
  return std::nullopt;
}

std::optional<uint64_t> ParsedArgs::Number(std::string_view option) const {
  const std::optional<std::string> text = Text(option);
  if (!text) return std::nullopt;
  return ParseUnsigned(*text, Declared(option).max);  // checked by ParseOptions
}

std::vector<std::string> ParsedArgs::Texts(std::string_view option) const {
  const OptionSpec& spec = Declared(option);
  std::vector<std::string> out;
  for (const auto& [given, value] : given_) {
    if (given == &spec) out.push_back(value);
  }
  return out;
}

Result<ParsedArgs> ParseOptions(std::string_view command, std::string_view help_name,
                                const std::vector<OptionSpec>& options, size_t max_operands,
                                const std::vector<std::string>& args) {
  ParsedArgs parsed;
  parsed.options_ = &options;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word.size() < 2 || word[0] != '-') {
      if (parsed.operands_.size() == max_operands) {
        return BadArgument(fmt::format("{}: unexpected argument '{}' (see 'help {}')", command,
                                     word, help_name));
      }
      parsed.operands_.push_back(word);
      continue;
    }
    const OptionSpec* option = FindOption(options, word);
    if (option == nullptr) {
      return BadArgument(
          fmt::format("{}: unknown option '{}' (see 'help {}')", command, word, help_name));
    }
    if (option->kind == ValueKind::kNone) {
      parsed.given_.emplace_back(option, std::string());
      continue;
    }
    std::optional<std::string> value = TakeOptionValue(args, i, option->name);
    if (!value) {
      return BadArgument(fmt::format("{}: {} needs {}", command, option->name,
                                   option->kind == ValueKind::kNumber ? "a number" : option->needs));
    }
    PYU_RETURN_IF_ERROR(CheckValue(command, *option, *value));
    parsed.given_.emplace_back(option, *std::move(value));
  }
  return parsed;
}

std::string UsageText(std::string_view help_name, const std::vector<OptionSpec>& options,
                      std::string_view operands) {
  std::vector<std::string> parts;
  for (const OptionSpec& option : options) {
    std::string part = fmt::format("[{}", option.name);
    if (!option.short_name.empty()) part += fmt::format("|{}", option.short_name);
    if (option.kind != ValueKind::kNone) part += fmt::format(" {}", option.value_name);
    parts.push_back(part + "]");
  }
  if (!operands.empty()) parts.emplace_back(operands);
  std::string out = fmt::format("Usage: {}", help_name);
  const size_t indent = out.size() + 1;
  size_t column = out.size();
  for (const std::string& part : parts) {
    if (column > indent && column + 1 + part.size() > kHelpWidth) {
      out += "\n" + std::string(indent - 1, ' ');
      column = indent - 1;
    }
    out += " " + part;
    column += 1 + part.size();
  }
  return out + "\n";
}

std::string OptionsText(const std::vector<OptionSpec>& options) {
  size_t width = 0;
  for (const OptionSpec& option : options) width = std::max(width, Label(option).size());
  std::string out;
  for (const OptionSpec& option : options) {
    const std::string label = Label(option);
    out += fmt::format("  {:<{}}  ", label, width);
    out += Wrapped(option.help, width + 4, width + 4);
  }
  return out;
}

}  // namespace pyunwind
