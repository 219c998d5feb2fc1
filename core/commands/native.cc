#include "core/commands/native.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>

#include "core/walk/code_objects.h"
#include "core/target/memory.h"
#include "core/objects/objects.h"
#include "core/runtime/runtime_locator.h"
#include "core/commands/session.h"
#include "core/walk/threads.h"

namespace pyunwind {

namespace {

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool IsEvalFrameDefault(std::string_view name) {
  constexpr std::string_view kName = "_PyEval_EvalFrameDefault";
  return name == kName || (StartsWith(name, kName) && name[kName.size()] == '.');
}

bool IsTailCall(std::string_view name) { return StartsWith(name, "_TAIL_CALL_"); }

CommandOutput Failure(const std::string& message) { return {"pyunwind: " + message + "\n", true}; }

}  // namespace

bool IsEvalLoopFunction(std::string_view name) {
  return IsEvalFrameDefault(name) || IsTailCall(name);
}

MergedStack MergeNativeFrames(const std::vector<Frame>& python,
                              const std::vector<NativeFrame>& native) {
  MergedStack merged;
  merged.native_of_python.assign(python.size(), std::nullopt);
  size_t next_python = 0;
  bool inner_was_tail_call = false;
  for (size_t i = 0; i < native.size(); ++i) {
    const NativeFrame& n = native[i];
    Frame frame;
    frame.kind = "native";
    frame.pc = n.pc;
    frame.function = n.function;
    frame.module = n.module;
    frame.native_index = i;
    merged.frames.push_back(std::move(frame));
    // With the tail-calling interpreter (3.14+) the opcode function runs on
    // top of the _PyEval_EvalFrameDefault that started it: one call.
    const bool same_call = inner_was_tail_call && IsEvalFrameDefault(n.function);
    inner_was_tail_call = IsTailCall(n.function);
    if (!IsEvalLoopFunction(n.function) || same_call) continue;
    while (next_python < python.size()) {
      const Frame& p = python[next_python];
      merged.frames.push_back(p);
      merged.native_of_python[next_python] = i;
      ++next_python;
      if (p.is_entry) break;
    }
  }
  for (; next_python < python.size(); ++next_python) merged.frames.push_back(python[next_python]);
  return merged;
}

std::optional<std::string> SourceLine(const std::string& path, int line) {
  if (path.empty() || line <= 0) return std::nullopt;
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string text;
  for (int i = 1; std::getline(in, text); ++i) {
    if (i == line) {
      if (!text.empty() && text.back() == '\r') text.pop_back();
      return text;
    }
  }
  return std::nullopt;
}

const char kPyUpHelp[] =
    "Usage: py-up [N]\n"
    "Select the Python frame N (default 1) levels older than the selected one in the\n"
    "selected thread, and the native eval-loop frame that runs it. py-list and py-locals\n"
    "then show that frame. The selection is forgotten when the process resumes.\n";
const char kPyDownHelp[] =
    "Usage: py-down [N]\n"
    "Select the Python frame N (default 1) levels newer than the selected one in the\n"
    "selected thread, and the native eval-loop frame that runs it.\n";
const char kPyFrameHelp[] =
    "Usage: py-frame [N]\n"
    "Without N: print the selected Python frame (frame 0, the innermost, until py-up,\n"
    "py-down or py-frame N selects another). With N: select Python frame N of the\n"
    "selected thread (0 = innermost, as py-bt numbers them) and the native eval-loop\n"
    "frame that runs it.\n";

namespace {

struct SelectedStack {
  Thread thread;
  MergedStack merged;
};

// The Python frames of the selected thread, merged with its native frames.
Result<SelectedStack> ReadSelectedStack(CommandContext& context) {
  if (!context.selected_thread_id) return MakeError("no thread is selected");
  PYU_ASSIGN_OR_RETURN(std::unique_ptr<TargetSession> session, TargetSession::Open(context.target));
  auto snapshot = session->Walk();
  if (!snapshot.ok()) return MakeError(snapshot.error().message);
  for (Interpreter& interp : snapshot->interpreters) {
    for (Thread& thread : interp.threads) {
      if (thread.native_id != context.selected_thread_id) continue;
      SelectedStack stack;
      stack.thread = std::move(thread);
      stack.merged = MergeNativeFrames(stack.thread.frames,
                                       context.target.NativeFrames(*context.selected_thread_id));
      return stack;
    }
  }
  return MakeError(fmt::format("the selected thread (OS thread id {}) has no Python thread state",
                               *context.selected_thread_id));
}

std::string DescribeFrame(const Frame& frame, size_t index) {
  std::string out = fmt::format("#{} File \"{}\", line {}, in {}\n", index, frame.filename,
                                frame.line ? std::to_string(*frame.line) : "?", frame.qualname);
  if (frame.line) {
    if (auto source = SourceLine(frame.filename, *frame.line)) {
      size_t start = source->find_first_not_of(" \t");
      out += "    " + (start == std::string::npos ? std::string() : source->substr(start)) + "\n";
    }
  }
  return out;
}

std::optional<size_t> ParseCount(const std::string& text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  char* end = nullptr;
  const unsigned long value = std::strtoul(text.c_str(), &end, 10);
  if (*end != '\0' || text[0] == '-' || text[0] == '+') return std::nullopt;
  return value;
}

}  // namespace

CommandOutput RunPyFrameSelection(std::string_view name, const std::vector<std::string>& args,
                                  CommandContext& context) {
  if (args.size() > 1) return Failure(fmt::format("{}: too many arguments (see 'help {}')", name, name));
  std::optional<size_t> count;
  if (!args.empty()) {
    count = ParseCount(args[0]);
    if (!count) {
      return Failure(fmt::format("{}: '{}' is not a frame {}", name, args[0],
                                 name == "py-frame" ? "number" : "count"));
    }
  }
  auto stack = ReadSelectedStack(context);
  if (!stack.ok()) return Failure(stack.error().message);
  const std::vector<Frame>& frames = stack->thread.frames;
  if (frames.empty()) {
    return Failure(fmt::format("the selected thread (OS thread id {}) has no Python frames",
                               *context.selected_thread_id));
  }
  const size_t last = frames.size() - 1;
  size_t current = std::min(context.selected_python_frame.value_or(0), last);
  std::string note;
  size_t target = current;
  if (name == "py-up") {
    const size_t step = count.value_or(1);
    if (current == last) {
      note = "Oldest Python frame reached.\n";
    } else {
      target = step > last - current ? last : current + step;
    }
  } else if (name == "py-down") {
    const size_t step = count.value_or(1);
    if (current == 0) {
      note = "Newest Python frame reached.\n";
    } else {
      target = step > current ? 0 : current - step;
    }
  } else if (count) {  // py-frame N
    if (*count > last) {
      return Failure(fmt::format("py-frame: no Python frame {}: the selected thread has frames 0 to {}",
                                 *count, last));
    }
    target = *count;
  }
  context.selected_python_frame = target;
  context.select_native_frame = stack->merged.native_of_python[target];
  return {note + DescribeFrame(frames[target], target), false};
}

}  // namespace pyunwind
