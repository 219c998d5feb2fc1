#include "core/render/format.h"

#include <fmt/compile.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/base/limits.h"
#include "core/base/prefault.h"
#include "core/base/printable.h"
#include "core/pysource/source_carets.h"
#include "core/render/json_string.h"
#include "core/render/thread_groups.h"
#include "core/render/work_stats.h"

namespace pyunwind {
namespace {

using Json = nlohmann::ordered_json;

// ANSI colours, only when writing to a terminal.
struct Palette {
  const char* file = "";
  const char* line = "";
  const char* name = "";
  const char* header = "";
  const char* reset = "";
};

Palette MakePalette(bool color) {
  if (!color) return {};
  return {"\x1b[35m", "\x1b[33m", "\x1b[36m", "\x1b[1m", "\x1b[0m"};
}

// A target-chosen text in double quotes, cut at 200 characters for a header.
std::string Quoted(const std::string& text) {
  constexpr size_t kMaxShown = 200;
  std::string shown = text.size() > kMaxShown ? text.substr(0, kMaxShown) + "..." : text;
  return "\"" + shown + "\"";
}

std::string ThreadFlags(const Thread& thread) {
  std::vector<std::string> flags;
  if (thread.activity != Activity::kUnknown) flags.push_back(std::string(ActivityName(thread.activity)));
  if (thread.is_main) flags.push_back("main thread");
  if (thread.holds_gil.value_or(false)) flags.push_back("holds the GIL");
  for (const std::string& status : thread.status) {
    if (status == "gc") flags.push_back("collecting garbage");
    if (status == "exception") {
      std::string flag = thread.exception_state == ExceptionState::kRaised ? "raising " : "handling ";
      flag += PrintableText(thread.exception.value_or("?"));
      if (thread.exception_message) flag += ": " + PrintableText(Quoted(*thread.exception_message));
      flags.push_back(std::move(flag));
    }
  }
  if (thread.exception_state == ExceptionState::kUnknown) flags.push_back("exception unknown");
  if (thread.running_task) {
    flags.push_back(fmt::format("running task '{}' {:#x}", PrintableText(thread.running_task->name),
                                thread.running_task->address));
  }
  if (flags.empty()) return "";
  return " (" + fmt::format("{}", fmt::join(flags, ", ")) + ")";
}

// `Thread 1234 "worker-3"`: the threading name, or else the debugger's name
// of the OS thread, marked as such.
std::string ThreadTitle(const Thread& thread) {
  std::string title = thread.native_id ? std::to_string(*thread.native_id)
                                       : fmt::format("(tstate {:#x})", thread.tstate_address);
  if (thread.name) {
    title += " " + PrintableText(Quoted(*thread.name));
  } else if (thread.os_name) {
    title += " [os " + PrintableText(Quoted(*thread.os_name)) + "]";
  }
  return title;
}

Json OptionalText(const std::optional<std::string>& text) {
  return text ? Json(*text) : Json(nullptr);
}

// What a native frame's module is called in text: its file name.
std::string ModuleName(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Compact JSON; invalid UTF-8 from the target is replaced, never thrown, and unsafe
// code points escaped (DumpJson).
std::string Dump(const Json& value) { return DumpJson(value); }

Json LocalsJson(const FrameLocals& frame_locals) {
  Json locals = Json::object();
  for (const LocalVariable& local : frame_locals.shown) {
    Json value = {{"type", local.type.empty() ? Json(nullptr) : Json(local.type)},
                  {"repr", local.repr ? Json(*local.repr) : Json(nullptr)}};
    if (local.error) value["error"] = *local.error;
    locals[local.name] = std::move(value);
  }
  return locals;
}

// A native frame's frame as the debugger gave it (an empty one where none was kept).
const NativeFrame& NativeOf(const Frame& frame) {
  static const NativeFrame kNone;
  return frame.native ? *frame.native : kNone;
}

size_t ShownFrames(const Thread& thread, const FormatOptions& options) {
  if (options.frame_limit == 0) return thread.frames.size();
  return std::min(thread.frames.size(), options.frame_limit);
}

std::string StatsLine(const MemoryStats& s, double elapsed_ms, size_t frames, bool kept) {
  return fmt::format(
      "stats: {} target reads ({} bytes, {} failed), {} cache hits, {} misses, {} frames, "
      "{:.2f} reads per frame, {:.1f} ms{}",
      s.target_reads, s.target_bytes, s.failed_reads, s.cache_hits, s.cache_misses, frames,
      frames ? static_cast<double>(s.target_reads) / frames : 0.0, elapsed_ms,
      kept ? ", reusing what an earlier command read at this stop" : "");
}

// The command's time until now, for the stats.
double ElapsedMs(const FormatOptions& options) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                   options.started).count();
}

size_t CountFrames(const Snapshot& snapshot) {
  size_t frames = 0;
  for (const Interpreter& interp : snapshot.interpreters) {
    for (const Thread& thread : interp.threads) {
      frames += thread.frames.size();
      for (const GreenletStack& greenlet : thread.greenlets) frames += greenlet.stack.frames.size();
    }
  }
  return frames;
}

}  // namespace

