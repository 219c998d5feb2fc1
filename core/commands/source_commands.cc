#include "core/commands/source_commands.h"

#include <fmt/format.h>

#include "core/base/printable.h"
#include "core/commands/arguments.h"
#include "core/commands/selected_frame.h"
#include "core/objects/values.h"
#include "core/pysource/source_file.h"
#include "core/render/format.h"
#include "core/session/selected_thread.h"
#include "core/walk/locals.h"

namespace pyunwind {

const char kPyLocalsHelp[] =
    "Usage: py-locals [--frame N] [--json]\n"
    "Print the arguments and locals of the selected Python frame (frame 0 of the selected\n"
    "thread unless py-up / py-down / py-frame selected another), with short reprs of\n"
    "None, bool, int, float, str, bytes, tuple, list, dict, set and frozenset, and\n"
    "<TypeName object at 0x...> for other objects. Nothing runs in the target. Reprs are\n"
    "cut at 200 characters, 50 items and a nesting depth of 3.\n"
    "  --frame N  Python frame N of the selected thread (0 = innermost, as py-bt)\n"
    "  --json     one JSON document: the frame and its locals\n";

const char kPyListHelp[] =
    "Usage: py-list [--frame N] [START | START,END]\n"
    "List the source around the current line of the selected Python frame (5 lines\n"
    "before and after, the current line marked with '>'), read from the file on this\n"
    "machine; START lists START to START+10 (as CPython's py-list), START,END that range.\n"
    "  --frame N  Python frame N of the selected thread (0 = innermost, as py-bt)\n";

Result<std::string> ListSource(const std::string& path, int start, int end, int current) {
  PYU_ASSIGN_OR_RETURN(SourceLines source, ReadSourceLines(path, start, end));
  std::string out;
  int number = source.first;
  for (const std::string& line : source.lines) {
    const std::string label = (number == current ? ">" : "") + std::to_string(number);
    out += fmt::format("{:>4}    {}\n", label, PrintableText(line));
    ++number;
  }
  return out;
}

CommandOutput RunPyLocals(const std::vector<std::string>& args, CommandContext& context) {
  std::optional<size_t> frame_option;
  bool json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--json") {
      json = true;
    } else if (args[i] == "--frame" && i + 1 < args.size()) {
      auto n = ParseUnsigned(args[++i], kMaxFramesPerThread);
      if (!n) return Failure(fmt::format("py-locals: '{}' is not a frame number", args[i]));
      frame_option = *n;
    } else {
      return Failure(fmt::format("py-locals: unknown argument '{}' (see 'help py-locals')", args[i]));
    }
  }
  return WithSelectedFrame("py-locals", context, frame_option, [&](Selection selected) {
    Frame frame = *selected.frame;
    ValueFormatter values(*selected.objects);
    values.UseBuiltinsOf(selected.interp);
    frame.locals = std::make_shared<const FrameLocals>(
        ReadFrameLocals(*selected.objects, values, frame.frame_address, frame.code_address));
    if (json) return CommandOutput{FormatLocalsJson(frame, selected.index), false};
    std::string out = FrameHeader(frame, selected.index);
    if (!frame.locals->error && frame.locals->shown.empty()) out += "  (no locals)\n";
    out += LocalsText(frame, "  ");
    return CommandOutput{out, false};
  });
}

CommandOutput RunPyList(const std::vector<std::string>& args, CommandContext& context) {
  std::optional<size_t> frame_option;
  std::optional<uint64_t> start, end;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--frame" && i + 1 < args.size()) {
      auto n = ParseUnsigned(args[++i], kMaxFramesPerThread);
      if (!n) return Failure(fmt::format("py-list: '{}' is not a frame number", args[i]));
      frame_option = *n;
    } else if (!start) {
      const std::string& range = args[i];
      const size_t comma = range.find(',');
      start = ParseUnsigned(range.substr(0, comma), kMaxWordNumber);
      if (comma != std::string::npos) {
        end = ParseUnsigned(range.substr(comma + 1), kMaxWordNumber);
      } else if (start) {
        end = *start + 10;
      }
      if (!start || !end) {
        return Failure(fmt::format("py-list: '{}' is not START or START,END (see 'help py-list')", range));
      }
    } else {
      return Failure(fmt::format("py-list: unexpected argument '{}' (see 'help py-list')", args[i]));
    }
  }
  return WithSelectedFrame("py-list", context, frame_option, [&](Selection selected) {
    const Frame& frame = *selected.frame;
    const int current = frame.line.value_or(0);
    if (!start && !frame.line) {
      return Failure(fmt::format("py-list: frame {} ({}) has no line number", selected.index,
                                 frame.qualname()));
    }
    const int first = start ? static_cast<int>(*start) : current - 5;
    const int last = start ? static_cast<int>(*end) : current + 5;
    auto listing = ListSource(frame.filename(), first, last, current);
    // The qualified name and the path (also inside the error) are the target's choice.
    if (!listing.ok()) {
      return CommandOutput{
          fmt::format("The source of frame {} ({}, line {}) is not on this machine: {}\n",
                      selected.index, PrintableText(frame.qualname()),
                      frame.line ? std::to_string(current) : "?",
                      PrintableText(listing.error().message)),
          false};
    }
    if (listing->empty()) {
      return CommandOutput{fmt::format("'{}' has no lines {} to {}\n",
                                       PrintableText(frame.filename()), std::max(first, 1), last),
                           false};
    }
    return CommandOutput{*listing, false};
  });
}

}  // namespace pyunwind
