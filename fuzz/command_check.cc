#include "fuzz/command_check.h"

#include <elf.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include <nlohmann/json.hpp>

#include "core/target/elf_core_target.h"
#include "fuzz/state_file.h"
#include "fuzz/zero_secret_target.h"

namespace pyunwind::fuzz {

std::string Invocation::CommandLine() const {
  std::string line = name;
  for (const std::string& arg : args) line += " " + arg;
  return line;
}

const std::vector<Invocation>& Invocations() {
  static const std::vector<Invocation> invocations = [] {
    std::vector<Invocation> list;
    for (const CommandInfo& info : AllCommands()) {
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

std::string Violation(const Invocation& invocation, const CommandOutput& out) {
  if (out.text.empty() || out.text.back() != '\n') return "output does not end a line";
  if (out.failed) {
    if (out.text.rfind("pyunwind: ", 0) != 0) return "error without 'pyunwind: '";
    if (out.text.find('\n') != out.text.size() - 1) return "error of several lines";
    return "";
  }
  if (invocation.json && !nlohmann::json::accept(out.text)) return "JSON does not parse";
  return "";
}

InputReport CheckCommands(Target& target) {
  InputReport report;
  report.target_read = true;
  const std::vector<uint64_t> tids = target.ThreadIds();
  for (const Invocation& invocation : Invocations()) {
    CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
    if (!tids.empty()) context.selected_thread_id = tids.front();
    context.output_limit = kCheckOutputLimit;
    const CommandOutput out = RunCommand(invocation.name, invocation.args, context);
    report.largest_output = std::max(report.largest_output, out.text.size());
    const std::string violation = Violation(invocation, out);
    if (!violation.empty()) {
      report.findings.push_back({invocation.CommandLine(), violation, out.text});
    } else {
      (out.failed ? report.failed : report.succeeded).push_back(invocation.CommandLine());
    }
  }
  return report;
}

InputReport CheckInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> image;
  const uint8_t* bytes = data;
  size_t length = size;
  if (size >= 4 && std::memcmp(data, "PYUS", 4) == 0) {
    image = ExpandState(data, size);
  } else if (!(size >= SELFMAG && std::memcmp(data, ELFMAG, SELFMAG) == 0)) {
    if (size == 0) return {};
    image = CoreOfOneMapping(0x10000000, std::vector<uint8_t>(data, data + size));
  }
  if (!image.empty()) {
    bytes = image.data();
    length = image.size();
  }
  auto target = ElfCoreTarget::FromBytes(bytes, length);
  if (!target.ok()) return {};
  ZeroHashSecretTarget with_secret(**target);
  return CheckCommands(with_secret);
}

}  // namespace pyunwind::fuzz