std::string_view FrameKindName(FrameKind kind) {
  switch (kind) {
    case FrameKind::kPython:
      return "python";
    case FrameKind::kNative:
      return "native";
    case FrameKind::kGc:
      return "gc";
  }
  return "python";
}

std::string_view ActivityName(Activity activity) {
  switch (activity) {
    case Activity::kIdle:
      return "idle";
    case Activity::kRunning:
      return "running";
    case Activity::kWaitingForGil:
      return "waiting for the GIL";
    case Activity::kUnknown:
      return "unknown";
  }
  return "unknown";
}

std::string_view ExceptionStateName(ExceptionState state) {
  switch (state) {
    case ExceptionState::kNone:
      return "none";
    case ExceptionState::kRaised:
      return "raised";
    case ExceptionState::kHandled:
      return "handled";
    case ExceptionState::kUnknown:
      return "unknown";
  }
  return "unknown";
}

// '  File "FILE", line N, in QUALNAME' and its line end, in the palette's colours.
// Appended piece by piece: it is most of a deep stack's text.
void AppendFrameLine(std::string& out, const Frame& frame, const Palette& p) {
  out += "  File \"";
  out += p.file;
  AppendPrintable(out, frame.filename());
  out += p.reset;
  out += "\", line ";
  out += p.line;
  if (frame.line) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), *frame.line);
  } else {
    out += '?';
  }
  out += p.reset;
  out += ", in ";
  out += p.name;
  AppendPrintable(out, frame.qualname());
  out += p.reset;
  out += '\n';
}

std::string FrameHeader(const Frame& frame, size_t index) {
  return fmt::format("#{} File \"{}\", line {}, in {}\n", index, PrintableText(frame.filename()),
                     frame.line ? std::to_string(*frame.line) : "?", PrintableText(frame.qualname()));
}

std::string LocalsText(const FrameLocals& locals, const std::string& indent) {
  std::string out;
  if (locals.error) {
    out += fmt::format("{}(locals not readable: {})\n", indent, PrintableText(*locals.error));
  }
  for (const LocalVariable& local : locals.shown) {
    if (local.repr) {
      out += fmt::format("{}{} = {}\n", indent, PrintableText(local.name), PrintableText(*local.repr));
    } else {
      out += fmt::format("{}{} = <unreadable{}{}: {}>\n", indent, PrintableText(local.name),
                         local.type.empty() ? "" : " ", PrintableText(local.type),
                         PrintableText(local.error.value_or("?")));
    }
  }
  if (locals.not_shown > 0) {
    out += fmt::format("{}... {} more locals not shown (the first {} are)...truncated\n", indent,
                       locals.not_shown, kMaxLocalsPerFrame);
  }
  return out;
}

std::string FormatLocalsJson(const Frame& frame, size_t index) {
  Json doc = {{"frame", {{"index", index},
                         {"filename", frame.filename()},
                         {"line", frame.line ? Json(*frame.line) : Json(nullptr)},
                         {"name", frame.name()},
                         {"qualname", frame.qualname()}}},
              {"locals", frame.locals ? LocalsJson(*frame.locals) : Json::object()}};
  if (frame.locals && frame.locals->error) doc["locals_error"] = *frame.locals->error;
  if (frame.locals && frame.locals->not_shown > 0) doc["locals_not_shown"] = frame.locals->not_shown;
  return Dump(doc) + "\n";
}

// A Python frame's lines in a text traceback (AppendFrameLine, then its source and caret
// lines), each distinct frame drawn once: a deep recursion repeats a few frames thousands of
// times, and tokenizing the source for the carets was half the time of py-bt --all on 3,069
// frames. A frame is told by its code object's names, its position and its source text.
namespace {

class FrameLinesDrawn {
 public:
  FrameLinesDrawn(const Palette& palette, TracebackCaretRules rules)
      : palette_(palette), rules_(rules) {}

