// Runs a pyunwind command on an ELF core file, without a debugger:
//   pyunwind_core CORE py-bt --all --json
#include <cstdio>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "core/target/elf_core_target.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s CORE COMMAND [ARGS...]\n", argv[0]);
    return 2;
  }
  auto target = pyunwind::ElfCoreTarget::Open(argv[1]);
  if (!target.ok()) {
    std::fprintf(stderr, "pyunwind: %s\n", target.error().message.c_str());
    return 1;
  }
  std::vector<std::string> args(argv + 3, argv + argc);
  pyunwind::CommandContext context{**target, std::nullopt, false, std::nullopt, std::nullopt};
  auto threads = (*target)->ThreadIds();
  if (!threads.empty()) context.selected_thread_id = threads.front();
  pyunwind::CommandOutput output = pyunwind::RunCommand(argv[2], args, context);
  std::fputs(output.text.c_str(), output.failed ? stderr : stdout);
  return output.failed ? 1 : 0;
}
