#include "lldb_plugin/args.h"

namespace pyunwind_lldb {

std::vector<std::string> ArgvToVector(char** argv) {
  std::vector<std::string> args;
  if (argv == nullptr) return args;
  for (char** arg = argv; *arg != nullptr; ++arg) args.emplace_back(*arg);
  return args;
}

std::string ErrorLine(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.remove_suffix(1);
  constexpr std::string_view kPrefix = "error: ";
  if (text.substr(0, kPrefix.size()) == kPrefix) text.remove_prefix(kPrefix.size());
  if (text.empty()) return "pyunwind: the command failed";
  return std::string(text);
}

}  // namespace pyunwind_lldb