  const std::string& Lines(const Frame& frame) {
    const SourcePosition position{frame.line, frame.end_line, frame.column, frame.end_column};
    // Frames at the same lines share one SourceText (AddSourceLines).
    auto [it, added] =
        drawn_.try_emplace({frame.code_names, frame.source, position});
    if (added) {
      std::string& text = it->second;
      AppendFrameLine(text, frame, palette_);
      if (frame.source) {
        std::vector<std::string> lines = {frame.source->line};
        lines.insert(lines.end(), frame.source->span_lines.begin(),
                     frame.source->span_lines.end());
        for (const std::string& line : TracebackSourceLines(lines, position, rules_)) {
          text += "    ";
          AppendPrintable(text, line);
          text += '\n';
        }
      }
    }
    return it->second;
  }

 private:
  const Palette& palette_;
  const TracebackCaretRules rules_;
  std::map<std::tuple<const CodeNames*, const SourceText*, SourcePosition>, std::string> drawn_;
};

// About the size of a stack's text or JSON, for one allocation up front: a deep stack's
// output is hundreds of kilobytes, and a string grown by doubling touches about
// twice that in fresh pages, which cost a debugger more than the text
// (bench/README.md). `per_frame`: the fixed part of one frame; `source_copies`:
// how many times a frame's source line appears (text: the line and its carets).
// Locals are left out; their text grows the string as before. Never more than `budget` lets
// the output be: a hostile stack's estimate is over a gigabyte (131,072 frames of 4,096-character
// names), reserved and faulted in for output the budget then cuts at a few MB.
size_t EstimatedSize(const Snapshot& snapshot, size_t per_frame, size_t source_copies,
                     const OutputBudget* budget) {
  constexpr size_t kPerThread = 256;  // title and flags, or the thread's JSON object
  constexpr size_t kTail = 64 << 10;  // warnings and stats, past the budget's cut
  const uint64_t most = budget == nullptr ? UINT64_MAX : budget->limit().bytes + kTail;
  uint64_t size = 1024;
  for (const Interpreter& interp : snapshot.interpreters) {
    for (const Thread& thread : interp.threads) {
      size += kPerThread;
      for (const Frame& frame : thread.frames) {
        size += per_frame + frame.filename().size() + frame.name().size() + frame.qualname().size();
        if (frame.native) size += frame.native->function.size() + frame.native->module.size();
        if (frame.source) size += source_copies * (frame.source->line.size() + 8);
        if (frame.calling) size += frame.calling->size() + 8;
      }
      if (size >= most) return static_cast<size_t>(most);
    }
  }
  return static_cast<size_t>(size);
}

}  // namespace

struct TracebackText::Parts {
  Parts(const FormatOptions& options, TracebackCaretRules rules, size_t interpreters,
        OutputWriter write, bool pieces_at_thread_end)
      : options(options),
        palette(MakePalette(options.color)),
        drawn(palette, rules),
        several_interpreters(interpreters > 1),
        write(std::move(write)),
        thread_end_piece_bytes(pieces_at_thread_end ? kThreadEndPieceBytes : kOutputPieceBytes) {}

  // Hands the text made so far to `write` once it holds `at_least` bytes.
  void HandOver(size_t at_least) {
    if (write && !out.empty() && out.size() >= at_least) {
      Counted();
      write(out);
      out.clear();
      counted = 0;
    }
  }

  // Counts what `out` gained since it was last counted against the output budget.
  void Counted() {
    if (options.output == nullptr) return;
    options.output->Count(std::string_view(out).substr(counted));
    counted = out.size();
  }

  // What --locals shows under `frame`: read now (FormatOptions::locals), or as the walk left it.
  std::shared_ptr<const FrameLocals> LocalsOf(const Frame& frame) const {
    if (!options.locals) return frame.locals;
    return interp != nullptr ? options.locals(*interp, frame) : nullptr;
  }

  // Appends `text` if the output budget has room for it; else marks the cut once and
  // from then on adds nothing.
  bool Add(std::string_view text) {
    if (cut) return false;
    if (options.output != nullptr) {
      Counted();
      const auto lines = static_cast<uint64_t>(std::count(text.begin(), text.end(), '\n'));
      if (!options.output->Fits(text.size(), lines)) {
        cut = true;
        out += fmt::format("  ...truncated: the output budget of one command ran out ({})\n",
                           options.output->Bound());
        return false;
      }
    }
    out += text;
    return true;
  }

