// py-tasks against CPython's own remote reader. On 3.14+, `_remote_debugging` (the module
// behind `python -m asyncio ps/pstree`) reads a live process's tasks from outside, as
// pyunwind does; tests/data/remote_debugging_view.py writes what it says of a parked
// scenario (asyncio_tree: a TaskGroup, gather, an awaited task, a running task that blocks
// its loop; asyncio_edges: two loop threads, nested gathers, a chain of 1,501 coroutines, an
// async generator that awaits, a running task inside c2 -> c3 -> c4 -> c5 -> park), and
// `py-tasks --json --all` of the same process, live and from a gcore core of it, in LLDB and
// GDB, must say the same of every task it lists: its name, its coroutine chain (a running
// task's: get_async_stack_trace's frames, every frame above its coroutine included) and the
// tasks that await it (py-tasks names more: a gather's awaiter through nested gathers). Runs where Debian unstable's 3.14 and 3.15 are unpacked
// (.ci/fetch-pythons); skipped, saying so, where not.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

struct Case {
  std::string minor;     // "3.14"
  std::string scenario;  // a script of tests/data
  Debugger debugger = Debugger::kLldb;
  bool core = false;  // a gcore core of the live process, without the executable
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.scenario << " under " << c.minor << (c.core ? ", gcore core" : ", live") << ", in "
      << DebuggerName(c.debugger);
}

std::string CaseName(const ::testing::TestParamInfo<Case>& info) {
  const Case& c = info.param;
  return SanitizeName("sid_" + c.minor + "_" + c.scenario + (c.core ? "_core_" : "_live_") +
                      DebuggerName(c.debugger));
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const char* minor : {"3.14", "3.15"}) {
    for (const char* scenario : {"asyncio_tree", "asyncio_edges"}) {
      for (bool core : {false, true}) {
        for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cases.push_back({minor, scenario, d, core});
      }
    }
  }
  return cases;
}

// A scenario under one interpreter, what _remote_debugging said of it, and its core.
struct Running {
  ScenarioWithCore process;
  const Scenario* scenario = nullptr;
  json view;
  std::string error;  // "skip: ..." when what it needs is not here
};

class RemoteDebugging : public ::testing::TestWithParam<Case> {
 public:
  static void TearDownTestSuite() { running_.clear(); }

 protected:
  static Running& Of(const Case& c) {
    std::unique_ptr<Running>& r = running_[c.minor + "/" + c.scenario];
    if (r) return *r;
    r = std::make_unique<Running>();
    const std::optional<std::string> python = SidPython(c.minor);
    if (!python) {
      r->error = "skip: Debian unstable's " + c.minor + " is not unpacked (.ci/fetch-pythons)";
      return *r;
    }
    const Scenario* scenario = r->scenario = r->process.Start(*python, c.scenario, &r->error);
    if (!scenario) return *r;
    const std::string out = TempDir() + "/remote_view_" + SanitizeName(c.minor + c.scenario) + ".json";
    const RunResult view = RunCommand(
        {*python, ProjectFile("tests/data/remote_debugging_view.py"), std::to_string(scenario->pid()), out},
        120);
    if (!view.exited || view.exit_code != 0) {
      r->error = "remote_debugging_view.py: " + view.Describe();
      return *r;
    }
    try {
      r->view = json::parse(ReadFile(out));
    } catch (const std::exception& e) {
      r->error = std::string("cannot parse ") + out + ": " + e.what();
    }
    return *r;
  }

 private:
  static std::map<std::string, std::unique_ptr<Running>> running_;
};

std::map<std::string, std::unique_ptr<Running>> RemoteDebugging::running_;

std::vector<std::string> Qualnames(const json& coroutine_stack) {
  std::vector<std::string> names;
  for (const json& frame : coroutine_stack) names.push_back(frame.at("qualname"));
  return names;
}

