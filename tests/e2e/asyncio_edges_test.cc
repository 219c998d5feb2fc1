// asyncio, the edge cases, end to end in LLDB and GDB, live on Debian's
// /usr/bin/python3.11, pyenv's 3.12.1 and 3.13.0, Debian unstable's 3.14 and 3.15 and the
// free-threaded 3.13t built from Debian's source (not on CI) (skipped when not installed):
//   * tests/data/asyncio_edges.py: two threads, each running its own event loop with its own
//     tasks (so tasks whose loop belongs to a thread other than the main one, and two loops),
//     a finished task per loop that is still referenced, and on 3.12+ an eager task
//     (asyncio.eager_task_factory) suspended after its eager start. `py-tasks --json` lists
//     every truth task, once, with its name, the thread its loop runs on
//     (thread_native_id), its state ("pending"/"finished") and its innermost coroutine (the
//     first frame of coroutine_stack; a finished task has none), and `running` on the task
//     that blocks each loop; no task that the truth does not have.
//   * The same scenario: py-tasks --json --all also gives each task its whole
//     coroutine chain (qualnames innermost first, as the process reports from inside):
//     b-main, running inside c2 -> c3 -> c4 -> c5 -> park (a plain function), shows park and
//     all five; a-agen, in `async for` over a generator awaiting agen_nested -> Event.wait,
//     shows the generator's frame between them (issue 42); a-deep, parked
//     under 1,501 `down` coroutines, keeps the innermost and outermost 512 and marks the gap
//     (coroutines_not_shown); a-g1..a-g4, under gather(gather(a-g1, a-g2), gather(a-g3,
//     a-g4)), are awaited by a-outer ("gather") on every version (3.14+: also by a-main,
//     which called the inner gathers, as asyncio records). Without --all the
//     finished a-done/b-done are left out (as asyncio.all_tasks() leaves them out), counted
//     in one line, and listed by --state done, marked finished (3.14+ unlinks a finished
//     task from every list: none is found or counted); --running prints b-main's
//     chain from park, then c5.
//   * The same scenario, plus a thread not-a-loop parked in functions named run_forever
//     and _run_once holding loop-a's loop): live and from a gcore core, every task's "loop"
//     and thread are those the process recorded (asyncio._get_running_loop() per thread).
//   * A Python process that never imported asyncio: `py-tasks` prints "no asyncio tasks" and
//     `py-tasks --json` says asyncio_imported false, with no tasks.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "core/base/work_budget.h"
#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

struct Interpreter {
  std::string label;   // "debian_3_11", "pyenv_3_12_1", "sid_3_14"
  std::string interp;  // as InterpreterPath() names it: "debian_3.11", "3.12.1", "sid_3.14"
};

const std::vector<Interpreter>& Interpreters() {
  static const std::vector<Interpreter> all = {
      {"debian_3_11", "debian_3.11"}, {"pyenv_3_12_1", "3.12.1"}, {"pyenv_3_13_0", "3.13.0"},
      {"sid_3_14", "sid_3.14"},       {"sid_3_15", "sid_3.15"},       {"built_3_13t", "built_3.13t"},
  };
  return all;
}

struct Case {
  Interpreter python;
  Debugger debugger = Debugger::kLldb;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.python.label << " in " << DebuggerName(c.debugger);
}

std::vector<Case> AllCases() {
  std::vector<Case> cases;
  for (const Interpreter& p : Interpreters()) {
    for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cases.push_back({p, d});
  }
  return cases;
}

// A started process and the file it writes once it is ready (parsed as JSON if asked).
struct Running {
  std::unique_ptr<Process> process;
  json truth;
  std::string error;
};

