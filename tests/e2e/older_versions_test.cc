// CPython 2.7 and 3.6-3.10, end to end: the tests that prove pyunwind reads them, written
// to pass today on pyenv's 3.11.7 (proving the tests and the scenarios right) and to run
// unchanged on the older pyenv versions as the core learns them.
//
// Each (pyenv version, and Debian 11's own python3.9) x (live, gcore core alone, core with the
// interpreter as executable) x (LLDB, GDB) cell checks, against the truth the scenario wrote
// from inside (PyBtAll every cell; the others live and on the core alone, and not on 3.11.7:
// kLiveAndCoreAlone, kOlderVersions):
//   * PyBtAll: tests/data/legacy_threads.py, `py-bt --all --json`: every thread's frames
//     (CompareWithTruth: filename, line, name, qualname; the threading name), is_main and
//     holds_gil (the spinning thread's alone).
//   * Locals: tests/data/legacy_locals.py, `py-bt --all --locals --json`: the worker's
//     frames, local names, types and the reprs of the simple types (tests/locals_truth.h).
//   * Python27Tasks: `py-tasks` on 2.7 says in one line that 2.7 has no asyncio.
//   * Tasks (3.6+): tests/data/legacy_asyncio.py, `py-tasks --json`: tasks matched by their
//     coroutine function (task names are 3.8+), coroutine stacks, awaited_by edges and kinds,
//     the running task.
// The truth's qualname is co_qualname on 3.11+ and co_name before (tests/data/legacy_truth.py
// says why).
//
// Versions not yet in kSupportedLegacyVersions run too, and a cell of theirs that fails is
// reported as skipped ("pyunwind does not read Python X yet: <first mismatch>"), so that CI
// stays green while the core learns them; one that passes says so in the log. A version
// that is not installed is skipped with one line. One scenario process and one core per
// (version, scenario) serve all its cells; only one is alive at a time (legacy_threads has a
// spinning thread, and this machine has 2 CPUs).
//
// Debian 11's python3.9 (3.9.2, `.ci/fetch-pythons bullseye`; the "Debian11" cells) is a
// distribution build: static, non-PIE, stripped (only .dynsym: _PyRuntime is exported), its
// layout that of pyenv's 3.9 but with nothing of its debug info at hand.
//
// Refusal: on a version pyunwind cannot read (a program named python2.6 or python3.5), its
// one error line names the version.
#include <unistd.h>

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/tasks_truth.h"
#include "tests/locals_truth.h"
#include "tests/tasks_facts.h"

