// py-waits against what tests/data/waits.py records about itself, on pyenv's 3.6.15 to 3.10.13
// (3.6, 3.7: threads only), Debian's 3.11, pyenv's 3.12.1 and 3.13.0 and Debian unstable's
// 3.14 and 3.15 (.ci/fetch-pythons; each where installed), live and from a gcore core, in LLDB
// and GDB; the thread suites (deadlocks, calm) and the GIL also on pyenv's 2.7.18 (threads
// only, its cores alone and with the executable: threading's Python-level _RLock, _Condition,
// _Event, _Semaphore and Thread.join on thread.lock, the classic class Queue.Queue; py-waits
// says in one line that 2.7 has no asyncio):
//   * Deadlocks (waits.py): an RLock-order deadlock between worker-1 (in `with R2:`) and
//     worker-2 (in R1.acquire()), a Lock-order one between lock-1 and lock-2 (each Lock held by
//     a `with` block, whose bound __exit__ on the frame's value stack names the holder),
//     joiner joining joinee which waits for an RLock joiner holds, a task holding an
//     asyncio.Lock (`async with`: its bound __aexit__ on the coroutine's value stack) that
//     awaits the task waiting for that Lock,
//     an asyncio await cycle (task "a" awaits "b", which awaits "a"), tasks nothing can
//     wake (a future or an asyncio.Event nothing but the task holds) beside tasks awaiting a
//     future a global or another task's frame holds, or a TimerHandle (asyncio.sleep), a thread blocked on a
//     plain Lock taken by acquire() (no owner recorded: held_by null), sleeping and selecting threads, tasks in
//     asyncio.sleep and Event.wait. `py-waits --json` gives each thread's and task's wait
//     kind, the object's address (id()), who holds it (the RLock's owner, the joined thread,
//     the awaited task), and exactly the truth's cycles, each from its least party; the text
//     prints each cycle first as one "deadlock:" line, and nothing else says "deadlock".
//   * Calm (waits_calm.py): a busy thread, sleeping ones, threads in Event.wait,
//     Condition.wait, Semaphore.acquire, Barrier.wait, Queue.get and Queue.put (on the object
//     whose method it is), a loop whose tasks sleep or wait on an Event: no cycle, "no deadlock
//     found", and each wait as the truth says.
//   * Futures (futures_wait.py): a one-worker ThreadPoolExecutor whose task waits for a Future
//     queued behind itself (the Future's address, state PENDING, its executor with no idle
//     worker, held by that worker: a cycle of one thread, "queued on an executor whose only
//     worker is itself"), and main waiting for a RUNNING Future, held by the sleeping worker
//     that runs it: no cycle.
//   * Imports (import_waits.py): a thread waiting for a module lock (in importlib's
//     _ModuleLock.acquire) is held by the thread its owner ident names, the one running that
//     module's body; with a Lock between them, a cycle "waits for the import lock ...".
//   * GIL (gil_wait.py, live, 2.7 and 3.8 to 3.15): the waiter waits for the GIL, held by the
//     spinning main thread.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

// Threads are matched by ident (threading.get_ident()); asyncio tasks, named from 3.8 on, are
// left out of the scenarios on 3.6 and 3.7.
const std::vector<std::string> kInterpreters = {"3.6.15", "3.7.16", "3.8.18",   "3.9.18",
                                                 "3.10.13", "debian_3.11", "3.12.1",
                                                 "3.13.0", "sid_3.14", "sid_3.15"};

// The cells of the thread suites: kInterpreters', and 2.7.18's (no asyncio; its Python-level
// locks read from the instance dicts, which a core alone and one with the executable both hold).
std::vector<MatrixCell> ThreadSuiteCells() {
  std::vector<MatrixCell> cells = MatrixCells({"2.7.18"}, Cores::kBoth);
  for (MatrixCell& cell : MatrixCells(kInterpreters)) cells.push_back(std::move(cell));
  return cells;
}

// 2.7 has no asyncio: the text says so in exactly one line, and no other version says it.
void ExpectAsyncioLine(const json& truth, const std::string& out) {
  const bool python2 = truth.at("python").at("version").get<std::string>().rfind("2.", 0) == 0;
  const auto lines = LinesContaining(out, "has no asyncio");
  size_t text_lines = 0;  // the JSON document states it too, in its warnings
  for (const std::string& line : lines) {
    if (line.rfind("{", 0) == 0) continue;
    ++text_lines;
    EXPECT_EQ(line, "warning: Python 2.7 has no asyncio: py-waits shows threads only") << out;
  }
  EXPECT_EQ(text_lines, python2 ? 1u : 0u) << out;
}

