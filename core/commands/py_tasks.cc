#include "core/commands/py_tasks.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/base/printable.h"
#include "core/commands/stop_cache.h"
#include "core/walk/threads.h"

namespace pyunwind {
namespace {

const AsyncTask* FindTask(const AsyncSnapshot& s, uint64_t address) {
  for (const AsyncTask& task : s.tasks) {
    if (task.address == address) return &task;
  }
  return nullptr;
}

std::string FrameText(const Frame& frame) {
  return fmt::format("{} {}:{}", PrintableText(frame.qualname), PrintableText(frame.filename),
                     frame.line ? std::to_string(*frame.line) : "?");
}

std::string Warnings(const AsyncSnapshot& s) {
  std::string out;
  for (const std::string& w : s.warnings) out += fmt::format("warning: {}\n", PrintableText(w));
  return out;
}

std::string ThreadOf(const AsyncTask& task) {
  return task.thread_native_id ? std::to_string(*task.thread_native_id) : "?";
}

}  // namespace

std::string FormatTasksTable(const AsyncSnapshot& s) {
  if (s.tasks.empty()) return "no asyncio tasks\n" + Warnings(s);
  std::string out = fmt::format("{:<16} {:<20} {:<8} {:<9} {:<50} {}\n", "task id", "name",
                                "thread", "state", "coroutine stack", "awaited by");
  for (const AsyncTask& task : s.tasks) {
    std::vector<std::string> stack;
    for (const Frame& frame : task.coroutine_stack) stack.push_back(FrameText(frame));
    std::vector<std::string> awaiters;
    for (const TaskEdge& edge : task.awaited_by) {
      const AsyncTask* awaiter = FindTask(s, edge.awaiter);
      awaiters.push_back(fmt::format("{} ({:#x}, {})", awaiter ? PrintableText(awaiter->name) : "?",
                                     edge.awaiter, edge.kind));
    }
    const size_t rows = std::max<size_t>({1, stack.size(), awaiters.size()});
    for (size_t i = 0; i < rows; ++i) {
      const bool first = i == 0;
      out += fmt::format("{:<16} {:<20} {:<8} {:<9} {:<50} {}\n",
                         first ? fmt::format("{:#x}", task.address) : "",
                         first ? PrintableText(task.name) : "", first ? ThreadOf(task) : "",
                         first ? (task.running ? "running" : task.state) : "",
                         i < stack.size() ? stack[i] : "", i < awaiters.size() ? awaiters[i] : "");
    }
  }
  return out + Warnings(s);
}

std::string FormatTasksTree(const AsyncSnapshot& s) {
  if (s.tasks.empty()) return "no asyncio tasks\n" + Warnings(s);
  // Children of a task: the tasks it awaits.
  std::map<uint64_t, std::vector<std::pair<uint64_t, std::string>>> children;
  for (const AsyncTask& task : s.tasks) {
    for (const TaskEdge& edge : task.awaited_by) children[edge.awaiter].push_back({task.address, edge.kind});
  }
  std::string out;
  std::unordered_set<uint64_t> shown;
  std::vector<uint64_t> path;
  std::function<void(uint64_t, const std::string&, const std::string&, bool, size_t)> print =
      [&](uint64_t address, const std::string& prefix, const std::string& kind, bool last,
          size_t depth) {
        const AsyncTask* task = FindTask(s, address);
        const std::string branch = depth == 0 ? "" : (last ? "└── " : "├── ");
        const std::string label = fmt::format("(T) {} [{:#x}]{}{}", task ? PrintableText(task->name) : "?",
                                              address, kind.empty() ? "" : " via " + kind,
                                              task && task->running ? " (running)" : "");
        if (std::find(path.begin(), path.end(), address) != path.end()) {
          out += prefix + branch + label + " (cycle)\n";
          return;
        }
        if (!shown.insert(address).second) {
          out += prefix + branch + label + " (shown above)\n";
          return;
        }
        out += prefix + branch + label + "\n";
        const std::string inner = depth == 0 ? "" : prefix + (last ? "    " : "│   ");
        const auto& kids = children[address];
        if (task) {
          for (auto it = task->coroutine_stack.rbegin(); it != task->coroutine_stack.rend(); ++it) {
            out += inner + (kids.empty() ? "    " : "│   ") + FrameText(*it) + "\n";
          }
        }
        if (depth > 256) return;
        path.push_back(address);
        for (size_t i = 0; i < kids.size(); ++i) {
          print(kids[i].first, inner, kids[i].second, i + 1 == kids.size(), depth + 1);
        }
        path.pop_back();
      };
  for (const AsyncTask& task : s.tasks) {
    if (task.awaited_by.empty()) print(task.address, "", "", true, 0);
  }
  // Tasks only reachable through a cycle.
  for (const AsyncTask& task : s.tasks) {
    if (!shown.count(task.address)) print(task.address, "", "", true, 0);
  }
  return out + Warnings(s);
}

std::string FormatRunningTasks(const AsyncSnapshot& s) {
  std::string out;
  for (const AsyncTask& task : s.tasks) {
    if (!task.running) continue;
    out += fmt::format("Thread {} is running task {} [{:#x}]:\n", ThreadOf(task), PrintableText(task.name),
                       task.address);
    std::unordered_set<uint64_t> seen;
    const AsyncTask* current = &task;
    std::string kind;
    while (current && seen.insert(current->address).second) {
      if (current != &task) {
        out += fmt::format("awaited by task {} [{:#x}] ({}):\n", PrintableText(current->name),
                           current->address, kind);
      }
      for (const Frame& frame : current->coroutine_stack) out += "  " + FrameText(frame) + "\n";
      if (current->awaited_by.empty()) break;
      kind = current->awaited_by.front().kind;
      current = FindTask(s, current->awaited_by.front().awaiter);
    }
  }
  if (out.empty()) out = s.tasks.empty() ? "no asyncio tasks\n" : "no task is running\n";
  return out + Warnings(s);
}

std::string FormatTasksJson(const AsyncSnapshot& s) {
  using Json = nlohmann::ordered_json;
  Json doc;
  doc["python"] = {{"version", s.python.version.ToString()},
                   {"hexversion", s.python.version.hexversion},
                   {"free_threaded", s.python.free_threaded}};
  Json tasks = Json::array();
  Json running = Json::array();
  for (const AsyncTask& task : s.tasks) {
    Json stack = Json::array();
    for (const Frame& frame : task.coroutine_stack) {
      stack.push_back({{"filename", frame.filename},
                       {"line", frame.line ? Json(*frame.line) : Json(nullptr)},
                       {"name", frame.name},
                       {"qualname", frame.qualname}});
    }
    Json awaited_by = Json::array();
    for (const TaskEdge& edge : task.awaited_by) {
      const AsyncTask* awaiter = FindTask(s, edge.awaiter);
      awaited_by.push_back({{"id", fmt::format("{:#x}", edge.awaiter)},
                            {"name", awaiter ? Json(awaiter->name) : Json(nullptr)},
                            {"kind", edge.kind}});
    }
    tasks.push_back({{"id", fmt::format("{:#x}", task.address)},
                     {"name", task.name},
                     {"thread_native_id",
                      task.thread_native_id ? Json(*task.thread_native_id) : Json(nullptr)},
                     {"state", task.state},
                     {"running", task.running},
                     {"coroutine_stack", std::move(stack)},
                     {"awaited_by", std::move(awaited_by)}});
    if (task.running) running.push_back(task.name);
  }
  doc["asyncio_imported"] = s.asyncio_imported;
  doc["tasks"] = std::move(tasks);
  doc["running_tasks"] = std::move(running);
  doc["warnings"] = s.warnings;
  return doc.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

const char kPyTasksHelp[] =
    "Usage: py-tasks [--json] [--tree] [--running]\n"
    "List the asyncio tasks: address, name, thread, coroutine stack (innermost first)\n"
    "and the tasks that await each one.\n"
    "  --tree     the await graph as a tree, rooted at tasks nobody awaits\n"
    "  --running  the task each thread's event loop is running, with its async call chain\n"
    "  --json     one JSON document (see the README)\n";

CommandOutput RunPyTasks(const std::vector<std::string>& args, CommandContext& context) {
  bool json = false, tree = false, running = false;
  for (const std::string& arg : args) {
    if (arg == "--json") {
      json = true;
    } else if (arg == "--tree") {
      tree = true;
    } else if (arg == "--running") {
      running = true;
    } else {
      return Failure(fmt::format("py-tasks: unknown option '{}' (see 'help py-tasks')", arg));
    }
  }
  auto session = CommandSession::Open(context);
  if (!session.ok()) return Failure(session.error().message);
  TargetSession& target = **session;
  auto threads =
      WalkRuntime(target.objects(), target.codes(), target.location().address, WalkOptions{});
  if (!threads.ok()) return Failure(threads.error().message);
  auto tasks = CollectAsyncTasks(target.objects(), target.codes(), *threads);
  if (!tasks.ok()) return Failure(tasks.error().message);
  for (const std::string& warning : target.location().warnings) tasks->warnings.push_back(warning);
  if (json) return {FormatTasksJson(*tasks), false};
  if (running) return {FormatRunningTasks(*tasks), false};
  if (tree) return {FormatTasksTree(*tasks), false};
  return {FormatTasksTable(*tasks), false};
}

}  // namespace pyunwind