  const FormatOptions options;
  const Palette palette;
  FrameLinesDrawn drawn;
  const bool several_interpreters;
  const OutputWriter write;
  const size_t thread_end_piece_bytes;
  std::string out;
  size_t counted = 0;  // the bytes of `out` counted against options.output
  bool cut = false;    // the output budget ran out: nothing more is added
  bool first_thread = true;
  const Interpreter* interp = nullptr;  // of the threads added now
};

TracebackText::TracebackText(const FormatOptions& options, TracebackCaretRules rules,
                             size_t interpreters, OutputWriter write, size_t expected_size,
                             bool pieces_at_thread_end)
    : parts_(std::make_unique<Parts>(options, rules, interpreters, std::move(write),
                                     pieces_at_thread_end)) {
  if (parts_->write) {
    parts_->out.reserve(kOutputPieceBytes + 4096);  // a frame's lines may pass the piece's end
  } else {
    parts_->out.reserve(expected_size);
    PrefaultForWrite(parts_->out.data(), parts_->out.capacity());
  }
}

TracebackText::~TracebackText() = default;

void TracebackText::AddInterpreter(const Interpreter& interp) {
  Parts& t = *parts_;
  t.interp = &interp;
  if (t.several_interpreters) {
    t.Add(fmt::format("{}Interpreter {}{}\n", t.palette.header, interp.id, t.palette.reset));
  }
}

void TracebackText::AddThread(const Thread& thread) {
  AddStack("Thread " + ThreadTitle(thread) + ThreadFlags(thread), thread);
  // py-bt --greenlets: under their thread, each suspended greenlet's saved stack.
  for (const GreenletStack& greenlet : thread.greenlets) {
    AddStack(fmt::format("Greenlet {:#x} ({}){} suspended in thread {}", greenlet.address,
                         PrintableText(greenlet.type), greenlet.is_main ? ", its main greenlet," : "",
                         ThreadTitle(thread)),
             greenlet.stack);
  }
}

void TracebackText::AddThreadGroup(const std::vector<const Thread*>& threads) {
  if (threads.empty()) return;
  if (threads.size() == 1) {
    AddThread(*threads.front());
    return;
  }
  std::string title = fmt::format("{} threads with this stack: ", threads.size());
  const size_t named = std::min(threads.size(), kGroupThreadsNamed);
  for (size_t i = 0; i < named; ++i) {
    if (i) title += ", ";
    title += ThreadTitle(*threads[i]);
  }
  if (named < threads.size()) title += fmt::format(" and {} more", threads.size() - named);
  AddStack(title, *threads.front());
}

void TracebackText::AddStack(const std::string& title, const Thread& thread) {
  Parts& t = *parts_;
  if (t.cut) return;
  const Palette& p = t.palette;
  std::string& out = t.out;
  if (!t.Add(fmt::format("{}{}{}{}:\n", t.first_thread ? "" : "\n", p.header, title, p.reset))) {
    return;
  }
  t.first_thread = false;
  if (thread.frames.empty() && !thread.truncated) {
    out += "  (no Python frames)\n";
    return;
  }
  out += "Traceback (most recent call first):\n";
  const size_t shown = ShownFrames(thread, t.options);
  for (size_t i = 0; i < shown; ++i) {
    t.HandOver(kOutputPieceBytes);
    const Frame& frame = thread.frames[i];
    if (frame.kind == FrameKind::kGc) {
      out += "  <GC>\n";
      continue;
    }
    if (frame.kind == FrameKind::kNative) {
      const NativeFrame& native = NativeOf(frame);
      if (!t.Add(fmt::format("  #{} {:#018x} in {}{}{}{}\n", frame.native_index, native.pc, p.name,
                             native.function.empty() ? "??" : PrintableText(native.function), p.reset,
                             native.module.empty() ? "" : " (" + PrintableText(ModuleName(native.module)) + ")"))) {
        break;
      }
      continue;
    }
    if (!t.Add(t.drawn.Lines(frame))) break;
    // Under the frame, as GDB's libpython py-bt shows the C call it is in.
    if (frame.calling && !t.Add("    " + PrintableText(*frame.calling) + "\n")) break;
    // Read only once the frame's own lines fit: past the budget, no more locals are read.
    const std::shared_ptr<const FrameLocals> locals = t.LocalsOf(frame);
    if (locals && !t.Add(LocalsText(*locals, "    "))) break;
  }
  if (t.cut) {
    t.HandOver(t.thread_end_piece_bytes);
    return;
  }
  if (shown < thread.frames.size()) {
    out += fmt::format("  ...truncated: {} more frames (--limit {})\n",
                       thread.frames.size() - shown, t.options.frame_limit);
  }
  if (thread.error) out += fmt::format("  ...truncated: {}\n", PrintableText(*thread.error));
  t.HandOver(t.thread_end_piece_bytes);
}

