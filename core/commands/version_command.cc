#include "core/commands/version_command.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/base/printable.h"
#include "core/layout/minor_versions.h"
#include "core/render/json_string.h"
#include "packaging/build_info.h"

namespace pyunwind {

namespace {

struct KnownBuilds {
  std::string version;  // "3.13"
  std::vector<std::string> builds;
};

std::vector<KnownBuilds> KnownCPythons() {
  std::vector<KnownBuilds> known;
  for (const MinorVersion* minor : AllReadVersions()) {
    KnownBuilds entry{fmt::format("{}.{}", minor->major, minor->minor), {"default"}};
    if (ReadsFreeThreaded(*minor)) entry.builds.push_back("free-threaded");
    known.push_back(std::move(entry));
  }
  return known;
}

}  // namespace

CommandOutput RunVersion(const ParsedArgs& args, const CommandContext& context) {
  const bool json = args.Has("--json");
  const std::string debugger = context.debugger.empty() ? "unknown" : context.debugger;
  const std::vector<KnownBuilds> cpythons = KnownCPythons();
  if (json) {
    nlohmann::json doc;
    doc["version"] = kPyunwindVersion;
    doc["git_revision"] = kGitRevision;
    doc["debugger"] = debugger;
    doc["cpython"] = nlohmann::json::array();
    for (const KnownBuilds& known : cpythons) {
      doc["cpython"].push_back({{"version", known.version}, {"builds", known.builds}});
    }
    return {DumpJson(doc) + "\n", false};
  }
  std::string out = fmt::format("pyunwind {} (git revision {})\n", kPyunwindVersion, kGitRevision);
  out += fmt::format("running in {}\n", PrintableText(debugger));
  out += "reads CPython:";
  for (size_t i = 0; i < cpythons.size(); ++i) {
    std::string builds;
    for (const std::string& build : cpythons[i].builds) builds += (builds.empty() ? "" : ", ") + build;
    out += fmt::format("{} {} ({})", i == 0 ? "" : ";", cpythons[i].version, builds);
  }
  return {out + "\n", false};
}

}  // namespace pyunwind