namespace pyunwind_e2e {
namespace {

// The versions the core reads: their cells must pass. Add a version here when the core
// learns it; the others' failures are skips.
const std::set<std::string> kSupportedLegacyVersions = {"2.7.18", "3.6.15", "3.7.16", "3.8.18", "3.9.18",
                                                         "3.10.13", "3.11.7", kBullseyeInterp};

const std::vector<std::string> kVersions = {"2.7.18", "3.6.15",  "3.7.16", "3.8.18",
                                            "3.9.18", "3.10.13", "3.11.7"};

// Debian 11's interpreter, as InterpreterPath names it (tests/e2e/harness.h).
const std::vector<std::string> kDebian11 = {kBullseyeInterp};

bool IsBullseye(const std::string& version) { return version == kBullseyeInterp; }

enum class Open { kLive, kCoreAlone, kCoreWithExecutable };

struct Cell {
  std::string version;
  Open open = Open::kLive;
  Debugger debugger = Debugger::kLldb;
};

const char* OpenName(Open o) {
  return o == Open::kLive ? "live" : o == Open::kCoreAlone ? "core_alone" : "core_with_exe";
}

void PrintTo(const Cell& c, std::ostream* os) {
  *os << (IsBullseye(c.version) ? "Debian 11's 3.9" : "pyenv " + c.version) << ", "
      << OpenName(c.open) << ", " << DebuggerName(c.debugger);
}

const std::vector<Open> kEveryOpen = {Open::kLive, Open::kCoreAlone, Open::kCoreWithExecutable};
// Locals, the frame commands and py-tasks read the same objects from a core whatever found
// the runtime (PyBtAll and Debian11Runtime check core+exe); those run live and on the core
// alone, which keeps this test's share of CI's time down.
const std::vector<Open> kLiveAndCoreAlone = {Open::kLive, Open::kCoreAlone};

// The versions the tests beyond PyBtAll run on: 3.11.7 is read by the 3.11+ code every other
// test covers, and stays in PyBtAll only, the control that the scenarios are right.
const std::vector<std::string> kOlderVersions = {"2.7.18", "3.6.15", "3.7.16", "3.8.18",
                                                 "3.9.18", "3.10.13"};

// Every cell of `versions` opened each way of `opens`; `from_3_7`: only those of 3.7 and later.
std::vector<Cell> Cells(const std::vector<std::string>& versions, bool from_3_7 = false,
                        const std::vector<Open>& opens = kEveryOpen) {
  std::vector<Cell> cells;
  for (const std::string& version : versions) {
    if (from_3_7 && (version.rfind("2.", 0) == 0 || version.rfind("3.6.", 0) == 0)) continue;
    for (Open open : opens)
      for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({version, open, d});
  }
  return cells;
}

std::string CellName(const ::testing::TestParamInfo<Cell>& info) {
  return SanitizeName(info.param.version + "_" + OpenName(info.param.open) + "_" +
                      DebuggerName(info.param.debugger));
}

// ---------------------------------------------------------------- the shared scenario

// The one scenario process (and its core) alive: the cells run version by version, so each
// (version, script) is started once; starting another stops the previous and deletes its core.
struct Held {
  std::string key;
  std::unique_ptr<ScenarioWithCore> scenario;
  std::string core;
  void Release() {
    if (!core.empty()) unlink(core.c_str());
    core.clear();
    scenario.reset();
    key.clear();
  }
};
Held& held() {
  static Held h;
  return h;
}

// The first line of pyunwind's error in a debugger's output ("pyunwind: ..."), or "".
std::string PyunwindError(const std::string& text) {
  for (const std::string& line : LinesContaining(text, "pyunwind: ")) {
    return line.substr(line.find("pyunwind: "));
  }
  return "";
}

// A gtest failure message on one line, without the debugger's command line and output
// (RunResult::Describe) and cut to `limit` characters: the reason of a skip.
std::string OneLine(std::string message, size_t limit = 300) {
  if (message.rfind("Failed\n", 0) == 0) message = message.substr(7);
  message = message.substr(0, message.find("\ncommand: "));
  for (char& c : message) {
    if (c == '\n') c = ' ';
  }
  return message.size() > limit ? message.substr(0, limit) + "..." : message;
}

class OlderVersions : public ::testing::TestWithParam<Cell> {
 public:
  static void TearDownTestSuite() { held().Release(); }

 protected:
  // Starts `script` (tests/data/<script>.py) under the cell's version, shared with the other
  // cells, and sets target_; false when the test cannot go on (skipped or failed).
  bool Start(const std::string& script) {
    const Cell& c = GetParam();
    const auto python = InterpreterPath(c.version);
    if (!python) {
      skip_ = IsBullseye(c.version)
                  ? "Debian 11's Python 3.9 is not unpacked (.ci/fetch-pythons bullseye says why)"
                  : "pyenv's Python " + c.version + " is not installed";
      return false;
    }
    std::string error;
    install_ = Installed(&error);
    if (!install_) {
      ADD_FAILURE() << error;
      return false;
    }
    Held& h = held();
    if (h.key != c.version + "/" + script) {
      h.Release();
      h.key = c.version + "/" + script;
      h.scenario = std::make_unique<ScenarioWithCore>();
    }
    const Scenario* scenario = h.scenario->Start(*python, script, &error);
    if (!scenario) {
      ADD_FAILURE() << error;
      return false;
    }
    truth_ = &scenario->truth();
    target_ = Target();
    if (c.open == Open::kLive) {
      target_.pid = scenario->pid();
    } else {
      h.core = h.scenario->Core(SanitizeName(script + "_" + c.version), &error);
      if (h.core.empty()) {
        ADD_FAILURE() << error;
        return false;
      }
      target_.core = h.core;
      if (c.open == Open::kCoreWithExecutable) target_.executable = *python;
    }
    return true;
  }

