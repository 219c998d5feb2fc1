#include "tests/e2e/scenario_sources.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <map>

namespace pyunwind_e2e {
namespace {

std::vector<std::string> Subdirs(const std::string& dir) {
  std::vector<std::string> names;
  if (DIR* d = opendir(dir.c_str())) {
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name != "." && name != ".." && FileExists(dir + "/" + name + "/.")) names.push_back(name);
    }
    closedir(d);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The interpreter of a live source, or an error ("skip: ..." when it is not installed).
std::string LivePython(const std::string& source, std::string* error) {
  if (source == "debian_3_11") return kDebianPython;
  if (source == "debian_3_11d") {
    if (FileExists("/usr/bin/python3.11d")) return "/usr/bin/python3.11d";
    *error = "skip: Debian's debug build /usr/bin/python3.11d is not installed (python3.11-dbg)";
    return "";
  }
  if (source == "pyenv_3_11_7") {
    if (auto python = PyenvPython("3.11.7")) return *python;
    *error = "skip: pyenv's Python 3.11.7 is not installed";
    return "";
  }
  *error = "unknown live source '" + source + "'";
  return "";
}

std::map<std::string, Source> started;  // live sources, by "source/scenario"
std::map<std::string, std::string> gcore_errors;  // by "source/scenario"
Source core_source;
std::string core_dir;  // of core_source

void ForgetCore() {
  if (!core_source.core.empty()) unlink(core_source.core.c_str());
  core_source = Source{};
  core_dir.clear();
}

}  // namespace

std::vector<std::string> FixtureVersions(const std::string& scenario) {
  std::vector<std::string> versions;
  const std::string cores = SharedDir() + "/fixtures/cores";
  for (const std::string& v : Subdirs(cores)) {
    const std::string dir = cores + "/" + v + "/" + scenario;
    if (FileExists(dir + "/core.xz") && FileExists(dir + "/truth.json")) versions.push_back(v);
  }
  return versions;
}

std::string SourceCase::CoreDir() const {
  return SharedDir() + "/fixtures/cores/" + source + "/" + scenario;
}

void PrintTo(const SourceCase& c, std::ostream* os) {
  *os << c.scenario << (c.gcore ? " gcore core of live " : c.live ? " live " : " core ") << c.source << " in "
      << DebuggerName(c.debugger);
}

std::string SourceCaseName(const ::testing::TestParamInfo<SourceCase>& info) {
  const char* kind = info.param.gcore ? "gcore_" : info.param.live ? "live_" : "core_";
  return SanitizeName(std::string(kind) + info.param.source + "_" +
                      DebuggerName(info.param.debugger));
}

std::vector<SourceCase> SourceCases(const std::string& scenario,
                                    const std::vector<std::string>& live_sources) {
  std::vector<SourceCase> cases;
  for (const std::string& source : live_sources) {
    for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cases.push_back({scenario, source, true, d});
  }
  for (const std::string& v : FixtureVersions(scenario)) {
    for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cases.push_back({scenario, v, false, d});
  }
  return cases;
}

std::vector<SourceCase> LiveAndGcoreCases(const std::string& scenario,
                                          const std::vector<std::string>& live_sources) {
  std::vector<SourceCase> cases;
  for (const std::string& source : live_sources) {
    for (bool gcore : {false, true}) {
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) {
        cases.push_back({scenario, source, true, d, gcore});
      }
    }
  }
  return cases;
}

std::vector<ReleaseSource> ReleaseSources(Debugger debugger) {
  return {{{"threads", "debian_3_11", true, debugger}},
          {{"threads", "3.12.6", false, debugger}},
          {{"threads", "3.15.2", false, debugger}},
          {{"asyncio_tree", "3.14.7", false, debugger}, true}};
}

const Source* Sources::Of(const SourceCase& c, std::string* error) {
  if (c.live) {
    const std::string key = c.source + "/" + c.scenario;
    Source& s = started[key];
    if (!s.scenario && s.error.empty()) {
      const std::string python = LivePython(c.source, &s.error);
      if (s.error.empty()) s.scenario = Scenario::Start(python, c.scenario, &s.error);
      if (s.scenario) s.truth = s.scenario->truth();
    }
    *error = s.error;
    if (!s.scenario) return nullptr;
    if (c.gcore && s.gcore.empty()) {
      std::string& gcore_error = gcore_errors[key];
      if (gcore_error.empty()) {
        s.gcore = MakeCore(s.scenario->pid(), SanitizeName(c.scenario + "_" + c.source), &gcore_error);
      }
      *error = gcore_error;
      if (s.gcore.empty()) return nullptr;
    }
    return &s;
  }
  if (core_dir != c.CoreDir()) {
    ForgetCore();
    core_dir = c.CoreDir();
    try {
      core_source.truth = json::parse(ReadFile(core_dir + "/truth.json"));
    } catch (const std::exception& e) {
      core_source.error = "cannot parse " + core_dir + "/truth.json: " + e.what();
    }
    const std::string path = TempDir() + "/" + SanitizeName(c.scenario + "_" + c.source) + ".core";
    if (core_source.error.empty() && DecompressXz(core_dir + "/core.xz", path, &core_source.error)) {
      core_source.core = path;
    }
  }
  *error = core_source.error;
  return core_source.core.empty() ? nullptr : &core_source;
}

void Sources::ForgetAll() {
  ForgetCore();
  for (auto& [key, s] : started) {
    if (!s.gcore.empty()) unlink(s.gcore.c_str());
  }
  started.clear();
  gcore_errors.clear();
}

Target TargetOf(const SourceCase& c, const Source& source) {
  Target target;
  if (c.live && c.gcore) {
    target.core = source.gcore;
  } else if (c.live) {
    target.pid = source.scenario->pid();
  } else {
    target.core = source.core;
  }
  return target;
}

void SourceTest::SetUp() {
  std::string error;
  install_ = Installed(&error);
  ASSERT_NE(install_, nullptr) << error;
  source_ = Sources::Of(GetParam(), &error);
  if (!source_) PYU_SKIP_OR_FAIL(error);
}

}  // namespace pyunwind_e2e