// The py-waits entry of each waiter, by (kind, id as the truth writes it).
std::map<std::pair<std::string, std::string>, json> WaitsById(const json& document) {
  std::map<std::pair<std::string, std::string>, json> out;
  for (const json& wait : document.at("waits")) {
    const json& id = wait.at("id");
    out[{wait.at("kind"), id.is_string() ? id.get<std::string>() : id.dump()}] = wait;
  }
  return out;
}

// The ids of a held_by list, as the truth writes them (threads: numbers, tasks: "0x...").
json HolderIds(const json& held_by) {
  if (held_by.is_null()) return held_by;
  json ids = json::array();
  for (const json& party : held_by) ids.push_back(party.at("id"));
  return ids;
}

// Each truth thread's and task's wait against py-waits' entry for it. `live`: the process
// itself was read (an asyncio.sleep's time left is known), not a core of it.
void ExpectWaitsMatch(const json& truth, const json& got, bool live) {
  auto waits = WaitsById(got);
  auto check = [&](const std::string& kind, const json& id, const json& expected) {
    const std::string key = id.is_string() ? id.get<std::string>() : id.dump();
    auto found = waits.find({kind, key});
    ASSERT_NE(found, waits.end()) << kind << " " << key << " missing: " << got.dump(1);
    const json& wait = found->second;
    EXPECT_EQ(wait.at("name"), expected.at("name")) << wait.dump();
    const json& waits_for = wait.at("waits_for");
    if (expected.at("waits").is_null()) {
      EXPECT_TRUE(waits_for.is_null()) << expected.dump() << "\n" << wait.dump();
      return;
    }
    ASSERT_FALSE(waits_for.is_null()) << expected.dump() << "\n" << wait.dump();
    EXPECT_EQ(waits_for.at("kind"), expected.at("waits")) << wait.dump();
    if (expected.contains("address") && !expected.at("address").is_null()) {
      EXPECT_EQ(waits_for.at("address"), expected.at("address")) << wait.dump();
    }
    if (kind == "task" && expected.at("waits") == "task") {
      EXPECT_EQ(waits_for.at("address"), expected.at("held_by").at(0)) << wait.dump();
    }
    EXPECT_EQ(HolderIds(waits_for.at("held_by")), expected.at("held_by")) << wait.dump();
    // A Future's waiter: the Future's state and, when queued, its executor.
    if (expected.contains("state")) {
      EXPECT_EQ(waits_for.at("state"), expected.at("state")) << wait.dump();
    }
    if (expected.contains("executor")) {
      EXPECT_EQ(waits_for.at("executor"), expected.at("executor")) << wait.dump();
    }
    // A task's future that nothing but the task holds (and no other said so).
    if (expected.contains("nothing_can_wake")) {
      EXPECT_EQ(waits_for.at("nothing_can_wake"), expected.at("nothing_can_wake")) << wait.dump();
    } else {
      EXPECT_EQ(waits_for.at("nothing_can_wake"), false) << wait.dump();
    }
    // An asyncio.sleep: its delay and deadline exact; the time left only live, within the delay.
    if (expected.contains("sleep")) {
      const json& sleep = waits_for.at("sleep");
      ASSERT_TRUE(sleep.is_object()) << wait.dump();
      EXPECT_EQ(sleep.at("delay"), expected.at("sleep").at("delay")) << wait.dump();
      EXPECT_EQ(sleep.at("deadline"), expected.at("sleep").at("deadline")) << wait.dump();
      if (live) {
        ASSERT_TRUE(sleep.at("remaining").is_number()) << wait.dump();
        EXPECT_GT(sleep.at("remaining").get<double>(), 0) << wait.dump();
        EXPECT_LE(sleep.at("remaining").get<double>(), sleep.at("delay").get<double>()) << wait.dump();
      } else {
        EXPECT_TRUE(sleep.at("remaining").is_null()) << wait.dump();
      }
    }
  };
  for (const json& thread : truth.at("threads")) check("thread", thread.at("ident"), thread);
  for (const json& task : truth.at("tasks")) check("task", task.at("id"), task);
}

// The name of the truth's thread of `ident`.
std::string ThreadNamed(const json& truth, const json& ident) {
  for (const json& thread : truth.at("threads")) {
    if (thread.at("ident") == ident) return thread.at("name");
  }
  return "";
}