  // Runs `command` in the cell's debugger; its one JSON document, or a failure (naming
  // pyunwind's error line when there is one) and nullopt.
  std::optional<json> RunJson(const std::string& command) {
    RunResult r = RunDebugger(GetParam().debugger, *install_, target_, {command}, 120);
    std::string error;
    std::optional<json> doc;
    if (r.exited) doc = ExtractJson(r.out, &error);
    if (!doc) {
      const std::string said = PyunwindError(r.out + r.err);
      ADD_FAILURE() << command << ": " << (said.empty() ? r.Status() + ", " + error : said)
                    << "\n" << r.Describe();
    }
    return doc;
  }

  // Runs `checks` with their gtest failures held back, then: for a supported version, every
  // failure fails the test; for another, the first one skips it.
  template <typename Checks>
  void Verdict(Checks checks) {
    // What keeps the cell from running at all (no interpreter, no install, a scenario that
    // wrote no truth, no core) is no reading of pyunwind's: skipped or failed as it is.
    if (!Start(script_)) {
      if (!skip_.empty()) GTEST_SKIP() << skip_;
      return;
    }
    ::testing::TestPartResultArray failures;
    {
      ::testing::ScopedFakeTestPartResultReporter reporter(
          ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
      checks();
    }
    const std::string& version = GetParam().version;
    const bool supported = kSupportedLegacyVersions.count(version) > 0;
    for (int i = 0; i < failures.size(); ++i) {
      const ::testing::TestPartResult& f = failures.GetTestPartResult(i);
      if (!f.failed()) continue;
      if (!supported) {
        GTEST_SKIP() << "pyunwind does not read Python " << version
                     << " yet: " << OneLine(f.message());
      }
      ADD_FAILURE_AT(f.file_name() ? f.file_name() : __FILE__, f.line_number()) << f.message();
    }
    if (!supported && failures.size() == 0) {
      std::cout << "Python " << version << " passes: add it to kSupportedLegacyVersions\n";
    }
  }

  std::string script_;
  std::string skip_;
  const Install* install_ = nullptr;
  const json* truth_ = nullptr;
  Target target_;
};

// Every difference in is_main between the truth's threads and pyunwind's.
void ExpectIsMain(const json& truth, const json& got) {
  const auto threads = ThreadsByNativeId(got);
  for (const json& want : truth.at("threads")) {
    auto it = threads.find(want.at("native_id").get<uint64_t>());
    if (it == threads.end()) continue;  // CompareWithTruth said so
    EXPECT_EQ(it->second.at("is_main"), want.at("is_main"))
        << "thread " << it->first << " (" << want.at("role").get<std::string>() << ")";
  }
}

// holds_gil of every truth thread: true for the spinner's only. Null (unknown) is accepted
// where the version gives nothing to read it from: 2.7 and 3.6 name the holder only in the
// exported _PyThreadState_Current, which a core alone in GDB has no symbol for.
void ExpectHoldsGil(const Cell& cell, const json& truth, const json& got) {
  const bool may_be_unknown = cell.open == Open::kCoreAlone && cell.debugger == Debugger::kGdb &&
                              (cell.version.rfind("2.", 0) == 0 ||
                               cell.version.rfind("3.6.", 0) == 0);
  const std::string holder = truth.at("gil_holder_role");
  const auto threads = ThreadsByNativeId(got);
  for (const json& want : truth.at("threads")) {
    auto it = threads.find(want.at("native_id").get<uint64_t>());
    if (it == threads.end()) continue;  // CompareWithTruth said so
    const json& holds = it->second.at("holds_gil");
    if (holds.is_null() && may_be_unknown) continue;
    EXPECT_EQ(holds, want.at("role") == holder)
        << "holds_gil of thread " << it->first << " (" << want.at("role").get<std::string>()
        << ")";
  }
}

TEST_P(OlderVersions, PyBtAll) {
  script_ = "legacy_threads";
  Verdict([&] {
    auto got = RunJson("py-bt --all --json");
    if (!got) return;
    EXPECT_EQ(got->at("python").at("version"), truth_->at("python").at("version"));
    const std::string diff = CompareWithTruth(*truth_, *got);
    EXPECT_TRUE(diff.empty()) << "py-bt --all --json differs from the truth: " << diff;
    ExpectIsMain(*truth_, *got);
    ExpectHoldsGil(GetParam(), *truth_, *got);
  });
}

class OlderVersionsDetail : public OlderVersions {};

TEST_P(OlderVersionsDetail, Locals) {
  script_ = "legacy_locals";
  Verdict([&] {
    auto got = RunJson("py-bt --all --locals --json");
    if (!got) return;
    const std::string diff = CompareWithTruth(*truth_, *got);
    EXPECT_TRUE(diff.empty()) << "py-bt --all --locals --json differs from the truth: " << diff;
    uint64_t worker = 0;
    for (const json& t : truth_->at("threads")) {
      if (t.at("role") == "worker") worker = t.at("native_id");
    }
    const auto threads = ThreadsByNativeId(*got);
    auto it = threads.find(worker);
    ASSERT_NE(it, threads.end()) << "no worker thread " << worker << " in pyunwind's output";
    const size_t compared =
        pyunwind::testing::ExpectLocalsMatchTruth(it->second.at("frames"), truth_->at("locals"));
    EXPECT_GE(compared, 15u);  // every value of innermost (10), middle (4) and outer (1)
    EXPECT_TRUE(got->at("warnings").empty()) << got->at("warnings").dump();
  });
}

// py-frame, py-print, py-locals, py-list and py-down on the main thread (selected when the
// debugger starts): legacy_locals.py's main(truth_path) parked in sleep_forever().
TEST_P(OlderVersionsDetail, FrameCommands) {
  script_ = "legacy_locals";
  Verdict([&] {
    RunResult r = RunDebugger(GetParam().debugger, *install_, target_,
                              {"py-frame 1", "py-print truth_path", "py-locals", "py-list",
                               "py-down"},
                              120);
    ASSERT_TRUE(r.exited) << r.Describe();
    const std::string said = PyunwindError(r.out + r.err);
    EXPECT_TRUE(said.empty()) << said << "\n" << r.Describe();
    EXPECT_NE(r.out.find("#1 File \""), std::string::npos) << r.Describe();
    EXPECT_NE(r.out.find("in main"), std::string::npos) << r.Describe();
    EXPECT_NE(r.out.find("local 'truth_path' = '"), std::string::npos) << r.Describe();
    // object.__repr__'s form: the class's __module__ and name (Thread's own __repr__ not run).
    EXPECT_NE(r.out.find("worker = <threading.Thread object at 0x"), std::string::npos)
        << r.Describe();
    // py-list marks the current line: ">70    sleep_forever()".
    EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n *>\d+ +sleep_forever\(\))")))
        << r.Describe();
    EXPECT_NE(r.out.find("sleep_forever()"), std::string::npos) << r.Describe();
    EXPECT_NE(r.out.find("#0 File \""), std::string::npos) << r.Describe();
    EXPECT_NE(r.out.find("in sleep_forever"), std::string::npos) << r.Describe();
  });
}

INSTANTIATE_TEST_SUITE_P(Pyenv, OlderVersions, ::testing::ValuesIn(Cells(kVersions)), CellName);
INSTANTIATE_TEST_SUITE_P(Debian11, OlderVersions, ::testing::ValuesIn(Cells(kDebian11)), CellName);
INSTANTIATE_TEST_SUITE_P(Pyenv, OlderVersionsDetail,
                         ::testing::ValuesIn(Cells(kOlderVersions, false, kLiveAndCoreAlone)),
                         CellName);
INSTANTIATE_TEST_SUITE_P(Debian11, OlderVersionsDetail,
                         ::testing::ValuesIn(Cells(kDebian11, false, kLiveAndCoreAlone)), CellName);

// ---------------------------------------------------------------- py-tasks

// A task's label: the function of its outermost coroutine frame (legacy_asyncio.py gives
// every task its own), or "" when it has no coroutine stack.
std::string Label(const json& task) {
  const json& stack = task.at("coroutine_stack");
  return stack.empty() ? "" : stack.back().at("name").get<std::string>();
}

class OlderVersionsTasks : public OlderVersions {};

TEST_P(OlderVersionsTasks, PyTasks) {
  script_ = "legacy_asyncio";
  Verdict([&] {
    auto got = RunJson("py-tasks --json");
    if (!got) return;
    EXPECT_TRUE(got->at("warnings").empty()) << got->at("warnings").dump();
    EXPECT_EQ(got->at("asyncio_imported"), true);
    const uint64_t loop = LoopThread(*truth_);
    std::map<std::string, json> by_label;
    std::map<std::string, std::string> label_of_id;
    for (const json& task : got->at("tasks")) {
      EXPECT_TRUE(by_label.emplace(Label(task), task).second) << "two tasks labelled " << Label(task);
      label_of_id[task.at("id").get<std::string>()] = Label(task);
    }
    EXPECT_EQ(by_label.size(), truth_->at("tasks").size()) << got->at("tasks").dump();
    for (const json& want : truth_->at("tasks")) {
      const std::string label = want.at("label");
      SCOPED_TRACE("task " + label);
      auto it = by_label.find(label);
      if (it == by_label.end()) {
        ADD_FAILURE() << "py-tasks --json has no task running " << label << "()";
        continue;
      }
      const json& task = it->second;
      if (!want.at("name").is_null()) {
        EXPECT_EQ(task.at("name"), want.at("name"));
      }
      EXPECT_EQ(StackKey(task.at("coroutine_stack")),
                StackKey(pyunwind::testing::TaskStackOfTruth(*truth_, want)));
      std::set<std::pair<std::string, std::string>> edges, want_edges;
      for (const json& e : task.at("awaited_by")) {
        edges.insert({label_of_id[e.at("id").get<std::string>()], e.at("kind").get<std::string>()});
      }
      for (const json& e : want.at("awaited_by")) {
        want_edges.insert({e.at("label").get<std::string>(), e.at("kind").get<std::string>()});
      }
      EXPECT_EQ(edges, want_edges) << "awaited_by " << task.at("awaited_by").dump();
      EXPECT_EQ(task.at("state"), "pending");
      EXPECT_EQ(task.at("thread_native_id"), loop);
      EXPECT_EQ(task.at("running"), label == truth_->at("running_label"));
    }
    if (!truth_->at("running_task").is_null()) {
      EXPECT_EQ(got->at("running_tasks"), json::array({truth_->at("running_task")}));
    }
  });
}

// Tasks from 3.7 on; 3.6's (found through the _asyncio module's symbols, not the asyncio
// package's registry) also from the core with its executable.
INSTANTIATE_TEST_SUITE_P(Pyenv, OlderVersionsTasks,
                         ::testing::ValuesIn(Cells(kOlderVersions, true, kLiveAndCoreAlone)),
                         CellName);
INSTANTIATE_TEST_SUITE_P(Pyenv36, OlderVersionsTasks, ::testing::ValuesIn(Cells({"3.6.15"})),
                         CellName);
INSTANTIATE_TEST_SUITE_P(Debian11, OlderVersionsTasks,
                         ::testing::ValuesIn(Cells(kDebian11, true, kLiveAndCoreAlone)), CellName);

// 2.7 has no asyncio: py-tasks says so in one line, and nothing else.
class Python27Tasks : public OlderVersions {};

TEST_P(Python27Tasks, SaysThereIsNoAsyncio) {
  script_ = "legacy_locals";
  Verdict([&] {
    RunResult r = RunDebugger(GetParam().debugger, *install_, target_, {"py-tasks"}, 120);
    ASSERT_TRUE(r.exited) << r.Describe();
    const std::string said = PyunwindError(r.out + r.err);
    EXPECT_EQ(said, "pyunwind: Python 2.7 has no asyncio: py-tasks has no tasks to show")
        << r.Describe();
    EXPECT_EQ(Occurrences(r.out + r.err, "pyunwind: "), 1u) << r.Describe();
  });
}

INSTANTIATE_TEST_SUITE_P(Pyenv, Python27Tasks,
                         ::testing::ValuesIn(Cells({"2.7.18"}, false, kLiveAndCoreAlone)), CellName);

// ---------------------------------------------------------------- Debian 11: how _PyRuntime is found

// Debian 11's stripped binary: live and with the executable, _PyRuntime comes from .dynsym
// (the only symbol table it keeps); so it does from the core alone in LLDB, which loads the
// executable the core names from its path on disk. GDB, from the core alone, has no module to
// look the symbol up in, and the scan for the runtime's main interpreter finds it. `py-bt -v`
// says which.
class Debian11Runtime : public OlderVersions {};

TEST_P(Debian11Runtime, FoundBy) {
  const Cell& c = GetParam();
  script_ = "legacy_locals";  // no spinning thread
  if (!Start(script_)) {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    return;
  }
  RunResult r = RunDebugger(c.debugger, *install_, target_, {"py-bt -v"}, 120);
  ASSERT_TRUE(r.exited) << r.Describe();
  const auto lines = LinesContaining(r.out + r.err, "_PyRuntime at ");
  ASSERT_FALSE(lines.empty()) << r.Describe();
  const char* want = c.open == Open::kCoreAlone && c.debugger == Debugger::kGdb
                         ? "found by a scan for the runtime's main interpreter"
                         : "found by the _PyRuntime symbol";
  EXPECT_NE(lines.front().find(want), std::string::npos) << lines.front();
  EXPECT_NE(lines.front().find("layout from table 3.9"), std::string::npos) << lines.front();
}

INSTANTIATE_TEST_SUITE_P(Debian11, Debian11Runtime, ::testing::ValuesIn(Cells(kDebian11)),
                         CellName);

// ---------------------------------------------------------------- refusal

// A version pyunwind cannot read gets one error line naming it ("Python 3.5 is not
// supported: pyunwind reads 2.7 and 3.6 to 3.15"), live, in each debugger. Every pyenv
// interpreter installed is read, so the target is a copy of /bin/sleep under the file name
// such an interpreter has: the name is all the core has to go by when no runtime is found.
struct RefusedCell {
  std::string version;  // "2.6", "3.5"
  Debugger debugger = Debugger::kLldb;
};

void PrintTo(const RefusedCell& c, std::ostream* os) {
  *os << "python" << c.version << ", " << DebuggerName(c.debugger);
}

class Refusal : public ::testing::TestWithParam<RefusedCell> {};

TEST_P(Refusal, ErrorNamesTheVersion) {
  const RefusedCell& c = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const std::string program = TempDir() + "/python" + c.version;
  if (!FileExists(program)) {
    ASSERT_EQ(std::system(("cp /bin/sleep " + program).c_str()), 0) << program;
  }
  ProcessOptions options;
  options.argv = {program, "600"};
  auto process = Process::Spawn(options, &error);
  ASSERT_NE(process, nullptr) << error;
  Target target;
  target.pid = process->pid();
  RunResult r = RunDebugger(c.debugger, *install, target, {"py-bt --all"}, 120);
  ASSERT_TRUE(r.exited) << r.Describe();
  const std::string said = PyunwindError(r.out + r.err);
  EXPECT_NE(said.find("Python " + c.version + " is not supported: pyunwind reads 2.7 and 3.6 to 3.15"),
            std::string::npos)
      << said << "\n" << r.Describe();
  EXPECT_EQ(said.find('\n'), std::string::npos) << said;
}

std::vector<RefusedCell> RefusedCells() {
  std::vector<RefusedCell> cells;
  for (const char* version : {"2.6", "3.5"})
    for (Debugger d : {Debugger::kLldb, Debugger::kGdb}) cells.push_back({version, d});
  return cells;
}

INSTANTIATE_TEST_SUITE_P(Named, Refusal, ::testing::ValuesIn(RefusedCells()),
                         [](const ::testing::TestParamInfo<RefusedCell>& info) {
                           return SanitizeName("python" + info.param.version + "_" +
                                               DebuggerName(info.param.debugger));
                         });

}  // namespace
}  // namespace pyunwind_e2e