// Starts `argv` + [ready file], waits for the ready file (written atomically).
void Start(std::vector<std::string> argv, const std::string& name, bool parse, Running& out) {
  const std::string ready = TempDir() + "/" + name + "." + std::to_string(getpid()) + ".json";
  unlink(ready.c_str());
  argv.push_back(ready);
  ProcessOptions options;
  options.argv = argv;
  options.env = CleanEnv();
  for (const char* var : {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP"}) options.env[var] = "";
  options.stderr_path = ready + ".err";
  options.refuse_guard_madvise = true;  // its gcore cores hold every thread stack
  out.process = Process::Spawn(options, &out.error);
  if (!out.process) return;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!FileExists(ready)) {
    if (!out.process->Running() || std::chrono::steady_clock::now() >= deadline) {
      out.error = name + ": no " + ready + " (" +
                  (out.process->Running() ? "timed out" : "exited") + "): " +
                  ReadFile(options.stderr_path);
      out.process.reset();
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  WaitUntilMainThreadSettles(out.process->pid());
  if (!parse) return;
  try {
    out.truth = json::parse(ReadFile(ready));
  } catch (const std::exception& e) {
    out.error = std::string("cannot parse ") + ready + ": " + e.what();
    out.process.reset();
  }
}

class AsyncioEdges : public ::testing::TestWithParam<Case> {
 public:
  static void TearDownTestSuite() {
    scenarios_.clear();
    for (const auto& [label, core] : cores_) unlink(core.c_str());
    cores_.clear();
  }

 protected:
  // Both tests of the suite need the installed plugin and the scenario running under the
  // case's interpreter (skipped, with its reason, when that interpreter is not here).
  void SetUp() override {
    std::string error;
    install_ = Installed(&error);
    ASSERT_NE(install_, nullptr) << error;
    scenario_ = &ScenarioOf(GetParam().python);
    if (scenario_->error.rfind("skip: ", 0) == 0) GTEST_SKIP() << scenario_->error.substr(6);
    ASSERT_TRUE(scenario_->process) << scenario_->error;
  }

  const Install* install_ = nullptr;
  const Running* scenario_ = nullptr;

  // The scenario under `python`, started once per interpreter.
  static const Running& ScenarioOf(const Interpreter& python) {
    Running& r = scenarios_[python.label];
    if (!r.process && r.error.empty()) {
      const std::string not_on_ci = InterpreterNotUsedOnCi(python.interp);
      const std::optional<std::string> path = InterpreterPath(python.interp);
      if (!not_on_ci.empty()) {
        r.error = "skip: " + not_on_ci;
      } else if (!path) {
        r.error = "skip: the interpreter " + python.interp + " is not installed";
      } else {
        Start({*path, ProjectFile("tests/data/asyncio_edges.py")}, "asyncio_edges_" + python.label, true, r);
      }
    }
    return r;
  }
  static std::map<std::string, Running> scenarios_;
  static std::map<std::string, std::string> cores_;  // label -> a gcore core of its scenario
};

std::map<std::string, Running> AsyncioEdges::scenarios_;
std::map<std::string, std::string> AsyncioEdges::cores_;

// Every difference between `py-tasks --json` and the truth, "" when none.
std::string CompareEdges(const json& truth, const json& got) {
  std::string report;
  auto note = [&](const std::string& s) { report += "  " + s + "\n"; };
  if (!got.at("warnings").empty()) note("warnings: " + got.at("warnings").dump());
  if (got.at("asyncio_imported") != true) note("asyncio_imported is not true");
  std::map<std::string, json> by_name;
  for (const json& task : got.at("tasks")) {
    const std::string name = task.at("name");
    if (!by_name.emplace(name, task).second) note("two tasks named " + name);
  }
  std::set<std::string> want_names;
  for (const json& t : truth.at("tasks")) want_names.insert(t.at("name").get<std::string>());
  for (const auto& [name, task] : by_name) {
    if (!want_names.count(name)) note("task " + name + " is not in the truth: " + task.dump());
  }
  for (const json& want : truth.at("tasks")) {
    const std::string name = want.at("name");
    auto found = by_name.find(name);
    if (found == by_name.end()) {
      if (want.at("listed") == true) {
        note("missing task " + name + (want.at("eager") == true ? " (eager)" : ""));
      }
      continue;
    }
    if (want.at("listed") != true) note("task " + name + " is found though no list holds it");
    const json& task = found->second;
    if (task.at("thread_native_id") != want.at("thread_native_id")) {
      note("task " + name + ": thread " + task.at("thread_native_id").dump() + ", truth " +
           want.at("thread_native_id").dump());
    }
    if (task.at("state") != want.at("state")) {
      note("task " + name + ": state " + task.at("state").dump() + ", truth " +
           want.at("state").dump());
    }
    if (task.at("running") != want.at("running")) {
      note("task " + name + ": running " + task.at("running").dump());
    }
    const json& stack = task.at("coroutine_stack");
    const json innermost = stack.empty() ? json(nullptr) : stack.at(0).at("qualname");
    if (innermost != want.at("innermost")) {
      note("task " + name + ": innermost coroutine " + innermost.dump() + ", truth " +
           want.at("innermost").dump());
    }
    // The whole chain; deeper than 1024: the innermost and outermost 512, and the gap.
    std::vector<std::string> got_stack, want_stack = want.at("stack");
    for (const json& frame : stack) got_stack.push_back(frame.at("qualname"));
    constexpr size_t kKept = 1024, kHalf = kKept / 2;
    if (want_stack.size() > kKept) {
      const json cut = task.value("coroutines_not_shown", json(nullptr));
      if (got_stack.size() != kKept ||
          !std::equal(got_stack.begin(), got_stack.begin() + kHalf, want_stack.begin()) ||
          !std::equal(got_stack.end() - kHalf, got_stack.end(), want_stack.end() - kHalf) ||
          cut != json({{"count", want_stack.size() - kKept}, {"before_index", kHalf}})) {
        note("task " + name + ": a chain of " + std::to_string(want_stack.size()) +
             " shown as " + std::to_string(got_stack.size()) + " coroutines, cut " + cut.dump());
      }
    } else if (got_stack != want_stack) {
      note("task " + name + ": coroutine stack " + json(got_stack).dump() + ", truth " +
           json(want_stack).dump());
    }
    std::set<std::string> awaiters, want_awaiters;
    for (const json& edge : task.at("awaited_by")) awaiters.insert(edge.at("name").get<std::string>());
    for (const json& n : want.at("awaited_by")) want_awaiters.insert(n.get<std::string>());
    if (awaiters != want_awaiters) {
      note("task " + name + ": awaited by " + task.at("awaited_by").dump() + ", truth " +
           want.at("awaited_by").dump());
    }
  }
  return report;
}

TEST_P(AsyncioEdges, PyTasksJsonMatchesTruth) {
  const Case& c = GetParam();
  const Install* install = install_;
  const Running& scenario = *scenario_;
  std::string error;
  const json& truth = scenario.truth;
  ASSERT_EQ(truth.at("pid").get<pid_t>(), scenario.process->pid());

  // The scenario's shape: two loop threads, neither the main thread; a finished task on
  // each; an eager task exactly on 3.12+.
  std::set<uint64_t> loop_threads;
  size_t finished = 0, eager = 0;
  for (const json& t : truth.at("tasks")) {
    loop_threads.insert(t.at("thread_native_id").get<uint64_t>());
    finished += t.at("state") == "finished";
    eager += t.at("eager") == true;
  }
  EXPECT_EQ(loop_threads.size(), 2u);
  EXPECT_FALSE(loop_threads.count(truth.at("main_thread_native_id").get<uint64_t>()));
  EXPECT_EQ(finished, 2u);
  EXPECT_EQ(eager, c.python.label == "debian_3_11" ? 0u : 1u);

  Target target;
  target.pid = scenario.process->pid();
  RunResult r = RunDebugger(c.debugger, *install, target, {"py-tasks --json --all"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  auto got = ExtractJson(r.out, &error);
  ASSERT_TRUE(got) << error << "\n" << r.Describe();
  EXPECT_EQ(got->at("python").at("version"), truth.at("python").at("version"));
  const std::string mismatch = CompareEdges(truth, *got);
  EXPECT_TRUE(mismatch.empty()) << "py-tasks --json differs from the truth:\n"
                                << mismatch << r.Describe();
  // Tasks (and so running_tasks) are in address order: compare as a set.
  std::set<std::string> running;
  for (const json& name : got->at("running_tasks")) running.insert(name.get<std::string>());
  EXPECT_EQ(running, (std::set<std::string>{"a-main", "b-main"}))
      << got->at("running_tasks").dump() << "\n" << r.Describe();

  // By default the finished tasks are left out, and said so; --state done lists them.
  RunResult d = RunDebugger(c.debugger, *install, target,
                            {"py-tasks --json", "py-tasks", "py-tasks --state done",
                             "py-tasks --running", "py-tasks --tree --name a-chain-*",
                             "py-tasks --name a-deep"});
  ASSERT_TRUE(d.exited && d.exit_code == 0) << d.Describe();
  auto live = ExtractJson(d.out, &error);
  ASSERT_TRUE(live) << error << "\n" << d.Describe();
  std::set<std::string> live_names, want_live;
  for (const json& task : live->at("tasks")) live_names.insert(task.at("name").get<std::string>());
  for (const json& t : truth.at("tasks")) {
    if (t.at("state") != "finished") want_live.insert(t.at("name").get<std::string>());
  }
  EXPECT_EQ(live_names, want_live);
  // 3.14+ keeps no finished task in a list: there is nothing to count or show.
  size_t listed_done = 0;
  for (const json& t : truth.at("tasks")) listed_done += t.at("state") == "finished" && t.at("listed") == true;
  EXPECT_EQ(listed_done, truth.at("python").at("hexversion").get<int64_t>() >= 0x030E0000 ? 0u : 2u);
  EXPECT_EQ(live->at("not_shown").value("done", size_t{0}), listed_done);
  EXPECT_EQ(LinesContaining(d.out, "2 finished or cancelled tasks not shown (--state done or --all shows them)").size(),
            listed_done == 2 ? 1u : 0u)
      << d.Describe();
  for (const char* done : {"a-done", "b-done"}) {
    const auto rows = LinesContaining(d.out, std::string(" ") + done + " ");
    ASSERT_EQ(rows.size(), listed_done == 2 ? 1u : 0u) << done << "\n" << d.Describe();
    if (!rows.empty()) {
      EXPECT_NE(rows[0].find(" finished "), std::string::npos) << rows[0];
    }
  }
  EXPECT_NE(d.out.find("is running task b-main [0x"), std::string::npos) << d.Describe();
  const size_t chain = d.out.find("is running task b-main [0x");
  const size_t first = d.out.find('\n', chain) + 1;
  // Innermost first: park, the plain function blocking the loop, runs for the task too.
  const std::string park = "  loop_main.<locals>.park ";
  EXPECT_EQ(d.out.compare(first, park.size(), park), 0) << d.out.substr(chain, 400);
  const size_t second = d.out.find('\n', first) + 1;
  EXPECT_EQ(d.out.compare(second, 5, "  c5 "), 0) << d.out.substr(chain, 400);
  // a-deep's table rows, in `py-tasks` and `py-tasks --name a-deep`: the gap after the
  // innermost 512 coroutines.
  EXPECT_EQ(LinesContaining(d.out, "... 478 coroutines not shown ...").size(), 2u) << d.Describe();
  // The chain of 40 awaiting tasks: one root, 32 levels drawn, the last 8 in one line.
  std::vector<std::string> roots;
  for (const std::string& line : LinesContaining(d.out, "(T) a-chain-")) {
    if (line.rfind("(T) ", 0) == 0) roots.push_back(line);
  }
  ASSERT_EQ(roots.size(), 1u) << d.Describe();
  EXPECT_EQ(roots[0].rfind("(T) a-chain-0 [0x", 0), 0u) << roots[0];
  EXPECT_EQ(LinesContaining(d.out, "└── ... 8 more tasks awaited below this one (the tree draws 32 "
                                   "levels); the deepest: a-chain-39 [0x").size(), 1u)
      << d.Describe();
}

// `py-tasks -v` says where the task offsets came from: the version's layout up to
// 3.13; on 3.14+ the _asyncio module's own _AsyncioDebug block, here found through the
// .AsyncioDebug section of the file on disk that holds it (Debian unstable's 3.14 has _asyncio
// as a shared module, its 3.15 built into the interpreter; neither exports an _AsyncioDebug
// symbol), as CPython's own reader finds it.
TEST_P(AsyncioEdges, VerboseSaysWhereTheTaskOffsetsCameFrom) {
  const Case& c = GetParam();
  std::string error;
  Target target;
  target.pid = scenario_->process->pid();
  RunResult r = RunDebugger(c.debugger, *install_, target, {"py-tasks --json -v --limit 1"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  auto got = ExtractJson(r.out, &error);
  ASSERT_TRUE(got) << error << "\n" << r.Describe();
  const json& warnings = got->at("warnings");
  const std::string version = scenario_->truth.at("python").at("version");
  const std::string minor = version.substr(0, version.rfind('.'));
  const bool debug_block = scenario_->truth.at("python").at("hexversion").get<int64_t>() >= 0x030E0000;
  size_t runtime = 0, offsets = 0;
  for (const json& w : warnings) {
    const std::string text = w.get<std::string>();
    runtime += text.rfind("_PyRuntime at 0x", 0) == 0;
    if (text.rfind("task offsets from ", 0) != 0) continue;
    ++offsets;
    if (debug_block) {
      const std::string section = "task offsets from _AsyncioDebug, found by the .AsyncioDebug section of ";
      EXPECT_EQ(text.rfind(section, 0), 0u) << text;
      // _asyncio is a shared module (3.14 here) or built into the interpreter (3.15 here).
      auto ends_with = [&](const std::string& tail) {
        return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
      };
      EXPECT_TRUE(ends_with("/_asyncio.cpython-" + minor.substr(0, 1) + minor.substr(2) +
                            "-x86_64-linux-gnu.so") ||
                  ends_with("/python" + minor))
          << text;
    } else {
      EXPECT_EQ(text.rfind("task offsets from the Python " + minor + " layout (", 0), 0u) << text;
    }
  }
  EXPECT_EQ(runtime, 1u) << warnings.dump();
  EXPECT_EQ(offsets, 1u) << warnings.dump();
}

// A task's thread is the one whose thread state records the task's loop as its
// running loop (what asyncio.get_running_loop() there returns), never a thread guessed from
// frame names: not-a-loop parks in functions named run_forever and _run_once holding
// loop-a's loop. Live and from a gcore core (no executable), each task's `loop` and
// `thread_native_id` are what the process recorded from inside.
TEST_P(AsyncioEdges, LoopThreadIsTheOneThatRecordsTheLoop) {
  const Case& c = GetParam();
  const Install* install = install_;
  const Running& scenario = *scenario_;
  std::string error;
  const json& truth = scenario.truth;
  const json& loops = truth.at("running_loops");
  const std::string decoy = std::to_string(truth.at("not_a_loop_native_id").get<uint64_t>());
  ASSERT_EQ(loops.size(), 4u) << loops.dump();
  EXPECT_TRUE(loops.at(decoy).is_null()) << loops.dump();
  EXPECT_TRUE(loops.at(std::to_string(truth.at("main_thread_native_id").get<uint64_t>())).is_null());
  std::map<std::string, json> want;  // name -> truth task
  for (const json& t : truth.at("tasks")) {
    EXPECT_EQ(loops.at(std::to_string(t.at("thread_native_id").get<uint64_t>())), t.at("loop"))
        << t.at("name");
    if (t.at("listed") == true) want[t.at("name").get<std::string>()] = t;
  }

  std::string& core = cores_[c.python.label];
  if (core.empty()) {
    core = MakeCore(scenario.process->pid(), "asyncio_edges_" + c.python.label, &error);
    if (core.empty() && error.rfind(kCoreIncomplete, 0) == 0) {
      std::cout << "the core is not checked, only the live process: " << error << "\n";
    } else {
      ASSERT_FALSE(core.empty()) << error;
    }
  }
  Target live, from_core;
  live.pid = scenario.process->pid();
  from_core.core = core;
  std::vector<const Target*> targets = {&live};
  if (!core.empty()) targets.push_back(&from_core);
  for (const Target* target : targets) {
    const char* source = target == &live ? "live" : "core";
    RunResult r = RunDebugger(c.debugger, *install, *target, {"py-tasks --json --all"});
    ASSERT_TRUE(r.exited && r.exit_code == 0) << source << "\n" << r.Describe();
    auto got = ExtractJson(r.out, &error);
    ASSERT_TRUE(got) << source << ": " << error << "\n" << r.Describe();
    EXPECT_TRUE(got->at("warnings").empty()) << source << ": " << got->at("warnings").dump();
    size_t matched = 0;
    for (const json& task : got->at("tasks")) {
      auto it = want.find(task.at("name").get<std::string>());
      if (it == want.end()) continue;
      ++matched;
      EXPECT_EQ(task.at("loop"), it->second.at("loop")) << source << " " << it->first;
      EXPECT_EQ(task.at("thread_native_id"), it->second.at("thread_native_id"))
          << source << " " << it->first;
    }
    EXPECT_EQ(matched, want.size()) << source;
    json want_loops = json::object(), got_loops = json::object();
    for (const auto& [thread, loop] : loops.items()) {
      if (!loop.is_null()) want_loops[thread] = loop;
    }
    for (const json& entry : got->at("running_loops")) {
      got_loops[std::to_string(entry.at("thread_native_id").get<uint64_t>())] = entry.at("loop");
    }
    EXPECT_EQ(got_loops, want_loops) << source;
  }
}

INSTANTIATE_TEST_SUITE_P(Edges, AsyncioEdges, ::testing::ValuesIn(AllCases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return SanitizeName(info.param.python.label + "_" +
                                               DebuggerName(info.param.debugger));
                         });

// 100,000 tasks (tests/data/asyncio_many.py on Debian 3.11, live), each parked in
// mid -> leaf -> Event.wait, and the running main task. `py-tasks --json --summary` lists every
// task once (count and names against asyncio.all_tasks()) and groups them exactly as
// the chains the process reads from inside (cr_await); `--tree` draws the 100,000 identical tasks as one line
// with the count; `--name` picks exactly the matching names; `--limit` cuts and says so; `--stats`
// shows the work budget a tenth spent at most.
class ManyTasks : public ::testing::TestWithParam<Debugger> {
 public:
  static void TearDownTestSuite() { scenario_.process.reset(); }

 protected:
  static constexpr int kTasks = 100000;
  static const Running& Scenario() {
    if (!scenario_.process && scenario_.error.empty()) {
      Start({kDebianPython, ProjectFile("tests/data/asyncio_many.py"), std::to_string(kTasks)},
            "asyncio_many", true, scenario_);
    }
    return scenario_;
  }
  static Running scenario_;
};

Running ManyTasks::scenario_;

TEST_P(ManyTasks, EveryTaskListedAndSummaryExact) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const Running& scenario = Scenario();
  ASSERT_TRUE(scenario.process) << scenario.error;
  const json& truth = scenario.truth;
  ASSERT_EQ(truth.at("count"), kTasks);
  Target target;
  target.pid = scenario.process->pid();
  RunResult r =
      RunDebugger(GetParam(), *install, target, {"py-tasks --json --summary --stats"}, 300);
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.err;
  auto got = ExtractJson(r.out, &error);
  ASSERT_TRUE(got) << error << "\n" << r.err;
  EXPECT_EQ(got->at("warnings"), json::array());
  EXPECT_EQ(got->at("tasks_read"), kTasks + 1);
  std::vector<std::string> names;
  for (const json& task : got->at("tasks")) names.push_back(task.at("name"));
  ASSERT_EQ(names.size(), static_cast<size_t>(kTasks + 1));
  std::sort(names.begin(), names.end());
  std::vector<std::string> want = truth.at("names");
  want.push_back("main");
  std::sort(want.begin(), want.end());
  EXPECT_TRUE(names == want) << "the names differ from asyncio.all_tasks()'";
  std::map<std::pair<std::string, std::vector<std::string>>, size_t> want_groups, got_groups;
  for (const json& g : truth.at("groups")) want_groups[{g.at("state"), g.at("stack")}] = g.at("count");
  for (const json& g : got->at("summary")) got_groups[{g.at("state"), g.at("stack")}] = g.at("count");
  EXPECT_EQ(got_groups, want_groups) << got->at("summary").dump();
  EXPECT_EQ(got->at("summary").at(0).at("count"), kTasks);
  // The work budget never binds on real programs: these 100,000 tasks spend at most a
  // tenth of each kind (every one of core/base/work_budget.h), so a million such tasks (the
  // most py-tasks reads) fit in it.
  const json& work = got->at("stats").at("work");
  ASSERT_EQ(work.size(), static_cast<size_t>(pyunwind::Work::kCount)) << work.dump();
  for (const auto& [kind, amount] : work.items()) {
    EXPECT_LE(amount.at("spent").get<uint64_t>() * 10, amount.at("budget").get<uint64_t>())
        << kind << ": " << amount.dump();
  }

  RunResult text = RunDebugger(GetParam(), *install, target,
                               {"py-tasks --tree", "py-tasks --name w-1234? --json",
                                "py-tasks --limit 5"}, 300);
  ASSERT_TRUE(text.exited && text.exit_code == 0) << text.err;
  EXPECT_EQ(LinesContaining(text.out, ", and 99999 identical siblings: w-").size(), 1u)
      << text.out.substr(0, 4000);
  EXPECT_LT(LinesContaining(text.out, "(T) ").size(), 10u) << text.out.substr(0, 4000);
  auto picked = ExtractJson(text.out, &error);
  ASSERT_TRUE(picked) << error;
  std::set<std::string> picked_names;
  for (const json& task : picked->at("tasks")) picked_names.insert(task.at("name"));
  std::set<std::string> want_picked;
  for (int i = 0; i < 10; ++i) want_picked.insert("w-1234" + std::to_string(i));
  EXPECT_EQ(picked_names, want_picked);
  EXPECT_EQ(LinesContaining(text.out, "99996 more tasks not shown (--limit 5)").size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Debuggers, ManyTasks, ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const ::testing::TestParamInfo<Debugger>& info) {
                           return std::string(DebuggerName(info.param));
                         });

// A Python program that never imported asyncio.
class NoAsyncio : public ::testing::TestWithParam<Debugger> {};

TEST_P(NoAsyncio, SaysNoAsyncioTasks) {
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  Running sleeper;
  Start({kDebianPython, "-c",
         "import os, sys, time\n"
         "assert 'asyncio' not in sys.modules\n"
         "open(sys.argv[1] + '.tmp', 'w').write('{}')\n"
         "os.rename(sys.argv[1] + '.tmp', sys.argv[1])\n"
         "time.sleep(3600)\n"},
        std::string("no_asyncio_") + DebuggerName(GetParam()), false, sleeper);
  ASSERT_TRUE(sleeper.process) << sleeper.error;
  Target target;
  target.pid = sleeper.process->pid();
  RunResult r = RunDebugger(GetParam(), *install, target, {"py-tasks", "py-tasks --json"});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  EXPECT_EQ(LinesContaining(r.out, "no asyncio tasks").size(), 1u) << r.Describe();
  EXPECT_EQ(r.out.find("pyunwind:"), std::string::npos) << r.Describe();
  auto got = ExtractJson(r.out, &error);
  ASSERT_TRUE(got) << error << "\n" << r.Describe();
  EXPECT_EQ(got->at("asyncio_imported"), false) << got->dump();
  EXPECT_EQ(got->at("tasks"), json::array()) << got->dump();
  EXPECT_EQ(got->at("warnings"), json::array()) << got->dump();
}

INSTANTIATE_TEST_SUITE_P(Debuggers, NoAsyncio,
                         ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const ::testing::TestParamInfo<Debugger>& info) {
                           return std::string(DebuggerName(info.param));
                         });

}  // namespace
}  // namespace pyunwind_e2e