// The "deadlock:" line the text must print for a truth cycle.
std::string CycleLine(const json& truth, const json& cycle) {
  auto party_text = [](const json& p) {
    return p.at("kind").get<std::string>() + " \"" + p.at("name").get<std::string>() + "\"";
  };
  std::string line = "deadlock: ";
  for (size_t i = 0; i < cycle.size(); ++i) {
    const json& party = cycle[i];
    const std::string next = party_text(cycle[(i + 1) % cycle.size()]);
    std::string phrase = "awaits " + next;
    for (const json& t : truth.at("tasks")) {
      if (party.at("kind") == "task" && t.at("id") == party.at("id") && t.at("waits") == "asyncio_lock") {
        phrase = "awaits Lock " + t.at("address").get<std::string>() + " held by " + next;
      }
    }
    if (party.at("kind") == "thread") {
      for (const json& t : truth.at("threads")) {
        if (t.at("ident") != party.at("id")) continue;
        const std::string type = t.at("waits") == "lock" ? "Lock " : "RLock ";
        if (t.at("waits") == "import_lock") {
          phrase = "waits for the import lock " + t.at("address").get<std::string>() +
                   " held by " + next;
          continue;
        }
        if (t.at("waits") == "concurrent_future") {
          phrase = "waits for Future " + t.at("address").get<std::string>() +
                   " queued on an executor whose only worker is " +
                   (cycle.size() == 1 ? "itself" : next);
          continue;
        }
        phrase = t.at("waits") == "join" ? "joins " + next
                                         : "waits for " + type + t.at("address").get<std::string>() +
                                               " held by " + next;
      }
    }
    line += (i == 0 ? party_text(party) + " " : ", which ") + phrase;
  }
  return line;
}

// The scenarios of the py-waits suites.
constexpr char kWaitsScript[] = "tests/data/waits.py";
constexpr char kCalmWaitsScript[] = "tests/data/waits_calm.py";
constexpr char kFuturesWaitsScript[] = "tests/data/futures_wait.py";
constexpr char kImportWaitsScript[] = "tests/data/import_waits.py";

// A matrix suite of one scenario, `Script`, started in each cell; its tests run
// `py-waits --json` then `py-waits` there.
template <const char* Script>
class WaitsOf : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start(Script); }

  // The run (which must exit 0) and the JSON document it printed.
  void RunWaits(RunResult* run, json* got) {
    *run = RunDebugger(GetParam().debugger, *install_, target_, {"py-waits --json", "py-waits"});
    ASSERT_TRUE(run->exited && run->exit_code == 0) << run->Describe();
    std::string error;
    auto document = ExtractJson(run->out, &error);
    ASSERT_TRUE(document) << error << "\n" << run->Describe();
    *got = *std::move(document);
  }

  // RunWaits on a scenario whose truth has one cycle: every wait as the truth says, that
  // cycle in the JSON, and its one "deadlock:" line in the text.
  void RunWaitsWithOneCycle(RunResult* run) {
    const json& truth = scenario_->truth();
    ASSERT_EQ(truth.at("cycles").size(), 1u) << truth.dump(1);
    json got;
    ASSERT_NO_FATAL_FAILURE(RunWaits(run, &got));
    ExpectWaitsMatch(truth, got, GetParam().live);
    EXPECT_EQ(got.at("cycles"), truth.at("cycles")) << got.dump(1);
    const auto lines = LinesContaining(run->out, "deadlock");
    ASSERT_EQ(lines.size(), 1u) << run->out;
    EXPECT_EQ(lines[0], CycleLine(truth, truth.at("cycles").at(0))) << run->out;
  }
};

using Waits = WaitsOf<kWaitsScript>;

