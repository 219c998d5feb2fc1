// What a scenario's truth means for `py-tasks`, for the tests with and without a debugger.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace pyunwind::testing {

// (filename, line, name, qualname) of each frame of a coroutine stack: what two stacks must
// share to be the same.
inline nlohmann::json StackKey(const nlohmann::json& stack) {
  nlohmann::json out = nlohmann::json::array();
  for (const nlohmann::json& f : stack) {
    out.push_back({f.at("filename"), f.at("line"), f.at("name"), f.at("qualname")});
  }
  return out;
}

// The coroutine stack `py-tasks` shows for `task` (one of truth["tasks"]), innermost first. A
// scenario records each task's own coroutines; the running task (truth["running_task"], or
// truth["running_label"] where 3.7's tasks have no names) also owns every frame its loop thread
// runs above its innermost coroutine (the function blocking the loop), as CPython's
// get_async_stack_trace gives them: those come first, from the truth's "loop" thread.
inline nlohmann::json TaskStackOfTruth(const nlohmann::json& truth, const nlohmann::json& task) {
  const nlohmann::json& own = task.at("coroutine_stack");
  const bool running =
      (!truth.value("running_task", nlohmann::json()).is_null() &&
       task.value("name", nlohmann::json()) == truth.at("running_task")) ||
      (truth.contains("running_label") && task.value("label", nlohmann::json()) == truth.at("running_label"));
  if (!running || own.empty()) return own;
  auto same = [](const nlohmann::json& a, const nlohmann::json& b) {
    return a.at("filename") == b.at("filename") && a.at("name") == b.at("name") &&
           a.at("line") == b.at("line");
  };
  for (const nlohmann::json& thread : truth.at("threads")) {
    if (thread.value("role", "") != "loop") continue;
    const nlohmann::json& frames = thread.at("frames");
    nlohmann::json stack = nlohmann::json::array();
    for (const nlohmann::json& frame : frames) {
      if (same(frame, own.at(0))) {
        for (const nlohmann::json& f : own) stack.push_back(f);
        return stack;
      }
      stack.push_back(frame);
    }
  }
  return own;  // the loop thread does not run it: nothing above it
}

}  // namespace pyunwind::testing