std::string TracebackText::Finish(const Snapshot& snapshot) {
  Parts& t = *parts_;
  std::string& out = t.out;
  if (t.first_thread) out += "No Python threads.\n";
  if (t.options.verbose) {
    out += fmt::format("Python {}{}\n", snapshot.python.version.ToString(),
                       snapshot.python.free_threaded ? " (free-threaded)" : "");
  }
  for (const std::string& warning : snapshot.warnings) {
    out += fmt::format("warning: {}\n", PrintableText(warning));
  }
  if (t.cut) out += fmt::format("warning: {}\n", t.options.output->Reason());
  t.Counted();
  if (t.options.stats) {
    out += StatsLine(*t.options.stats, ElapsedMs(t.options), CountFrames(snapshot),
                     t.options.session_kept) + "\n";
    if (t.options.work) out += WorkStatsText(*t.options.work) + "\n";
  }
  return std::move(out);
}

std::string FormatText(const Snapshot& snapshot, const FormatOptions& options,
                       const OutputWriter& write) {
  // '  File "", line N, in ' and colours; the source line and a line of carets.
  TracebackText text(options, snapshot.python.caret_rules, snapshot.interpreters.size(), write,
                     write ? 0 : EstimatedSize(snapshot, 48, 2, options.output),
                     /*pieces_at_thread_end=*/false);
  for (const Interpreter& interp : snapshot.interpreters) {
    text.AddInterpreter(interp);
    if (!options.group_threads) {
      for (const Thread& thread : interp.threads) text.AddThread(thread);
      continue;
    }
    for (const ThreadGroup& group : GroupThreadsByStack(interp.threads)) {
      std::vector<const Thread*> threads;
      for (size_t i : group.threads) threads.push_back(&interp.threads[i]);
      text.AddThreadGroup(threads);
    }
  }
  return text.Finish(snapshot);
}

