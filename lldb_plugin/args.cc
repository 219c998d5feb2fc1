#include "lldb_plugin/args.h"

namespace pyunwind_lldb {

std::vector<std::string> ArgvToVector(char** argv) {
  std::vector<std::string> args;
  if (argv == nullptr) return args;
  for (char** arg = argv; *arg != nullptr; ++arg) args.emplace_back(*arg);
  return args;
}

}  // namespace pyunwind_lldb
