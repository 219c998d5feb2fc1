// py-tasks --json, written straight into one string: a document of a million
// tasks is never built as a tree of JSON values. Each code object's names are
// encoded once.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "core/commands/py_tasks.h"

namespace pyunwind {
namespace {

// A JSON string; invalid UTF-8 from the target is replaced, never thrown.
std::string Quoted(std::string_view text) {
  return nlohmann::json(std::string(text)).dump(-1, ' ', false,
                                                nlohmann::json::error_handler_t::replace);
}

void AppendStrings(std::string& out, const std::vector<std::string>& strings) {
  out += '[';
  for (size_t i = 0; i < strings.size(); ++i) out += (i ? "," : "") + Quoted(strings[i]);
  out += ']';
}

}  // namespace

std::string FormatTasksJson(const AsyncSnapshot& s, const TaskSelection& sel,
                            const std::vector<TaskGroupSummary>* groups,
                            const std::string& stats) {
  // "filename":..,"name":..,"qualname":.. of each code object, encoded once.
  std::unordered_map<uint64_t, std::string> frame_names;
  auto names_of = [&](uint64_t code) -> const std::string& {
    auto [it, added] = frame_names.try_emplace(code);
    if (added) {
      auto found = s.codes.find(code);
      const CodeNames unknown{"?", "?", "?"};
      const CodeNames& n = found == s.codes.end() ? unknown : found->second;
      it->second = fmt::format("\"filename\":{},\"name\":{},\"qualname\":{}", Quoted(n.filename),
                               Quoted(n.name), Quoted(n.qualname));
    }
    return it->second;
  };
  std::string out = fmt::format(
      "{{\"python\":{{\"version\":{},\"hexversion\":{},\"free_threaded\":{}}},",
      Quoted(s.python.version.ToString()), s.python.version.hexversion, s.python.free_threaded);
  out.reserve(sel.tasks.size() * 300);
  out += "\"tasks\":[";
  for (size_t t = 0; t < sel.tasks.size(); ++t) {
    const AsyncTask& task = *sel.tasks[t];
    // "loop": added to the documented fields (the task's event loop, as id() gives it).
    out += fmt::format("{}{{\"id\":\"{:#x}\",\"name\":{},\"thread_native_id\":{},\"loop\":\"{:#x}\","
                       "\"state\":\"{}\",\"running\":{},\"coroutine_stack\":[",
                       t ? "," : "", task.address, Quoted(task.name),
                       task.thread_native_id ? std::to_string(*task.thread_native_id) : "null",
                       task.loop, TaskStateName(task.state), task.running);
    for (size_t i = 0; i < task.coroutine_stack.size(); ++i) {
      const CoroutineFrame& frame = task.coroutine_stack[i];
      out += fmt::format("{}{{{},\"line\":{}}}", i ? "," : "", names_of(frame.code_address),
                         frame.line ? std::to_string(*frame.line) : "null");
    }
    out += ']';
    if (task.coroutines_cut) {
      // Added to the documented fields: the gap of a chain cut in the middle.
      out += fmt::format(",\"coroutines_not_shown\":{{\"count\":{},\"before_index\":{}}}",
                         task.coroutines_cut, task.cut_at);
    }
    out += ",\"awaited_by\":[";
    for (size_t i = 0; i < task.awaited_by.size(); ++i) {
      const TaskEdge& edge = task.awaited_by[i];
      const AsyncTask* awaiter = s.Find(edge.awaiter);
      out += fmt::format("{}{{\"id\":\"{:#x}\",\"name\":{},\"kind\":\"{}\"}}", i ? "," : "",
                         edge.awaiter, awaiter ? Quoted(awaiter->name) : "null", edge.kind);
    }
    out += "]}";
  }
  out += "],\"asyncio_imported\":";
  out += s.asyncio_imported ? "true" : "false";
  out += ",\"running_tasks\":";
  std::vector<std::string> running;
  for (const AsyncTask* task : sel.tasks) {
    if (task->running) running.push_back(task->name);
  }
  AppendStrings(out, running);
  out += ",\"running_loops\":[";  // added: each thread's recorded running loop
  for (size_t i = 0; i < s.running_loops.size(); ++i) {
    out += fmt::format("{}{{\"thread_native_id\":{},\"loop\":\"{:#x}\"}}", i ? "," : "",
                       s.running_loops[i].thread_native_id, s.running_loops[i].loop);
  }
  out += ']';
  out += fmt::format(",\"tasks_read\":{},\"not_shown\":{{\"done\":{},\"filtered\":{},\"limit\":{}}}",
                     sel.read, sel.done_hidden, sel.read - sel.matched - sel.done_hidden,
                     sel.cut_by_limit);
  if (groups) {
    out += ",\"summary\":[";
    for (size_t g = 0; g < groups->size(); ++g) {
      const TaskGroupSummary& group = (*groups)[g];
      std::vector<std::string> stack, names;
      for (uint64_t code : group.stack) {
        auto found = s.codes.find(code);
        stack.push_back(found == s.codes.end() ? "?" : found->second.qualname);
      }
      for (const AsyncTask* task : group.examples) names.push_back(task->name);
      out += fmt::format("{}{{\"count\":{},\"state\":\"{}\",\"stack\":", g ? "," : "", group.count,
                         group.state);
      AppendStrings(out, stack);
      out += ",\"names\":";
      AppendStrings(out, names);
      out += '}';
    }
    out += ']';
  }
  out += ",\"warnings\":";
  AppendStrings(out, s.warnings);
  if (!stats.empty()) out += ",\"stats\":" + stats;
  return out + "}\n";
}

}  // namespace pyunwind
