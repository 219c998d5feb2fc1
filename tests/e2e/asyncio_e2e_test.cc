// asyncio, end to end in LLDB and GDB: the asyncio_tree scenario live on Debian's
// /usr/bin/python3.11 and pyenv's 3.11.7, and every asyncio_tree fixture core
// (<shared>/fixtures/cores/VERSION/asyncio_tree, read without an executable); and
// Debian's debug build /usr/bin/python3.11d, live and from a gcore core of it.
//
// For each case, in each debugger:
//   * `py-tasks --json` matches the truth: the same task names (each once), every task's
//     coroutine stack (filename, line, name, qualname, innermost first), every awaited_by
//     edge with its kind ("taskgroup", "gather", "await") and an id that is the awaiter's,
//     every task pending on the loop thread, `running_tasks` = [truth's running_task].
//   * `py-tasks --running` prints the running task's async call chain: its coroutine stack,
//     then each awaiting task's, up to a task nobody awaits (exact text, built from the truth
//     and the ids of the JSON run).
//   * `py-bt --all` names the running task on the loop thread's header line.
// `py-tasks --tree` is checked as exact text on the 3.11.2 fixture core, in both debuggers.
//
// 3.14 and 3.15 cores carry remote_debugging.json: what CPython's own
// _remote_debugging.RemoteUnwinder returned for the same live process. Where it differs
// from pyunwind, and why (observed on those files; not asserted, since it is CPython's
// output, not pyunwind's):
//   1. No edge kinds. Its awaiters are bare (coroutine stack, task id) pairs: CPython's
//      task_awaited_by set records who awaits, not how (await, gather or TaskGroup);
//      pyunwind tells the kinds apart from the awaiter's fut_waiter, the _GatheringFuture's
//      _children and the TaskGroup done-callback.
//   2. Tasks grouped per thread list (3.14 adds a thread-0 group for the interpreter-wide
//      list); pyunwind reads the same lists and lists tasks, not lists.
//   3. No running task; pyunwind finds it (the task whose coroutine frame is on the loop
//      thread's stack).
//   4. Shorter thread stacks (3.14.7): get_stack_trace stops each thread's stack at the
//      first place where C code called back into Python. The truth (sys._current_frames(),
//      and GDB's own py-bt) has them all, and so does pyunwind.
// What agrees, and is checked against pyunwind's output here (task ids) and in
// tests/asyncio_core_test.cc (names, coroutine stacks, awaiters): the task ids (the task
// objects' addresses: pyunwind's "id" is the same number), names, coroutine stacks and the
// set of awaiters of each task.
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_sources.h"
#include "tests/e2e/tasks_truth.h"
#include "tests/tasks_facts.h"

