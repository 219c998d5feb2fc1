// py-tasks on every asyncio_tree fixture core (<shared>/fixtures/cores/VERSION/
// asyncio_tree/core.xz), read by ElfCoreTarget without a debugger, against
// the scenario's truth.json: the set of task names, each task's coroutine
// stack (qualname, name, filename, line, innermost first) and every
// awaited_by edge with its kind ("taskgroup", "gather", "await"); the
// running task (--running, and running_tasks in the JSON); --tree as text on
// 3.11.2; "no asyncio tasks" on a program that never imported asyncio.
//
// Every version of the fixtures (3.11.2, 3.12.6, 3.13.15, 3.13.15t, 3.14.7,
// 3.14.7-shared, 3.14.7t, 3.15.2) is supported: no case expects the "does
// not support" error.
//
// 3.14 and 3.15 cores also carry remote_debugging.json, what CPython's own
// _remote_debugging.RemoteUnwinder.get_all_awaited_by() returned for the same
// live process. It agrees with py-tasks on every task name, coroutine stack
// and awaiter. What differs, and why: it gives no edge kind (CPython's
// awaited_by set does not record how the edge was made; py-tasks tells
// "await", "gather" and "taskgroup" apart from the awaiter's fut_waiter, the
// _GatheringFuture's _children and the TaskGroup done-callback), and it
// names awaiters by task id plus their coroutine stack where py-tasks gives
// id and name. The test checks the agreement.
//
// <shared> is found as in the other fixture tests: PYUNWIND_SHARED_DIR, else
// beside the workspace, through fixture_facts.h's FixtureLayoutsDir (anchor:
// this source file, a data dependency of the test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "core/target/elf_core_target.h"
#include "tests/fixture_cores.h"
#include "tests/opened_core.h"
#include "tests/tasks_facts.h"