namespace {

// One Python frame's JSON object, written as text: py-bt --all --json writes thousands of
// them, and building each as a JSON value first cost three times the text output. The keys
// and their order are those of docs/json-output.md.
void AppendPythonFrameJson(std::string& out, const Frame& frame, const FrameLocals* locals,
                           bool with_source) {
  auto number = [&out](const std::optional<int>& value) {
    if (value) {
      fmt::format_to(std::back_inserter(out), "{}", *value);
    } else {
      out += "null";
    }
  };
  auto text = [&out](const std::optional<std::string>& value) {
    if (value) {
      AppendJsonString(out, *value);
    } else {
      out += "null";
    }
  };
  out += "{\"filename\":";
  AppendJsonString(out, frame.filename());
  out += ",\"line\":";
  number(frame.line);
  out += ",\"name\":";
  AppendJsonString(out, frame.name());
  out += ",\"qualname\":";
  AppendJsonString(out, frame.qualname());
  out += ",\"kind\":";
  AppendJsonString(out, FrameKindName(frame.kind));
  out += ",\"end_line\":";
  number(frame.end_line);
  out += ",\"column\":";
  number(frame.column);
  out += ",\"end_column\":";
  number(frame.end_column);
  out += ",\"calling\":";
  text(frame.calling ? std::optional<std::string>(*frame.calling) : std::nullopt);
  if (with_source) {
    out += ",\"source\":";
    text(frame.source ? std::optional<std::string>(StripPythonWhitespace(frame.source->line))
                           : std::nullopt);
  }
  if (locals) out += ",\"locals\":" + Dump(LocalsJson(*locals));
  if (locals && locals->error) {
    out += ",\"locals_error\":";
    AppendJsonString(out, *locals->error);
  }
  if (locals && locals->not_shown > 0) {
    fmt::format_to(std::back_inserter(out), ",\"locals_not_shown\":{}", locals->not_shown);
  }
  out += '}';
}

// Whether the output budget has room for a JSON document of out.size() bytes.
bool JsonFits(const std::string& out, const FormatOptions& options) {
  return options.output == nullptr || options.output->Fits(out.size(), 0);
}

// The first `shown` frames of `thread` as JSON objects, separated by commas. False when the
// output budget ran out: the frame that passed it is taken back.
bool AppendFramesJson(std::string& out, const Interpreter& interp, const Thread& thread,
                      size_t shown, const FormatOptions& options) {
  // Each frame written into the document as it is made: one thread of 65,536
  // frames is never a tree, nor a second string.
  for (size_t f = 0; f < shown; ++f) {
    const Frame& frame = thread.frames[f];
    const size_t frame_start = out.size();
    if (f) out += ',';
    if (frame.kind == FrameKind::kGc) {
      out += Dump({{"kind", FrameKindName(frame.kind)}});
    } else if (frame.kind == FrameKind::kNative) {
      const NativeFrame& native = NativeOf(frame);
      out += Dump({{"kind", FrameKindName(frame.kind)},
                   {"index", frame.native_index},
                   {"pc", fmt::format("{:#x}", native.pc)},
                   {"function", native.function.empty() ? Json(nullptr) : Json(native.function)},
                   {"module", native.module.empty() ? Json(nullptr) : Json(native.module)}});
    } else {
      // Read once the frames before fit: past the budget, no more locals are read.
      const std::shared_ptr<const FrameLocals> locals =
          options.locals ? options.locals(interp, frame) : frame.locals;
      AppendPythonFrameJson(out, frame, locals.get(), options.json_source);
    }
    if (!JsonFits(out, options)) {
      out.resize(frame_start);
      return false;
    }
  }
  return true;
}

// `,"key":[...]`, one element per item, each written into `out` by `append_item`, which
// returns false when the output budget ran out inside it. False when the budget ran out: the
// element that passed it is taken back and no more are added; the array stays whole.
template <typename Items, typename AppendItem>
bool AppendBudgetedArrayJson(std::string& out, std::string_view key, const Items& items,
                             const FormatOptions& options, AppendItem append_item) {
  out += fmt::format(",\"{}\":[", key);
  for (const auto& item : items) {
    const size_t start = out.size();
    if (out.back() != '[') out += ',';
    if (!append_item(item) || !JsonFits(out, options)) {
      out.resize(start);
      out += ']';
      return false;
    }
  }
  out += ']';
  return true;
}

// py-bt --group: `,"groups":[...]`, the interpreter's threads with the same stack, each group
// with its count, the indexes of its threads in "threads" and their frames once. False when
// the output budget ran out: the group that passed it is left out.
bool AppendGroupsJson(std::string& out, const Interpreter& interp, const FormatOptions& options) {
  return AppendBudgetedArrayJson(
      out, "groups", GroupThreadsByStack(interp.threads), options, [&](const ThreadGroup& group) {
        const Thread& first = interp.threads[group.threads.front()];
        out += fmt::format("{{\"count\":{},\"thread_indexes\":[{}],\"frames\":[",
                           group.threads.size(), fmt::join(group.threads, ","));
        const bool fits =
            AppendFramesJson(out, interp, first, ShownFrames(first, options), options);
        out += "]}";
        return fits;
      });
}

// py-bt --greenlets: `,"greenlets":[...]`, the thread's suspended greenlets, each with its
// frames. False when the output budget ran out: the greenlet that passed it is left out.
bool AppendGreenletsJson(std::string& out, const Interpreter& interp, const Thread& thread,
                         const FormatOptions& options) {
  return AppendBudgetedArrayJson(
      out, "greenlets", thread.greenlets, options, [&](const GreenletStack& greenlet) {
        const size_t shown = ShownFrames(greenlet.stack, options);
        Json entry = {{"address", fmt::format("{:#x}", greenlet.address)},
                      {"type", greenlet.type},
                      {"is_main", greenlet.is_main}};
        if (greenlet.stack.truncated || shown < greenlet.stack.frames.size()) {
          entry["truncated"] = greenlet.stack.error ? *greenlet.stack.error : "frame limit";
        }
        out += Dump(entry);
        out.pop_back();
        out += ",\"frames\":[";
        const bool fits = AppendFramesJson(out, interp, greenlet.stack, shown, options);
        out += "]}";
        return fits;
      });
}

}  // namespace