// Every difference between py-tasks' tasks and _remote_debugging's, "" when none.
std::string CompareWithView(const json& view, const json& got) {
  std::string report;
  auto note = [&](const std::string& s) { report += "  " + s + "\n"; };
  std::map<std::string, json> by_id;
  for (const json& task : got.at("tasks")) by_id.emplace(task.at("id").get<std::string>(), task);
  std::map<std::string, std::vector<std::string>> running_stacks;
  for (const json& running : view.at("running")) {
    running_stacks[running.at("id").get<std::string>()] = running.at("stack");
  }
  for (const json& want : view.at("tasks")) {
    const std::string id = want.at("id");
    const std::string label = "task " + want.at("name").dump() + " (" + id + ")";
    auto found = by_id.find(id);
    if (found == by_id.end()) {
      note(label + " is not listed");
      continue;
    }
    const json& task = found->second;
    if (task.at("name") != want.at("name")) note(label + ": named " + task.at("name").dump());
    auto running = running_stacks.find(id);
    const std::vector<std::string> want_stack =
        running != running_stacks.end() ? running->second : want.at("stack").get<std::vector<std::string>>();
    const std::vector<std::string> stack = Qualnames(task.at("coroutine_stack"));
    // A chain deeper than py-tasks keeps (1024) is cut in the middle: compare its ends.
    constexpr size_t kHalf = 512;
    const bool cut = task.contains("coroutines_not_shown");
    if (cut ? stack.size() != 2 * kHalf || want_stack.size() <= 2 * kHalf ||
                  !std::equal(stack.begin(), stack.begin() + kHalf, want_stack.begin()) ||
                  !std::equal(stack.end() - kHalf, stack.end(), want_stack.end() - kHalf)
            : stack != want_stack) {
      note(label + ": coroutine stack " + json(stack).dump() + ", _remote_debugging " +
           json(want_stack).dump());
    }
    // CPython's reader names the awaiters a task records itself (_asyncio_awaited_by: the
    // task that called gather(), say); py-tasks names those too, and also the task that
    // awaits a gather whose children it is, through nested gathers, which that reader does
    // not follow (asyncio_edges' a-outer): such an edge must say "gather".
    std::set<std::string> want_awaiters;
    for (const json& awaiter : want.at("awaited_by")) want_awaiters.insert(awaiter.get<std::string>());
    std::set<std::string> awaiters;
    for (const json& edge : task.at("awaited_by")) {
      const std::string awaiter = edge.at("id");
      awaiters.insert(awaiter);
      if (!want_awaiters.count(awaiter) && edge.at("kind") != "gather") {
        note(label + ": awaited by " + edge.dump() + ", which _remote_debugging does not name");
      }
    }
    for (const std::string& awaiter : want_awaiters) {
      if (!awaiters.count(awaiter)) {
        note(label + ": not awaited by " + awaiter + ", which _remote_debugging names");
      }
    }
  }
  return report;
}

TEST_P(RemoteDebugging, PyTasksSaysWhatCPythonsReaderSays) {
  const Case& c = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  Running& running = Of(c);
  if (running.error.rfind("skip: ", 0) == 0) GTEST_SKIP() << running.error.substr(6);
  ASSERT_TRUE(running.error.empty()) << running.error;
  const json& view = running.view;
  // 3.14.10's get_all_awaited_by lists the tasks of one thread only (3.15's, of every
  // thread): asyncio_edges runs its loops in two other threads, so there it lists none.
  if (view.at("tasks").empty() && !running.scenario->truth().at("tasks").empty()) {
    GTEST_SKIP() << "this _remote_debugging (" << view.at("python").get<std::string>().substr(0, 8)
                 << ") lists none of the scenario's tasks: they run on threads other than its main one";
  }
  ASSERT_GE(view.at("tasks").size(), 5u) << view.dump();
  ASSERT_FALSE(view.at("running").empty()) << "no running task in " << view.dump();

  Target target;
  if (c.core) {
    target.core = running.process.Core(SanitizeName("remote_" + c.minor + c.scenario), &error);
    ASSERT_FALSE(target.core.empty()) << error;
  } else {
    target.pid = running.scenario->pid();
  }
  RunResult r = RunDebugger(c.debugger, *install, target, {"py-tasks --json --all"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  std::optional<json> got = ExtractJson(r.out, &error);
  ASSERT_TRUE(got) << error << "\n" << r.Describe();
  EXPECT_EQ(got->at("warnings"), json::array()) << r.Describe();
  const std::string report = CompareWithView(view, *got);
  EXPECT_TRUE(report.empty()) << "py-tasks and _remote_debugging differ:\n" << report;
}

INSTANTIATE_TEST_SUITE_P(Sid, RemoteDebugging, ::testing::ValuesIn(AllCases()), CaseName);

}  // namespace
}  // namespace pyunwind_e2e