namespace pyunwind {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr char kThisFile[] = "tests/asyncio_core_test.cc";

std::string fmt_hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

fs::path SharedFixtures() { return testing::SharedFixtures(kThisFile); }

std::vector<std::string> Versions() { return testing::VersionsWithScenario(kThisFile, "asyncio_tree"); }

using testing::OpenedCore;
using testing::StackKey;
using testing::TaskStackOfTruth;

CommandOutput PyTasks(ElfCoreTarget& target, std::vector<std::string> args) {
  CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
  return RunCommand("py-tasks", args, context);
}

std::set<std::pair<std::string, std::string>> Edges(const Json& awaited_by) {
  std::set<std::pair<std::string, std::string>> out;
  for (const Json& edge : awaited_by) {
    out.insert(std::make_pair(edge.at("name").get<std::string>(), edge.at("kind").get<std::string>()));
  }
  return out;
}

class AsyncioCore : public ::testing::TestWithParam<std::string> {};

TEST_P(AsyncioCore, PyTasksMatchesTruth) {
  const std::string version = GetParam();
  if (version == "none") GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  const fs::path dir = SharedFixtures() / "cores" / version / "asyncio_tree";
  OpenedCore core(dir, "asyncio_" + version);
  ASSERT_EQ(core.error(), "");
  const Json& truth = core.truth();
  ASSERT_FALSE(truth.is_null()) << "no truth.json in " << dir;

  const CommandOutput output = PyTasks(core.target(), {"--json"});
  ASSERT_FALSE(output.failed) << output.text;
  const Json got = Json::parse(output.text);
  EXPECT_EQ(got.at("python").at("version"), truth.at("python").at("version"));
  EXPECT_TRUE(got.at("asyncio_imported").get<bool>());
  EXPECT_TRUE(got.at("warnings").empty()) << got.at("warnings").dump();

  std::map<std::string, Json> by_name;
  for (const Json& task : got.at("tasks")) {
    EXPECT_TRUE(by_name.emplace(task.at("name"), task).second) << "two tasks named " << task.at("name");
  }
  ASSERT_EQ(by_name.size(), truth.at("tasks").size()) << output.text;
  std::set<uint64_t> loop_threads;
  for (const Json& thread : truth.at("threads")) {
    if (thread.at("role") == "loop") loop_threads.insert(thread.at("native_id").get<uint64_t>());
  }
  for (const Json& want : truth.at("tasks")) {
    const std::string name = want.at("name");
    SCOPED_TRACE("task " + name);
    auto found = by_name.find(name);
    ASSERT_NE(found, by_name.end()) << "missing task";
    const Json& task = found->second;
    EXPECT_EQ(StackKey(task.at("coroutine_stack")), StackKey(TaskStackOfTruth(truth, want)));
    EXPECT_EQ(Edges(task.at("awaited_by")), Edges(want.at("awaited_by")));
    EXPECT_EQ(task.at("state"), "pending");
    ASSERT_FALSE(task.at("thread_native_id").is_null());
    EXPECT_EQ(loop_threads.count(task.at("thread_native_id").get<uint64_t>()), 1u);
  }
  // The loop thread is the one whose thread state records the tasks' loop as
  // running (tstate->dict on 3.11/3.12, _PyThreadStateImpl.asyncio_running_loop on 3.13+),
  // and no other thread records one.
  ASSERT_EQ(loop_threads.size(), 1u);
  const Json want_loops = Json::array(
      {{{"thread_native_id", *loop_threads.begin()}, {"loop", got.at("tasks").at(0).at("loop")}}});
  EXPECT_EQ(got.at("running_loops"), want_loops);
  for (const Json& task : got.at("tasks")) EXPECT_EQ(task.at("loop"), want_loops[0].at("loop"));
  Json want_running = Json::array();
  want_running.push_back(truth.at("running_task"));
  EXPECT_EQ(got.at("running_tasks"), want_running);

  // --running: the running task, then the task that awaits it.
  const CommandOutput running = PyTasks(core.target(), {"--running"});
  ASSERT_FALSE(running.failed) << running.text;
  const std::string running_name = truth.at("running_task");
  EXPECT_NE(running.text.find("is running task " + running_name + " "), std::string::npos)
      << running.text;
  const Json& running_truth = *std::find_if(
      truth.at("tasks").begin(), truth.at("tasks").end(),
      [&](const Json& t) { return t.at("name") == running_name; });
  for (const Json& frame : TaskStackOfTruth(truth, running_truth)) {
    EXPECT_NE(running.text.find(frame.at("qualname").get<std::string>()), std::string::npos);
  }
  for (const Json& edge : running_truth.at("awaited_by")) {
    EXPECT_NE(running.text.find("awaited by task " + edge.at("name").get<std::string>()),
              std::string::npos)
        << running.text;
  }

  // The text table: per task a block of rows, the first with its id, name, thread and
  // state; row i shows coroutine i ("qualname file:line", innermost first) and awaiter i.
  const CommandOutput table = PyTasks(core.target(), {});
  ASSERT_FALSE(table.failed) << table.text;
  std::map<std::string, std::vector<std::string>> blocks;  // task id -> its rows
  {
    std::istringstream rows(table.text);
    std::string row, id;
    std::getline(rows, row);
    EXPECT_EQ(row.rfind("task id", 0), 0u) << row;
    while (std::getline(rows, row) && row.rfind("warning: ", 0) != 0) {
      if (row.rfind("0x", 0) == 0) id = row.substr(0, row.find(' '));
      if (!id.empty()) blocks[id].push_back(row);
    }
  }
  for (const Json& want : truth.at("tasks")) {
    const std::string name = want.at("name");
    SCOPED_TRACE("table row of task " + name);
    const std::vector<std::string>& rows = blocks[by_name[name].at("id").get<std::string>()];
    ASSERT_FALSE(rows.empty()) << table.text;
    EXPECT_NE(rows[0].find(" " + name + " "), std::string::npos) << rows[0];
    const std::string state = name == truth.at("running_task") ? " running " : " pending ";
    EXPECT_NE(rows[0].find(state), std::string::npos) << rows[0];
    EXPECT_NE(rows[0].find(" " + std::to_string(by_name[name].at("thread_native_id").get<uint64_t>()) + " "),
              std::string::npos) << rows[0];
    const Json stack = TaskStackOfTruth(truth, want);
    ASSERT_GE(rows.size(), stack.size());
    for (size_t i = 0; i < stack.size(); ++i) {
      const std::string frame = stack[i].at("qualname").get<std::string>() + " " +
                                stack[i].at("filename").get<std::string>() + ":" +
                                std::to_string(stack[i].at("line").get<int>());
      EXPECT_NE(rows[i].find(frame), std::string::npos) << "row " << i << ": " << rows[i];
    }
    std::set<std::pair<std::string, std::string>> shown;  // (awaiter, kind) of each row
    for (const std::string& r : rows) {
      for (const auto& [awaiter, kind] : Edges(want.at("awaited_by"))) {
        if (r.find(" " + awaiter + " (0x") != std::string::npos &&
            r.find(", " + kind + ")") != std::string::npos) {
          shown.insert({awaiter, kind});
        }
      }
    }
    EXPECT_EQ(shown, Edges(want.at("awaited_by")));
  }

  // CPython's own view (3.14+): the same tasks, stacks and awaiters.
  std::ifstream remote_file(dir / "remote_debugging.json");
  if (!remote_file) return;
  const Json remote = Json::parse(remote_file);
  if (!remote.contains("get_all_awaited_by")) return;
  std::map<uint64_t, std::string> names;
  for (const Json& thread : remote.at("get_all_awaited_by")) {
    for (const Json& task : thread.at(1)) names[task.at(0).get<uint64_t>()] = task.at(1);
  }
  size_t compared = 0;
  for (const Json& thread : remote.at("get_all_awaited_by")) {
    for (const Json& task : thread.at(1)) {
      const std::string name = task.at(1);
      SCOPED_TRACE("remote_debugging task " + name);
      ASSERT_TRUE(by_name.count(name));
      const Json& ours = by_name[name];
      EXPECT_EQ(ours.at("id"), fmt_hex(task.at(0).get<uint64_t>()));
      Json remote_stack = Json::array();
      for (const Json& coro : task.at(2)) {
        for (const Json& frame : coro.at(0)) {
          // A frame is [filename, line, qualname] (3.14) or [filename, [line,
          // end_line, column, end_column], qualname, opcode] (3.15).
          const Json& location = frame.at(1);
          const Json line = location.is_array() ? location.at(0) : location;
          remote_stack.push_back({frame.at(2), frame.at(0), line});
        }
      }
      Json our_stack = Json::array();
      for (const Json& frame : ours.at("coroutine_stack")) {
        our_stack.push_back({frame.at("qualname"), frame.at("filename"), frame.at("line")});
      }
      // get_all_awaited_by gives a running task's coroutines only; py-tasks puts the frames
      // its thread runs above them first, as get_async_stack_trace does.
      if (ours.at("running") == true && our_stack.size() > remote_stack.size()) {
        our_stack.erase(our_stack.begin(), our_stack.end() - remote_stack.size());
      }
      EXPECT_EQ(our_stack, remote_stack);
      std::set<std::string> remote_awaiters, our_awaiters;
      for (const Json& awaiter : task.at(3)) remote_awaiters.insert(names[awaiter.at(1).get<uint64_t>()]);
      for (const Json& edge : ours.at("awaited_by")) our_awaiters.insert(edge.at("name"));
      EXPECT_EQ(our_awaiters, remote_awaiters);
      ++compared;
    }
  }
  EXPECT_EQ(compared, by_name.size());
}

// py-bt names the running task on the loop thread's block: JSON "running_task"
// {id, name} and status "running_task" on that thread only, the same id as
// py-tasks gives the task, and the text header "(..., running task 'NAME' 0x...)".
TEST_P(AsyncioCore, PyBtNamesRunningTask) {
  const std::string version = GetParam();
  if (version == "none") GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  const fs::path dir = SharedFixtures() / "cores" / version / "asyncio_tree";
  OpenedCore core(dir, "asyncio_bt_" + version);
  ASSERT_EQ(core.error(), "");
  const Json& truth = core.truth();
  ASSERT_FALSE(truth.is_null()) << "no truth.json in " << dir;
  CommandContext context{core.target(), std::nullopt, false, std::nullopt, std::nullopt};

  const std::string running_name = truth.at("running_task");
  uint64_t loop_thread = 0;
  for (const Json& thread : truth.at("threads")) {
    if (thread.at("role") == "loop") loop_thread = thread.at("native_id").get<uint64_t>();
  }
  ASSERT_NE(loop_thread, 0u) << "the truth has no loop thread";

  std::string task_id;
  const Json tasks = Json::parse(PyTasks(core.target(), {"--json"}).text);
  for (const Json& task : tasks.at("tasks")) {
    if (task.at("name") == running_name) task_id = task.at("id");
  }
  ASSERT_FALSE(task_id.empty()) << "py-tasks has no task " << running_name;

  const CommandOutput bt = RunCommand("py-bt", {"--all", "--json"}, context);
  ASSERT_FALSE(bt.failed) << bt.text;
  const Json got = Json::parse(bt.text);
  size_t named = 0;
  for (const Json& interp : got.at("interpreters")) {
    for (const Json& thread : interp.at("threads")) {
      const bool is_loop = thread.at("native_id") == loop_thread;
      const bool flagged = std::find(thread.at("status").begin(), thread.at("status").end(),
                                     "running_task") != thread.at("status").end();
      SCOPED_TRACE("thread " + thread.at("native_id").dump());
      EXPECT_EQ(flagged, is_loop);
      EXPECT_EQ(thread.contains("running_task"), is_loop);
      if (!thread.contains("running_task")) continue;
      ++named;
      EXPECT_EQ(thread.at("running_task").at("name"), running_name);
      EXPECT_EQ(thread.at("running_task").at("id"), task_id);
    }
  }
  EXPECT_EQ(named, 1u) << bt.text;

  const CommandOutput text = RunCommand("py-bt", {"--all"}, context);
  ASSERT_FALSE(text.failed) << text.text;
  // The header names the thread by its threading name (asyncio imports threading).
  EXPECT_NE(text.text.find("Thread " + std::to_string(loop_thread) + " \"MainThread\" (main thread, "),
            std::string::npos)
      << text.text;
  EXPECT_NE(text.text.find("running task '" + running_name + "' " + task_id + "):\n"),
            std::string::npos)
      << text.text;
}

// py-waits: each task the truth shows in asyncio.sleep (fetch() -> middle() -> leaf_sleep() ->
// asyncio.sleep(3600), fixtures/scenarios/asyncio_tree.py) sleeps 3600 s until a deadline on
// the loop's clock (read from its TimerHandle's __slots__ with no tp_name readable: the cores
// are read without their executables), and a core gives no time left. The scenario starts
// every sleep within its first seconds: the deadlines lie within a minute of each other.
TEST_P(AsyncioCore, PyWaitsTellsEachSleepsTimer) {
  const std::string version = GetParam();
  if (version == "none") GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  const fs::path dir = SharedFixtures() / "cores" / version / "asyncio_tree";
  OpenedCore core(dir, "asyncio_waits_" + version);
  ASSERT_EQ(core.error(), "");
  std::set<std::string> sleepers;
  for (const Json& task : core.truth().at("tasks")) {
    if (task.at("coroutine_stack").at(0).at("qualname") == "sleep") {
      sleepers.insert(task.at("name").get<std::string>());
    }
  }
  ASSERT_EQ(sleepers.size(), 2u) << core.truth().dump(1);
  CommandContext context{core.target(), std::nullopt, false, std::nullopt, std::nullopt};
  const CommandOutput waits = RunCommand("py-waits", {"--json"}, context);
  ASSERT_FALSE(waits.failed) << waits.text;
  const Json got = Json::parse(waits.text);
  std::vector<double> deadlines;
  for (const Json& wait : got.at("waits")) {
    if (!sleepers.count(wait.at("name").get<std::string>())) continue;
    SCOPED_TRACE(wait.dump());
    ASSERT_EQ(wait.at("waits_for").at("kind"), "asyncio_sleep");
    const Json& sleep = wait.at("waits_for").at("sleep");
    ASSERT_TRUE(sleep.is_object());
    EXPECT_EQ(sleep.at("delay"), 3600);
    EXPECT_GT(sleep.at("deadline").get<double>(), 3600.0);  // monotonic time at the call + 3600
    EXPECT_TRUE(sleep.at("remaining").is_null());
    deadlines.push_back(sleep.at("deadline").get<double>());
  }
  ASSERT_EQ(deadlines.size(), sleepers.size()) << waits.text;
  EXPECT_LT(*std::max_element(deadlines.begin(), deadlines.end()) -
                *std::min_element(deadlines.begin(), deadlines.end()),
            60.0);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AsyncioCore, ::testing::ValuesIn(Versions()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = "v" + info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// py-tasks --summary, --name, --state and --limit on every asyncio_tree core, against the truth:
// --summary groups every task by coroutine stack (qualnames, outermost first)
// and state with exact counts, largest first; --name, --state and --limit
// keep the same tasks in the JSON, the table and the tree; finished tasks
// (none here) would be left out by default.
TEST_P(AsyncioCore, FiltersAndSummaryMatchTruth) {
  const std::string version = GetParam();
  if (version == "none") GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  const fs::path dir = SharedFixtures() / "cores" / version / "asyncio_tree";
  OpenedCore core(dir, "asyncio_" + version);
  ASSERT_EQ(core.error(), "");
  const Json& truth = core.truth();
  ASSERT_FALSE(truth.is_null()) << "no truth.json in " << dir;
  const std::string running = truth.at("running_task");
  auto names_of = [](const Json& doc) {
    std::set<std::string> names;
    for (const Json& task : doc.at("tasks")) names.insert(task.at("name").get<std::string>());
    return names;
  };
  // The truth's groups: (state word, qualnames outermost first) -> count.
  std::map<std::pair<std::string, std::vector<std::string>>, size_t> want_groups;
  std::set<std::string> all_names, fetchers;
  for (const Json& task : truth.at("tasks")) {
    const std::string name = task.at("name");
    std::vector<std::string> stack;
    for (const Json& frame : TaskStackOfTruth(truth, task)) stack.insert(stack.begin(), frame.at("qualname"));
    ++want_groups[{name == running ? "running" : "pending", stack}];
    all_names.insert(name);
    if (name.rfind("fetcher-", 0) == 0) fetchers.insert(name);
  }
  ASSERT_EQ(fetchers.size(), 2u);

  const CommandOutput summary = PyTasks(core.target(), {"--summary", "--json"});
  ASSERT_FALSE(summary.failed) << summary.text;
  const Json doc = Json::parse(summary.text);
  std::map<std::pair<std::string, std::vector<std::string>>, size_t> got_groups;
  size_t previous = SIZE_MAX, total = 0;
  for (const Json& group : doc.at("summary")) {
    const size_t count = group.at("count");
    EXPECT_LE(count, previous) << "largest group first: " << doc.at("summary").dump();
    previous = count;
    total += count;
    EXPECT_EQ(group.at("names").size(), std::min<size_t>(count, 3)) << group.dump();
    got_groups[{group.at("state"), group.at("stack").get<std::vector<std::string>>()}] = count;
  }
  EXPECT_EQ(got_groups, want_groups) << doc.at("summary").dump();
  EXPECT_EQ(total, truth.at("tasks").size());
  EXPECT_EQ(doc.at("summary").at(0).at("count"), 2) << "the two fetchers";
  EXPECT_EQ(doc.at("tasks_read"), truth.at("tasks").size());
  // The text says the same: "2 tasks, pending: fetch -> middle -> leaf_sleep -> sleep".
  const CommandOutput summary_text = PyTasks(core.target(), {"--summary"});
  EXPECT_NE(summary_text.text.find("2 tasks, pending: fetch -> middle -> leaf_sleep -> sleep  (fetcher-"),
            std::string::npos) << summary_text.text;
  const std::string one_group = PyTasks(core.target(), {"--summary", "--limit", "1"}).text;
  EXPECT_EQ(one_group.find("2 tasks, pending: "), 0u) << one_group;
  EXPECT_NE(one_group.find(std::to_string(want_groups.size() - 1) + " more groups not shown (--limit 1)"),
            std::string::npos) << one_group;

  const Json fetch = Json::parse(PyTasks(core.target(), {"--json", "--name", "fetcher-*"}).text);
  EXPECT_EQ(names_of(fetch), fetchers);
  EXPECT_EQ(fetch.at("not_shown").at("filtered"), all_names.size() - 2);
  const Json run = Json::parse(PyTasks(core.target(), {"--json", "--state", "running"}).text);
  EXPECT_EQ(names_of(run), std::set<std::string>{running});
  std::set<std::string> pending = all_names;
  pending.erase(running);
  EXPECT_EQ(names_of(Json::parse(PyTasks(core.target(), {"--json", "--state=pending"}).text)), pending);
  EXPECT_TRUE(Json::parse(PyTasks(core.target(), {"--json", "--state", "done"}).text).at("tasks").empty());
  EXPECT_EQ(names_of(Json::parse(PyTasks(core.target(), {"--json", "--all"}).text)), all_names);
  const Json limited = Json::parse(PyTasks(core.target(), {"--json", "--limit", "3"}).text);
  EXPECT_EQ(limited.at("tasks").size(), 3u);
  EXPECT_EQ(limited.at("not_shown").at("limit"), all_names.size() - 3);

  // The table and the tree show the same tasks as the JSON.
  const std::string table = PyTasks(core.target(), {"--name", "fetcher-*"}).text;
  std::set<std::string> table_names;  // the name column of each task's first row
  std::istringstream rows(table);
  for (std::string row; std::getline(rows, row);) {
    if (row.rfind("0x", 0) != 0) continue;
    std::istringstream words(row);
    std::string id, name;
    words >> id >> name;
    table_names.insert(name);
  }
  EXPECT_EQ(table_names, fetchers) << table;
  // In the tree the children of gatherer, shown without it, are roots that say so.
  const std::string tree = PyTasks(core.target(), {"--tree", "--name", "child-*"}).text;
  // (Which of the two comes first is their address order.)
  EXPECT_TRUE(std::regex_search(
      tree, std::regex(R"(^\(T\) child-([ab]) \[0x[0-9a-f]+\] \(awaited by 1 task not shown\), )"
                       R"(and 1 identical sibling: child-(?!\1)[ab]\n)")))
      << tree;
  EXPECT_EQ(tree.find("via"), std::string::npos) << tree;
  EXPECT_EQ(PyTasks(core.target(), {"--state", "done"}).text, "no task matches\n");
  // --stats: a line after the output and one of the work budget spent (text), a "stats"
  // object (JSON).
  const std::string stats = PyTasks(core.target(), {"--summary", "--stats"}).text;
  EXPECT_TRUE(std::regex_search(
      stats, std::regex(R"(\nstats: [1-9][0-9]* target reads \([0-9]+ bytes, [0-9]+ failed\), [0-9]+ )"
                        R"(cache hits, [0-9]+ misses, )" + std::to_string(all_names.size()) +
                        R"( tasks, [1-9][0-9]* code objects, [0-9.]+ ms\n)"
                        R"(work \(spent/budget\): [1-9][0-9]*/[0-9]+ bytes read, .*, )"
                        R"([1-9][0-9]*/[0-9]+ container entries read, )"
                        R"([1-9][0-9]*/[0-9]+ coroutine links followed, )"
                        R"(0/[0-9]+ heap objects visited\n$)")))
      << stats;
  const Json stats_json = Json::parse(PyTasks(core.target(), {"--json", "--stats"}).text).at("stats");
  EXPECT_EQ(stats_json.at("tasks"), all_names.size());
  EXPECT_GT(stats_json.at("target_reads").get<uint64_t>(), 0u);
  EXPECT_GT(stats_json.at("code_objects").get<uint64_t>(), 0u);
  EXPECT_GT(stats_json.at("work").at("container_entries_read").at("spent").get<uint64_t>(), 0u);
  // Every coroutine of a task's await chain is counted: at least those a task that is
  // not running shows (a running task's stack also holds frames of its thread).
  size_t coroutines_shown = 0;
  const Json every_task = Json::parse(PyTasks(core.target(), {"--json", "--all"}).text);
  for (const Json& task : every_task.at("tasks")) {
    if (!task.at("running").get<bool>()) coroutines_shown += task.at("coroutine_stack").size();
  }
  const Json& links = stats_json.at("work").at("coroutine_links_followed");
  EXPECT_GT(coroutines_shown, 0u);
  EXPECT_GE(links.at("spent").get<uint64_t>(), coroutines_shown) << links.dump();
  // --outfile: the same output in a file, and one line that says so.
  const std::string outfile = (testing::TestTempDir() / ("py-tasks-" + version + ".out")).string();
  for (const std::vector<std::string>& view :
       {std::vector<std::string>{"--json"}, {"--summary"}, {"--tree", "--all"}}) {
    std::vector<std::string> args = view;
    args.insert(args.end(), {"--outfile", outfile});
    const CommandOutput said = PyTasks(core.target(), args);
    const std::string printed = PyTasks(core.target(), view).text;
    std::ifstream in(outfile, std::ios::binary);
    const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(written, printed) << view[0];
    EXPECT_EQ(said.text, "py-tasks: output written to " + outfile + " (" +
                             std::to_string(printed.size()) + " bytes)\n");
  }
  const CommandOutput unwritable = PyTasks(core.target(), {"--outfile", "/nonexistent/dir/tasks"});
  EXPECT_TRUE(unwritable.failed);
  EXPECT_EQ(unwritable.text,
            "pyunwind: py-tasks: cannot write /nonexistent/dir/tasks: No such file or directory\n");
  EXPECT_EQ(PyTasks(core.target(), {"--outfile"}).text,
            "pyunwind: py-tasks: --outfile needs a file name\n");
  const CommandOutput bad = PyTasks(core.target(), {"--state", "sleeping"});
  EXPECT_TRUE(bad.failed);
  EXPECT_EQ(bad.text, "pyunwind: py-tasks: --state wants pending, running, done or all, not 'sleeping'\n");
}

// The await graph as a tree, on one case (3.11.2): roots are the tasks nobody
// awaits; a task reached twice (gatherer: Task-1's TaskGroup and
// awaits-gatherer's await) is printed in full once, then "(shown above)";
// identical siblings (fetcher-1 and -2, child-a and -b: same stacks and lines)
// are drawn once with a count and the others' names.
TEST(AsyncioCoreTree, Python311) {
  const fs::path dir = SharedFixtures() / "cores" / "3.11.2" / "asyncio_tree";
  if (SharedFixtures().empty() || !fs::exists(dir / "core.xz"))
    GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile, "cores/3.11.2/asyncio_tree/core.xz");
  OpenedCore core(dir, "asyncio_tree_3_11_2");
  ASSERT_EQ(core.error(), "");
  const CommandOutput tree = PyTasks(core.target(), {"--tree"});
  ASSERT_FALSE(tree.failed) << tree.text;
  std::vector<std::string> lines;
  std::string line;
  for (char c : tree.text) {
    if (c == '\n') {
      // Addresses differ per core: keep the text around them.
      const size_t open = line.find(" [0x");
      if (open != std::string::npos) line.erase(open, line.find(']', open) - open + 1);
      lines.push_back(line);
      line.clear();
    } else {
      line += c;
    }
  }
  const std::vector<std::string> want = {
      "(T) Task-1",
      "│   main /opt/fixtures/scenarios/asyncio_tree.py:115",
      "│   TaskGroup.__aexit__ /usr/lib/python3.11/asyncio/taskgroups.py:98",
      "├── (T) fetcher-1 via taskgroup, and 1 identical sibling: fetcher-2",
      "│       fetch /opt/fixtures/scenarios/asyncio_tree.py:37",
      "│       middle /opt/fixtures/scenarios/asyncio_tree.py:33",
      "│       leaf_sleep /opt/fixtures/scenarios/asyncio_tree.py:29",
      "│       sleep /usr/lib/python3.11/asyncio/tasks.py:639",
      "├── (T) gatherer via taskgroup",
      "│   │   gather_children /opt/fixtures/scenarios/asyncio_tree.py:47",
      "│   └── (T) child-a via gather, and 1 identical sibling: child-b",
      "│           child /opt/fixtures/scenarios/asyncio_tree.py:41",
      "│           Event.wait /usr/lib/python3.11/asyncio/locks.py:213",
      "├── (T) awaits-gatherer via taskgroup",
      "│   │   await_task /opt/fixtures/scenarios/asyncio_tree.py:51",
      "│   └── (T) gatherer via await (shown above)",
      "├── (T) consumer via taskgroup",
      "│       consume /opt/fixtures/scenarios/asyncio_tree.py:55",
      "│       Queue.get /usr/lib/python3.11/asyncio/queues.py:158",
      "├── (T) Task-7 via taskgroup",
      "│       hang /opt/fixtures/scenarios/asyncio_tree.py:59",
      "└── (T) recorder via taskgroup (running)",
      "        record_tasks /opt/fixtures/scenarios/asyncio_tree.py:102",
      "        park_forever /opt/fixtures/scenarios/_truth.py:41",  // the call blocking the loop
  };
  EXPECT_EQ(lines, want) << tree.text;
}

// A program that never imported asyncio.
TEST(AsyncioCoreNoAsyncio, ThreadsScenario) {
  const fs::path dir = SharedFixtures() / "cores" / "3.11.2" / "threads";
  if (SharedFixtures().empty() || !fs::exists(dir / "core.xz"))
    GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile, "cores/3.11.2/threads/core.xz");
  OpenedCore core(dir, "threads_3_11_2");
  ASSERT_EQ(core.error(), "");
  const CommandOutput table = PyTasks(core.target(), {});
  ASSERT_FALSE(table.failed) << table.text;
  EXPECT_EQ(table.text, "no asyncio tasks\n");
  const Json json = Json::parse(PyTasks(core.target(), {"--json"}).text);
  EXPECT_FALSE(json.at("asyncio_imported").get<bool>());
  EXPECT_TRUE(json.at("tasks").empty());
}

}  // namespace
}  // namespace pyunwind