TEST_P(Waits, ThreadsTasksAndCyclesMatchTruth) {
  const json& truth = scenario_->truth();
  // 3.6 and 3.7 (no task names): the threads' three cycles, no loop.
  const bool with_tasks = !truth.at("tasks").empty();
  ASSERT_EQ(truth.at("cycles").size(), with_tasks ? 5u : 3u) << truth.dump(1);
  RunResult run;
  json got;
  ASSERT_NO_FATAL_FAILURE(RunWaits(&run, &got));
  ExpectWaitsMatch(truth, got, GetParam().live);
  auto sorted = [](json cycles) {
    std::sort(cycles.begin(), cycles.end(), [](const json& a, const json& b) { return a.dump() < b.dump(); });
    return cycles;
  };
  EXPECT_EQ(sorted(got.at("cycles")), sorted(truth.at("cycles"))) << got.dump(1);
  // The text: each cycle once, as one line, before any other line of py-waits.
  const auto lines = LinesContaining(run.out, "deadlock");
  ASSERT_EQ(lines.size(), truth.at("cycles").size()) << run.out;
  for (const json& cycle : truth.at("cycles")) {
    const std::string expected = CycleLine(truth, cycle);
    EXPECT_EQ(std::count(lines.begin(), lines.end(), expected), 1) << expected << "\n" << run.out;
  }
  // The sleeper's line: its delay, and the time left (live) or its deadline on the loop clock.
  for (const json& task : truth.at("tasks")) {
    if (task.at("name") != "sleeper") continue;
    const json& sleep = task.at("sleep");
    char due[64];
    std::snprintf(due, sizeof due, "due at loop time %.1f (sleep)", sleep.at("deadline").get<double>());
    const std::string line = "task \"sleeper\" (" + task.at("id").get<std::string>() + "): awaits ";
    const std::string of = " of a " + sleep.at("delay").dump() + " s sleep, ";
    const auto lines = LinesContaining(run.out, line);
    ASSERT_EQ(lines.size(), 1u) << line << "\n" << run.out;
    EXPECT_NE(lines[0].find(of + (GetParam().live ? "due in " : due)), std::string::npos) << lines[0];
  }
  // The tasks nothing can wake, each on its own line, and no other line saying so.
  size_t unwakeable = 0;
  for (const json& task : truth.at("tasks")) {
    if (!task.value("nothing_can_wake", false)) continue;
    ++unwakeable;
    const std::string line = "task \"" + task.at("name").get<std::string>() + "\" (" +
                             task.at("id").get<std::string>() + "): awaits ";
    const auto lines = LinesContaining(run.out, line);
    ASSERT_EQ(lines.size(), 1u) << line << "\n" << run.out;
    EXPECT_TRUE(std::string_view(lines[0]).ends_with(", held by nothing else: nothing can wake it"))
        << lines[0];
  }
  EXPECT_EQ(unwakeable, with_tasks ? 3u : 0u) << truth.dump(1);
  EXPECT_EQ(LinesContaining(run.out, "nothing can wake it").size(), unwakeable) << run.out;
  ExpectAsyncioLine(truth, run.out);
  const size_t first_deadlock = run.out.find("\ndeadlock: ");
  const size_t first_wait = run.out.find("\nthread \"");
  EXPECT_LT(first_deadlock, first_wait) << run.out;
}

using CalmWaits = WaitsOf<kCalmWaitsScript>;

TEST_P(CalmWaits, NoCycleAndEachWaitAsTruth) {
  const json& truth = scenario_->truth();
  ASSERT_TRUE(truth.at("cycles").empty());
  RunResult run;
  json got;
  ASSERT_NO_FATAL_FAILURE(RunWaits(&run, &got));
  ExpectWaitsMatch(truth, got, GetParam().live);
  EXPECT_TRUE(got.at("cycles").empty()) << got.dump(1);
  EXPECT_TRUE(LinesContaining(run.out, "deadlock:").empty()) << run.out;
  EXPECT_EQ(LinesContaining(run.out, "no deadlock found").size(), 1u) << run.out;
  ExpectAsyncioLine(truth, run.out);
}

using FuturesWaits = WaitsOf<kFuturesWaitsScript>;

// A one-worker executor whose task waits for a Future queued behind itself: a cycle of that
// one thread; main and asker wait for Futures sleeping workers run: no cycle.
TEST_P(FuturesWaits, QueuedBehindItselfIsADeadlockRunningIsNot) {
  const json& truth = scenario_->truth();
  RunResult run;
  ASSERT_NO_FATAL_FAILURE(RunWaitsWithOneCycle(&run));
  // main in Future.result(), asker in Future.exception(), each of a Future a worker runs.
  const std::map<std::string, std::string> calls = {{"main", "Future.result"},
                                                    {"asker", "Future.exception"}};
  size_t seen = 0;
  for (const json& thread : truth.at("threads")) {
    const auto call = calls.find(thread.at("name").get<std::string>());
    if (call == calls.end()) continue;
    ++seen;
    const std::string worker = ThreadNamed(truth, thread.at("held_by").at(0));
    const std::string waits = "waits for Future " + thread.at("address").get<std::string>() +
                              " run by thread \"" + worker + "\" (" + call->second + ")";
    EXPECT_EQ(LinesContaining(run.out, waits).size(), 1u) << waits << "\n" << run.out;
  }
  EXPECT_EQ(seen, calls.size()) << truth.dump(1);
}

