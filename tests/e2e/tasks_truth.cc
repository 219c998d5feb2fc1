#include "tests/e2e/tasks_truth.h"

#include <map>
#include <set>
#include <utility>

#include "tests/tasks_facts.h"

namespace pyunwind_e2e {

uint64_t LoopThread(const json& truth) {
  for (const json& thread : truth.at("threads")) {
    if (thread.at("role") == "loop") return thread.at("native_id").get<uint64_t>();
  }
  return 0;
}

std::string CompareTasks(const json& truth, const json& got) {
  std::string report;
  auto note = [&](const std::string& s) { report += "  " + s + "\n"; };
  if (!got.at("warnings").empty()) note("warnings: " + got.at("warnings").dump());
  if (got.at("asyncio_imported") != true) note("asyncio_imported is not true");
  std::map<std::string, json> by_name;
  std::map<std::string, std::string> name_of_id;
  for (const json& task : got.at("tasks")) {
    const std::string name = task.at("name");
    if (!by_name.emplace(name, task).second) note("two tasks named " + name);
    name_of_id[task.at("id").get<std::string>()] = name;
  }
  std::set<std::string> want_names;
  for (const json& t : truth.at("tasks")) want_names.insert(t.at("name").get<std::string>());
  for (const auto& [name, task] : by_name) {
    if (!want_names.count(name)) note("task " + name + " is not in the truth");
  }
  const uint64_t loop = LoopThread(truth);
  for (const json& want : truth.at("tasks")) {
    const std::string name = want.at("name");
    auto found = by_name.find(name);
    if (found == by_name.end()) {
      note("missing task " + name);
      continue;
    }
    const json& task = found->second;
    const json want_stack = pyunwind::testing::TaskStackOfTruth(truth, want);
    if (StackKey(task.at("coroutine_stack")) != StackKey(want_stack)) {
      note("task " + name + ": coroutine stack " + StackKey(task.at("coroutine_stack")).dump() +
           ", truth " + StackKey(want_stack).dump());
    }
    std::set<std::pair<std::string, std::string>> edges, want_edges;
    for (const json& e : task.at("awaited_by")) {
      edges.insert({e.at("name").get<std::string>(), e.at("kind").get<std::string>()});
      auto id = name_of_id.find(e.at("id").get<std::string>());
      if (id == name_of_id.end() || id->second != e.at("name")) {
        note("task " + name + ": edge " + e.dump() + " names no task with that id");
      }
    }
    for (const json& e : want.at("awaited_by")) want_edges.insert({e.at("name").get<std::string>(), e.at("kind").get<std::string>()});
    if (edges != want_edges) {
      note("task " + name + ": awaited_by " + task.at("awaited_by").dump() + ", truth " +
           want.at("awaited_by").dump());
    }
    if (task.at("state") != "pending") note("task " + name + ": state " + task.at("state").dump());
    if (task.at("thread_native_id") != loop) {
      note("task " + name + ": thread " + task.at("thread_native_id").dump() + ", loop thread " +
           std::to_string(loop));
    }
    if (task.at("running") != (name == truth.at("running_task"))) {
      note("task " + name + ": running " + task.at("running").dump());
    }
  }
  if (got.at("running_tasks") != json::array({truth.at("running_task")})) {
    note("running_tasks " + got.at("running_tasks").dump() + ", truth " +
         truth.at("running_task").dump());
  }
  return report;
}

}  // namespace pyunwind_e2e
