#include "core/commands/native.h"

#include <fmt/format.h>

#include <algorithm>

#include "core/base/limits.h"
#include "core/base/printable.h"
#include "core/commands/arguments.h"
#include "core/commands/command_session.h"
#include "core/pysource/source_file.h"
#include "core/render/format.h"
#include "core/session/selected_thread.h"

namespace pyunwind {

namespace {

// `function` or one of GCC's clones of it ("function.cold", "function.part.0").
bool IsFunctionOrClone(std::string_view name, std::string_view function) {
  return name == function || (name.starts_with(function) && name.size() > function.size() &&
                              name[function.size()] == '.');
}

bool IsEvalFrameDefault(std::string_view name) {
  return IsFunctionOrClone(name, "_PyEval_EvalFrameDefault");
}

// 2.7's eval loop. 3.x still has a PyEval_EvalFrameEx, a C API entry that calls
// _PyEval_EvalFrameDefault: it counts only on a stack without the latter.
bool IsPython2EvalLoop(std::string_view name) {
  return IsFunctionOrClone(name, "PyEval_EvalFrameEx");
}

bool IsTailCall(std::string_view name) { return name.starts_with("_TAIL_CALL_"); }

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
  const bool python2_stack = std::none_of(native.begin(), native.end(), [](const NativeFrame& n) {
    return IsEvalLoopFunction(n.function);
  });
  for (size_t i = 0; i < native.size(); ++i) {
    const NativeFrame& n = native[i];
    Frame frame;
    frame.kind = FrameKind::kNative;
    frame.native = std::make_shared<const NativeFrame>(n);
    frame.native_index = static_cast<uint32_t>(i);  // LLDB and GDB number frames in 32 bits
    merged.frames.push_back(std::move(frame));
    // With the tail-calling interpreter (3.14+) the opcode function runs on
    // top of the _PyEval_EvalFrameDefault that started it: one call.
    const bool same_call = inner_was_tail_call && IsEvalFrameDefault(n.function);
    inner_was_tail_call = IsTailCall(n.function);
    const bool eval_loop =
        IsEvalLoopFunction(n.function) || (python2_stack && IsPython2EvalLoop(n.function));
    if (!eval_loop || same_call) continue;
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
  auto source = ReadSourceLines(path, line, line);
  if (!source.ok() || source->lines.empty()) return std::nullopt;
  return source->lines.front();
}

namespace {

struct SelectedStack {
  Thread thread;
  MergedStack merged;
};

// The Python frames of the selected thread, merged with its native frames.
Result<SelectedStack> ReadSelectedStack(CommandContext& context) {
  PYU_ASSIGN_OR_RETURN(CommandSession session, CommandSession::Open(context));
  PYU_ASSIGN_OR_RETURN(Snapshot snapshot, session->Walk(nullptr, context.selected_thread_id));
  PYU_ASSIGN_OR_RETURN(SelectedThread selected,
                       FindSelectedThread(snapshot, context.selected_thread_id));
  SelectedStack stack;
  stack.thread = std::move(*selected.thread);
  stack.merged = MergeNativeFrames(stack.thread.frames,
                                   session->NativeFrames(*context.selected_thread_id));
  return stack;
}

// The frame's summary: its header, its source line and, as py-bt shows it under
// the frame, the C call it is in.
std::string DescribeFrame(const Frame& frame, size_t index) {
  std::string out = FrameHeader(frame, index);
  if (frame.line) {
    if (auto source = SourceLine(frame.filename(), *frame.line)) {
      size_t start = source->find_first_not_of(" \t");
      out += "    " + (start == std::string::npos ? std::string() : PrintableText(source->substr(start))) + "\n";
    }
  }
  if (frame.calling) out += "    " + PrintableText(*frame.calling) + "\n";
  return out;
}

}  // namespace

FramePosition StartingPosition(const std::vector<std::optional<size_t>>& native_of_python,
                               std::optional<size_t> kept, std::optional<size_t> selected_native) {
  const size_t last = native_of_python.size() - 1;
  if (kept) {
    const size_t at = std::min(*kept, last);
    // Kept while the debugger still has its eval-loop frame selected: `up` or
    // `frame N` since then moved away from it.
    if (!selected_native || !native_of_python[at] || *native_of_python[at] == *selected_native) {
      return {at, false};
    }
  }
  if (!selected_native) return {0, false};
  bool any_known = false;
  for (size_t i = 0; i <= last; ++i) {
    if (!native_of_python[i]) continue;
    any_known = true;
    if (*native_of_python[i] >= *selected_native) {
      return {i, *native_of_python[i] > *selected_native};
    }
  }
  // No eval-loop frame at or above the selected one: older than them all, or
  // an unwind without names, where frame 0 is taken to be selected.
  return {any_known ? last : 0, false};
}

namespace {

// py-up, py-down or py-frame (`name`) with its one operand, N.
CommandOutput RunPyFrameSelection(std::string_view name, const ParsedArgs& args,
                                  CommandContext& context) {
  std::optional<size_t> count;
  if (!args.operands().empty()) {
    const std::string& word = args.operands().front();
    count = ParseUnsigned(word, kMaxWordNumber);
    if (!count) {
      return Failure(fmt::format("{}: '{}' is not a frame {}", name, word,
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
  const FramePosition at = StartingPosition(stack->merged.native_of_python,
                                            context.selected_python_frame,
                                            context.selected_native_frame);
  const size_t current = at.frame;
  std::string note;
  size_t target = current;
  if (name == "py-up") {
    // From C code newer than frame `current`, the first step up reaches it.
    const size_t asked = count.value_or(1);
    const size_t step = at.in_newer_native && asked > 0 ? asked - 1 : asked;
    if (current == last && !at.in_newer_native) {
      note = "Oldest Python frame reached.\n";
    } else {
      target = step > last - current ? last : current + step;
    }
  } else if (name == "py-down") {
    const size_t step = count.value_or(1);
    if (current == 0) {
      // Nothing newer: from C code the selection stays where it is.
      if (at.in_newer_native) return {"Newest Python frame reached.\n", false};
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

}  // namespace

CommandOutput RunPyUp(const ParsedArgs& args, CommandContext& context) {
  return RunPyFrameSelection("py-up", args, context);
}

CommandOutput RunPyDown(const ParsedArgs& args, CommandContext& context) {
  return RunPyFrameSelection("py-down", args, context);
}

CommandOutput RunPyFrame(const ParsedArgs& args, CommandContext& context) {
  return RunPyFrameSelection("py-frame", args, context);
}

namespace {

// A target-chosen name as bt shows it: printable, and cut at kMaxNameInNativeFrame characters.
std::string NameInNativeFrame(std::string_view name) {
  if (name.size() <= kMaxNameInNativeFrame) return PrintableText(name);
  size_t end = kMaxNameInNativeFrame;
  while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80) --end;  // whole UTF-8
  return PrintableText(name.substr(0, end)) + "...";
}

}  // namespace

std::map<size_t, std::string> PythonFramesByNativeFrame(CommandContext& context) {
  std::map<size_t, std::string> by_native;
  auto stack = ReadSelectedStack(context);
  if (!stack.ok()) return by_native;
  const std::vector<Frame>& python = stack->thread.frames;
  // 3.11+ runs a whole chain of Python calls in one eval-loop frame: the first few are named
  // and the rest counted, so that one line of bt stays a line.
  std::map<size_t, size_t> named;
  std::map<size_t, size_t> more;
  for (size_t i = 0; i < python.size(); ++i) {
    const std::optional<size_t> native = stack->merged.native_of_python[i];
    if (!native) continue;
    if (named[*native] == kMaxPythonFramesPerNativeFrame) {
      ++more[*native];
      continue;
    }
    ++named[*native];
    std::string& text = by_native[*native];
    const size_t slash = python[i].filename().rfind('/');
    text += fmt::format("{}{} at {}:{}", text.empty() ? "" : ", ",
                        NameInNativeFrame(python[i].qualname()),
                        NameInNativeFrame(slash == std::string::npos
                                              ? std::string_view(python[i].filename())
                                              : std::string_view(python[i].filename()).substr(slash + 1)),
                        python[i].line ? std::to_string(*python[i].line) : "?");
  }
  for (const auto& [native, count] : more) {
    by_native[native] += fmt::format(" and {} more", count);
  }
  return by_native;
}

}  // namespace pyunwind