namespace pyunwind_e2e {
namespace {

std::string Hex(uint64_t value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

class AsyncioE2e : public SourceTest {};

// The exact text `py-tasks --running` prints for the truth's running task: its coroutine
// stack, then that of each task awaiting it (py-tasks follows the first awaited_by edge).
std::string ExpectedRunning(const json& truth, const json& got) {
  std::map<std::string, json> truth_by_name, got_by_name;
  for (const json& t : truth.at("tasks")) truth_by_name[t.at("name").get<std::string>()] = t;
  for (const json& t : got.at("tasks")) got_by_name[t.at("name").get<std::string>()] = t;
  std::string name = truth.at("running_task");
  std::string out = "Thread " + std::to_string(LoopThread(truth)) + " is running task " + name +
                    " [" + got_by_name[name].value("id", "?") + "]:\n";
  std::set<std::string> seen;
  while (seen.insert(name).second) {
    for (const json& f : pyunwind::testing::TaskStackOfTruth(truth, truth_by_name[name])) {
      out += "  " + f.at("qualname").get<std::string>() + " " + f.at("filename").get<std::string>() +
             ":" + std::to_string(f.at("line").get<int>()) + "\n";
    }
    const json& edges = got_by_name[name].at("awaited_by");
    if (edges.empty()) break;
    name = edges.at(0).at("name");
    out += "awaited by task " + name + " [" + edges.at(0).at("id").get<std::string>() + "] (" +
           edges.at(0).at("kind").get<std::string>() + "):\n";
  }
  return out;
}

TEST_P(AsyncioE2e, PyTasksMatchesTruth) {
  const SourceCase& c = GetParam();
  const json& truth = this->truth();
  std::string error;

  // py-tasks --json against the truth; --outfile writes the same document to a file.
  const std::string outfile =
      TempDir() + "/py-tasks-" + SourceCaseName(::testing::TestParamInfo<SourceCase>(c, 0)) + ".json";
  RunResult r = RunDebugger(c.debugger, install(), target(),
                            {"py-tasks --json", "py-tasks --json --outfile " + outfile});
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  auto got = ExtractJson(r.out, &error);
  ASSERT_TRUE(got) << error << "\n" << r.Describe();
  const std::string written = ReadFile(outfile);
  EXPECT_EQ(json::parse(written, nullptr, false), *got) << written;
  const std::string said =
      "py-tasks: output written to " + outfile + " (" + std::to_string(written.size()) + " bytes)";
  EXPECT_NE(r.out.find(said), std::string::npos) << said << "\n" << r.Describe();
  EXPECT_EQ(got->at("python").at("version"), truth.at("python").at("version"));
  const std::string mismatch = CompareTasks(truth, *got);
  EXPECT_TRUE(mismatch.empty()) << "py-tasks --json differs from the truth:\n"
                                << mismatch << r.Describe();

  // py-tasks --running, and py-bt naming the running task on the loop thread's header.
  RunResult text = RunDebugger(c.debugger, install(), target(), {"py-tasks --running", "py-bt --all"});
  ASSERT_TRUE(text.exited && text.exit_code == 0) << text.Describe();
  const std::string running = ExpectedRunning(truth, *got);
  EXPECT_NE(text.out.find(running), std::string::npos)
      << "py-tasks --running should print:\n" << running << text.Describe();
  const std::string name = truth.at("running_task");
  std::string id;
  for (const json& task : got->at("tasks")) {
    if (task.at("name") == name) id = task.at("id");
  }
  const auto headers =
      LinesContaining(text.out, "Thread " + std::to_string(LoopThread(truth)) + " \"MainThread\" (");
  ASSERT_EQ(headers.size(), 1u) << text.Describe();
  EXPECT_NE(headers[0].find("running task '" + name + "' " + id + "):"), std::string::npos)
      << headers[0];
  EXPECT_EQ(LinesContaining(text.out, "running task '").size(), 1u) << text.Describe();

  // 3.14+: CPython's own module saw the same task objects (see the top of this file).
  if (c.live || !FileExists(c.CoreDir() + "/remote_debugging.json")) return;
  const json remote = json::parse(ReadFile(c.CoreDir() + "/remote_debugging.json"));
  std::map<std::string, std::string> our_id;
  for (const json& task : got->at("tasks")) our_id[task.at("name").get<std::string>()] = task.at("id").get<std::string>();
  size_t compared = 0;
  for (const json& group : remote.at("get_all_awaited_by")) {
    for (const json& task : group.at(1)) {
      EXPECT_EQ(our_id[task.at(1).get<std::string>()], Hex(task.at(0).get<uint64_t>())) << task.at(1);
      ++compared;
    }
  }
  EXPECT_EQ(compared, got->at("tasks").size());
}

INSTANTIATE_TEST_SUITE_P(
    AsyncioTree, AsyncioE2e,
    ::testing::ValuesIn(SourceCases("asyncio_tree", {"debian_3_11", "pyenv_3_11_7"})),
    SourceCaseName);

// Debian's debug build (python3.11-dbg: Py_DEBUG, no Py_TRACE_REFS), live and from a
// gcore core of it (no executable).
INSTANTIATE_TEST_SUITE_P(AsyncioTreeDebugBuild, AsyncioE2e,
                         ::testing::ValuesIn(LiveAndGcoreCases("asyncio_tree", {"debian_3_11d"})),
                         SourceCaseName);

// py-tasks --tree as text: the 3.11.2 fixture core, whose addresses never change.
class AsyncioTree311 : public ::testing::TestWithParam<Debugger> {};

TEST_P(AsyncioTree311, ExactText) {
  const std::string dir = SharedDir() + "/fixtures/cores/3.11.2/asyncio_tree";
  if (!FileExists(dir + "/core.xz")) GTEST_SKIP() << "no " << dir << "/core.xz";
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const std::string core = TempDir() + "/asyncio_tree_3_11_2_" + DebuggerName(GetParam()) + ".core";
  ASSERT_TRUE(DecompressXz(dir + "/core.xz", core, &error)) << error;
  Target target;
  target.core = core;
  RunResult r = RunDebugger(GetParam(), *install, target, {"py-tasks --tree"});
  unlink(core.c_str());
  ASSERT_TRUE(r.exited && r.exit_code == 0) << r.Describe();
  const std::string want =
      R"TREE(
(T) Task-1 [0x7f9334c12bc0]
│   main /opt/fixtures/scenarios/asyncio_tree.py:115
│   TaskGroup.__aexit__ /usr/lib/python3.11/asyncio/taskgroups.py:98
├── (T) fetcher-1 [0x7f9334c12e00] via taskgroup, and 1 identical sibling: fetcher-2
│       fetch /opt/fixtures/scenarios/asyncio_tree.py:37
│       middle /opt/fixtures/scenarios/asyncio_tree.py:33
│       leaf_sleep /opt/fixtures/scenarios/asyncio_tree.py:29
│       sleep /usr/lib/python3.11/asyncio/tasks.py:639
├── (T) gatherer [0x7f9334c13040] via taskgroup
│   │   gather_children /opt/fixtures/scenarios/asyncio_tree.py:47
│   └── (T) child-a [0x7f9334c13a00] via gather, and 1 identical sibling: child-b
│           child /opt/fixtures/scenarios/asyncio_tree.py:41
│           Event.wait /usr/lib/python3.11/asyncio/locks.py:213
├── (T) awaits-gatherer [0x7f9334c131c0] via taskgroup
│   │   await_task /opt/fixtures/scenarios/asyncio_tree.py:51
│   └── (T) gatherer [0x7f9334c13040] via await (shown above)
├── (T) consumer [0x7f9334c13340] via taskgroup
│       consume /opt/fixtures/scenarios/asyncio_tree.py:55
│       Queue.get /usr/lib/python3.11/asyncio/queues.py:158
├── (T) Task-7 [0x7f9334c134c0] via taskgroup
│       hang /opt/fixtures/scenarios/asyncio_tree.py:59
└── (T) recorder [0x7f9334c13580] via taskgroup (running)
        record_tasks /opt/fixtures/scenarios/asyncio_tree.py:102
)TREE";
  EXPECT_NE(r.out.find(want), std::string::npos) << "want:\n" << want << r.Describe();
  EXPECT_EQ(r.out.find("warning:"), std::string::npos) << r.Describe();
}

INSTANTIATE_TEST_SUITE_P(Debuggers, AsyncioTree311,
                         ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const ::testing::TestParamInfo<Debugger>& info) {
                           return std::string(DebuggerName(info.param));
                         });

}  // namespace
}  // namespace pyunwind_e2e
