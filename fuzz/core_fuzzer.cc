// libFuzzer target: the whole pipeline (runtime location, threads, frames,
// code objects, location tables, locals reprs, asyncio tasks, formatting) over
// a memory image made from the input. See README.md.
//
// Inputs:
//   "\x7fELF..."  an ELF core image, read by ElfCoreTarget::FromBytes
//                 (seeds: real fixture cores shrunk by make_seed).
//   "PYUS..."     a compact interpreter state (fuzz/state_file.h), expanded
//                 into an ELF core.
//   anything else the bytes as one writable mapping at 0x10000000 (the
//                 runtime scan over arbitrary memory).
// Each command must return data or one error line; JSON output must parse.
// Time and memory are bounded by libFuzzer's -timeout and -rss_limit_mb
// (run.sh).
#include <elf.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/commands/commands.h"
#include "core/target/elf_core_target.h"
#include "fuzz/state_file.h"
#include "fuzz/zero_secret_target.h"

namespace {

struct Invocation {
  std::string name;
  std::vector<std::string> args;
  bool json;
};

const std::vector<Invocation>& Invocations() {
  static const std::vector<Invocation> invocations = [] {
    std::vector<Invocation> list;
    for (const pyunwind::CommandInfo& info : pyunwind::AllCommands()) {
      const bool has_json = info.help.find("--json") != std::string::npos;
      if (info.name == "py-bt") {
        list.push_back({"py-bt", {"--all", "--json"}, true});
        list.push_back({"py-bt", {"--verbose"}, false});  // the selected thread, as text
        if (info.help.find("--locals") != std::string::npos) {
          list.push_back({"py-bt", {"--all", "--locals", "--json"}, true});
          list.push_back({"py-bt", {"--all", "--locals"}, false});
        }
      } else if (info.name == "py-tasks") {
        list.push_back({"py-tasks", {"--json"}, true});
        list.push_back({"py-tasks", {"--tree"}, false});
        list.push_back({"py-tasks", {"--running"}, false});
      } else if (has_json) {
        list.push_back({info.name, {"--json"}, true});
      } else if (info.name.rfind("py-bt", 0) != 0 && info.name != "py-up" &&
                 info.name != "py-down") {
        // py-locals, py-frame, py-list: about the selected thread's innermost frame.
        list.push_back({info.name, {}, false});
      }
    }
    return list;
  }();
  return invocations;
}

[[noreturn]] void Fail(const Invocation& inv, const std::string& why, const std::string& text) {
  std::fprintf(stderr, "core_fuzzer: %s", inv.name.c_str());
  for (const std::string& a : inv.args) std::fprintf(stderr, " %s", a.c_str());
  std::fprintf(stderr, ": %s\n--- output:\n%.2000s\n", why.c_str(), text.c_str());
  std::abort();
}

void RunAll(pyunwind::Target& target) {
  const std::vector<uint64_t> tids = target.ThreadIds();
  for (const Invocation& inv : Invocations()) {
    pyunwind::CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
    if (!tids.empty()) context.selected_thread_id = tids.front();
    const pyunwind::CommandOutput out = pyunwind::RunCommand(inv.name, inv.args, context);
    if (out.text.empty() || out.text.back() != '\n') Fail(inv, "output does not end a line", out.text);
    if (out.failed) {
      if (out.text.rfind("pyunwind: ", 0) != 0) Fail(inv, "error without 'pyunwind: '", out.text);
      if (out.text.find('\n') != out.text.size() - 1) Fail(inv, "error of several lines", out.text);
      continue;
    }
    if (inv.json && !nlohmann::json::accept(out.text)) Fail(inv, "JSON does not parse", out.text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> image;
  const uint8_t* bytes = data;
  size_t length = size;
  if (size >= 4 && std::memcmp(data, "PYUS", 4) == 0) {
    image = pyunwind::fuzz::ExpandState(data, size);
  } else if (!(size >= 4 && std::memcmp(data, ELFMAG, SELFMAG) == 0)) {
    if (size == 0) return 0;
    image = pyunwind::fuzz::CoreOfOneMapping(0x10000000, std::vector<uint8_t>(data, data + size));
  }
  if (!image.empty()) {
    bytes = image.data();
    length = image.size();
  }
  auto target = pyunwind::ElfCoreTarget::FromBytes(bytes, length);
  if (!target.ok()) return 0;
  pyunwind::fuzz::ZeroHashSecretTarget with_secret(**target);
  RunAll(with_secret);
  return 0;
}
