#include "core/commands/arguments.h"

#include <charconv>

namespace pyunwind {

bool IsOptionWithValue(std::string_view arg, std::string_view option) {
  return arg == option || (arg.size() > option.size() && arg.substr(0, option.size()) == option &&
                           arg[option.size()] == '=');
}

std::optional<std::string> TakeOptionValue(const std::vector<std::string>& args, size_t& i,
                                           std::string_view option) {
  const std::string& arg = args[i];
  if (arg != option) return arg.substr(option.size() + 1);  // --option=value
  if (i + 1 >= args.size()) return std::nullopt;
  return args[++i];
}

std::vector<std::string> SplitCommandLine(std::string_view line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote == '\'') {
      if (c == quote) quote = 0; else word += c;
    } else if (quote) {
      const char next = i + 1 < line.size() ? line[i + 1] : 0;
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && (next == '\\' || next == '"')) {
        word += line[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::optional<uint64_t> ParseUnsigned(std::string_view text, uint64_t max, int base) {
  if (base == 16 && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) return std::nullopt;
  return value;
}

}  // namespace pyunwind