std::string FormatJson(const Snapshot& snapshot, const FormatOptions& options) {
  // Written one thread at a time: a document of a few hundred thousand frames never
  // exists as one tree in memory (tests/walk_test.cc, WorkAmplification).
  std::string out = "{\"python\":";
  // The keys and punctuation of a Python frame's object; its source line with --source.
  out.reserve(EstimatedSize(snapshot, 96, options.json_source ? 1 : 0, options.output));
  PrefaultForWrite(out.data(), out.capacity());
  out += Dump({{"version", snapshot.python.version.ToString()},
               {"hexversion", snapshot.python.version.hexversion},
               {"free_threaded", snapshot.python.free_threaded}});
  out += ",\"interpreters\":[";
  // Past the output budget no frame, thread or interpreter is added: the document stays whole,
  // the thread cut says so in "truncated" and the warnings say which bound ran out.
  OutputBudget* budget = options.output;
  bool cut = false;
  for (size_t i = 0; i < snapshot.interpreters.size() && !cut; ++i) {
    const Interpreter& interp = snapshot.interpreters[i];
    out += fmt::format("{}{{\"id\":{},\"threads\":[", i ? "," : "", interp.id);
    for (size_t t = 0; t < interp.threads.size() && !cut; ++t) {
      const Thread& thread = interp.threads[t];
      const size_t shown = ShownFrames(thread, options);
      Json entry = {{"native_id", thread.native_id ? Json(*thread.native_id) : Json(nullptr)},
                    {"python_id", thread.python_id ? Json(*thread.python_id) : Json(nullptr)},
                    {"name", OptionalText(thread.name)},
                    {"os_name", OptionalText(thread.os_name)},
                    {"activity", ActivityName(thread.activity)},
                    {"is_main", thread.is_main},
                    {"holds_gil", thread.holds_gil ? Json(*thread.holds_gil) : Json(nullptr)},
                    {"status", thread.status},
                    {"exception", OptionalText(thread.exception)},
                    {"exception_state", ExceptionStateName(thread.exception_state)},
                    {"exception_message", OptionalText(thread.exception_message)}};
      if (thread.running_task) {
        entry["running_task"] = {{"id", fmt::format("{:#x}", thread.running_task->address)},
                                 {"name", thread.running_task->name}};
      }
      if (thread.truncated || shown < thread.frames.size()) {
        entry["truncated"] = thread.error ? *thread.error : "frame limit";
      }
      const size_t thread_start = out.size();
      if (t) out += ',';
      out += Dump(entry);  // an object: "frames" goes before its closing brace
      out.pop_back();
      out += ",\"frames\":[";
      cut = !AppendFramesJson(out, interp, thread, shown, options);
      if (cut && out.back() == '[' && thread_start > 0 && out[thread_start] == ',') {
        out.resize(thread_start);  // not one frame of this thread fits: the thread is left out
      } else {
        out += ']';
        if (cut && !entry.contains("truncated")) {
          out += ",\"truncated\":";
          AppendJsonString(out, budget->Reason());
        }
        if (!cut && snapshot.greenlets_read) cut = !AppendGreenletsJson(out, interp, thread, options);
        out += '}';
      }
    }
    out += ']';
    if (options.group_threads) {
      // After a cut, "threads" may lack some of them: no group names a thread not there.
      if (cut) {
        out += ",\"groups\":[]";
      } else {
        cut = !AppendGroupsJson(out, interp, options);
      }
    }
    out += '}';
  }
  std::vector<std::string> warnings = snapshot.warnings;
  if (cut) warnings.push_back(budget->Reason());
  out += "],\"warnings\":" + Dump(warnings);
  if (options.stats) {
    const MemoryStats& s = *options.stats;
    out += ",\"stats\":" + Dump({{"target_reads", s.target_reads}, {"target_bytes", s.target_bytes},
                                  {"failed_reads", s.failed_reads}, {"cache_hits", s.cache_hits},
                                  {"cache_misses", s.cache_misses}, {"frames", CountFrames(snapshot)},
                                  {"elapsed_ms", ElapsedMs(options)},
                                  {"session_kept", options.session_kept},
                                  {"work", options.work ? WorkStatsJson(*options.work) : Json(nullptr)}});
  }
  out += "}\n";
  return out;
}

}  // namespace pyunwind
