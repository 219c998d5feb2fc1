// py-tasks --json, written straight into one string: a document of a million
// tasks is never built as a tree of JSON values. Each code object's names are
// encoded once.
#include <fmt/compile.h>
#include <fmt/format.h>

#include <iterator>
#include <string>
#include <unordered_map>

#include "core/base/prefault.h"
#include "core/render/json_string.h"
#include "core/render/tasks_format.h"

namespace pyunwind {
namespace {

std::string Quoted(std::string_view text) {
  std::string out;
  AppendJsonString(out, text);
  return out;
}

}  // namespace

std::string FormatTasksJson(const AsyncSnapshot& s, const TaskSelection& sel,
                            const AwaitCycles& cycles,
                            const std::vector<TaskGroupSummary>* groups,
                            const std::function<std::string()>& stats,
                            const OutputWriter& write) {
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
  out.reserve(write ? kOutputPieceBytes + 4096 : sel.tasks.size() * 300);
  PrefaultForWrite(out.data(), out.capacity());
  out += "\"tasks\":[";
  auto to = std::back_inserter(out);
  // Per-task formats are compiled (FMT_COMPILE): parsed once at build time, not for each of
  // a million tasks.
  for (size_t t = 0; t < sel.tasks.size(); ++t) {
    const AsyncTask& task = *sel.tasks[t];
    fmt::format_to(to, FMT_COMPILE("{}{{\"id\":\"{:#x}\",\"name\":"), t ? "," : "", task.address);
    AppendJsonString(out, task.name);
    out += ",\"thread_native_id\":";
    if (task.thread_native_id) {
      fmt::format_to(to, FMT_COMPILE("{}"), *task.thread_native_id);
    } else {
      out += "null";
    }
    // "loop": added to the documented fields (the task's event loop, as id() gives it).
    fmt::format_to(to, FMT_COMPILE(",\"loop\":\"{:#x}\",\"state\":\"{}\",\"running\":{},\"coroutine_stack\":["),
                   task.loop, TaskStateName(task.state), task.running);
    for (size_t i = 0; i < task.coroutine_stack.size(); ++i) {
      const CoroutineFrame& frame = task.coroutine_stack[i];
      out += i ? ",{" : "{";
      out += names_of(frame.code_address);
      out += ",\"line\":";
      if (frame.line) {
        fmt::format_to(to, FMT_COMPILE("{}}}"), *frame.line);
      } else {
        out += "null}";
      }
    }
    out += ']';
    if (task.coroutines_cut) {
      // Added to the documented fields: the gap of a chain cut in the middle.
      fmt::format_to(to, ",\"coroutines_not_shown\":{{\"count\":{},\"before_index\":{}}}",
                     task.coroutines_cut, task.cut_at);
    }
    out += ",\"awaited_by\":[";
    for (size_t i = 0; i < task.awaited_by.size(); ++i) {
      const TaskEdge& edge = task.awaited_by[i];
      const AsyncTask* awaiter = s.Find(edge.awaiter);
      fmt::format_to(to, FMT_COMPILE("{}{{\"id\":\"{:#x}\",\"name\":"), i ? "," : "", edge.awaiter);
      if (awaiter) {
        AppendJsonString(out, awaiter->name);
      } else {
        out += "null";
      }
      fmt::format_to(to, FMT_COMPILE(",\"kind\":\"{}\"}}"), edge.kind);
    }
    out += "]}";
    if (write && out.size() >= kOutputPieceBytes) {
      write(out);
      out.clear();
    }
  }
  out += "],\"asyncio_imported\":";
  out += s.asyncio_imported ? "true" : "false";
  out += ",\"running_tasks\":";
  std::vector<std::string> running;
  for (const AsyncTask* task : sel.tasks) {
    if (task->running) running.push_back(task->name);
  }
  AppendJsonStrings(out, running);
  out += ",\"running_loops\":[";  // added: each thread's recorded running loop
  for (size_t i = 0; i < s.running_loops.size(); ++i) {
    fmt::format_to(to, "{}{{\"thread_native_id\":{},\"loop\":\"{:#x}\"}}", i ? "," : "",
                   s.running_loops[i].thread_native_id, s.running_loops[i].loop);
  }
  out += ']';
  out += fmt::format(",\"tasks_read\":{},\"not_shown\":{{\"done\":{},\"filtered\":{},\"limit\":{}}}",
                     sel.read, sel.done_hidden, sel.read - sel.matched - sel.done_hidden,
                     sel.cut_by_limit);
  out += ",\"await_cycles\":[";  // added: each cycle's tasks, each awaiting the next
  for (size_t c = 0; c < cycles.listed.size(); ++c) {
    out += c ? ",[" : "[";
    const AwaitCycle& cycle = cycles.listed[c];
    for (size_t i = 0; i < cycle.tasks.size(); ++i) {
      fmt::format_to(to, FMT_COMPILE("{}{{\"id\":\"{:#x}\",\"name\":"), i ? "," : "",
                     cycle.tasks[i]->address);
      AppendJsonString(out, cycle.tasks[i]->name);
      out += '}';
    }
    out += ']';
  }
  out += ']';
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
      AppendJsonStrings(out, stack);
      out += ",\"names\":";
      AppendJsonStrings(out, names);
      out += '}';
    }
    out += ']';
  }
  out += ",\"warnings\":";
  AppendJsonStrings(out, s.warnings);
  if (stats) out += ",\"stats\":" + stats();
  out += "}\n";  // appended: `out + "}\n"` would copy the whole document
  return out;
}

}  // namespace pyunwind