using ImportWaits = WaitsOf<kImportWaitsScript>;

// A thread holding a Lock waits to import a module whose body, run by a second thread that
// owns its module lock, waits for that Lock: a cycle Python's own import deadlock check does
// not see; a second import waits for a module whose body sleeps: held by that thread, no cycle.
TEST_P(ImportWaits, ModuleLockHeldByTheThreadRunningTheModule) {
  const json& truth = scenario_->truth();
  RunResult run;
  ASSERT_NO_FATAL_FAILURE(RunWaitsWithOneCycle(&run));
  size_t imports = 0;
  for (const json& thread : truth.at("threads")) {
    if (thread.at("waits") != "import_lock") continue;
    ++imports;
    const std::string holder = ThreadNamed(truth, thread.at("held_by").at(0));
    const std::string waits = "waits for the import lock " +
                              thread.at("address").get<std::string>() + " held by thread \"" +
                              holder + "\" (import " + thread.at("module").get<std::string>() +
                              ")";
    EXPECT_EQ(LinesContaining(run.out, waits).size(), 1u) << waits << "\n" << run.out;
  }
  EXPECT_EQ(imports, 2u) << truth.dump(1);
}

// tests/data/gil_wait.py, live: its waiter thread waits for the GIL the spinning main thread
// holds (reached a few milliseconds after the truth: asked again until it is there).
class GilWaits : public ::testing::TestWithParam<std::tuple<std::string, Debugger>> {
 public:
  static void TearDownTestSuite() { ScenarioMatrixTest::TearDownTestSuite(); }
};

TEST_P(GilWaits, WaiterWaitsForTheGilTheMainThreadHolds) {
  const auto& [interp, debugger] = GetParam();
  std::string skip, error;
  const Scenario* scenario = MatrixScenario(interp, "tests/data/gil_wait.py", &skip, &error);
  if (!skip.empty()) GTEST_SKIP() << skip;
  ASSERT_NE(scenario, nullptr) << error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  Target target;
  target.pid = scenario->pid();
  json waiter;
  RunResult run;
  for (int attempt = 0; attempt < 50; ++attempt) {
    run = RunDebugger(debugger, *install, target, {"py-waits --json"});
    ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
    auto got = ExtractJson(run.out, &error);
    ASSERT_TRUE(got) << error << "\n" << run.Describe();
    for (const json& wait : got->at("waits")) {
      if (wait.at("name") == "waiter") waiter = wait;
    }
    if (!waiter.is_null() && !waiter.at("waits_for").is_null() &&
        waiter.at("waits_for").at("kind") == "gil") {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_FALSE(waiter.is_null()) << run.out;
  const json& waits_for = waiter.at("waits_for");
  ASSERT_FALSE(waits_for.is_null()) << waiter.dump();
  EXPECT_EQ(waits_for.at("kind"), "gil") << waiter.dump();
  ASSERT_EQ(waits_for.at("held_by").size(), 1u) << waiter.dump();
  EXPECT_EQ(waits_for.at("held_by").at(0).at("name"), "MainThread") << waiter.dump();
}

INSTANTIATE_TEST_SUITE_P(Interpreters, GilWaits,
                         ::testing::Combine(::testing::Values("2.7.18", "3.8.18", "3.9.18", "3.10.13",
                                                              "debian_3.11", "3.12.1", "3.13.0",
                                                              "sid_3.14", "sid_3.15"),
                                            ::testing::Values(Debugger::kLldb, Debugger::kGdb)),
                         [](const auto& info) {
                           return SanitizeName(std::get<0>(info.param)) + "_" +
                                  DebuggerName(std::get<1>(info.param));
                         });

INSTANTIATE_TEST_SUITE_P(Interpreters, Waits, ::testing::ValuesIn(ThreadSuiteCells()),
                         MatrixCellName);
INSTANTIATE_TEST_SUITE_P(Interpreters, CalmWaits, ::testing::ValuesIn(ThreadSuiteCells()),
                         MatrixCellName);
INSTANTIATE_TEST_SUITE_P(Interpreters, FuturesWaits, ::testing::ValuesIn(MatrixCells(kInterpreters)),
                         MatrixCellName);
INSTANTIATE_TEST_SUITE_P(Interpreters, ImportWaits, ::testing::ValuesIn(MatrixCells(kInterpreters)),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e
