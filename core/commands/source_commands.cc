#include "core/commands/source_commands.h"

#include <fmt/format.h>

#include "core/base/printable.h"
#include "core/commands/arguments.h"
#include "core/commands/selected_frame.h"
#include "core/objects/values.h"
#include "core/pysource/source_file.h"
#include "core/pysource/source_policy.h"
#include "core/render/format.h"
#include "core/session/selected_thread.h"
#include "core/walk/locals.h"

namespace pyunwind {

namespace {

std::string Listing(const SourceLines& source, int current) {
  std::string out;
  int number = source.first;
  for (const std::string& line : source.lines) {
    const std::string label = (number == current ? ">" : "") + std::to_string(number);
    out += fmt::format("{:>4}    {}\n", label, PrintableText(line));
    ++number;
  }
  return out;
}

}  // namespace

Result<std::string> ListSource(const std::string& path, int start, int end, int current) {
  PYU_ASSIGN_OR_RETURN(SourceLines source, ReadSourceLines(path, start, end));
  return Listing(source, current);
}

SourceOrigin SourceOriginOf(Target& target, std::vector<std::string> directories) {
  SourceOrigin origin;
  origin.live_pid = target.LocalProcessId();
  if (!origin.live_pid) {
    if (const std::optional<ProcessUser> user = target.CoreUser()) {
      origin.core_user = FileUser{user->uid, {user->gid}};
    }
  }
  origin.directories = std::move(directories);
  return origin;
}

CommandOutput RunPyLocals(const ParsedArgs& args, CommandContext& context) {
  const bool json = args.Has("--json");
  return WithSelectedFrame("py-locals", context, args.Number("--frame"), [&](Selection selected) {
    Frame frame = *selected.frame;
    ValueFormatter values(*selected.objects);
    values.UseBuiltinsOf(selected.interp);
    frame.locals = std::make_shared<const FrameLocals>(
        ReadFrameLocals(*selected.objects, values, frame.frame_address, frame.code_address));
    if (json) return CommandOutput{FormatLocalsJson(frame, selected.index), false};
    std::string out = FrameHeader(frame, selected.index);
    if (!frame.locals->error && frame.locals->shown.empty()) out += "  (no locals)\n";
    out += LocalsText(*frame.locals, "  ");
    return CommandOutput{out, false};
  });
}

CommandOutput RunPyList(const ParsedArgs& args, CommandContext& context) {
  std::optional<uint64_t> start, end;
  if (!args.operands().empty()) {
    const std::string& range = args.operands().front();
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
  }
  return WithSelectedFrame("py-list", context, args.Number("--frame"), [&](Selection selected) {
    const Frame& frame = *selected.frame;
    const int current = frame.line.value_or(0);
    if (!start && !frame.line) {
      return Failure(fmt::format("py-list: frame {} ({}) has no line number", selected.index,
                                 frame.qualname()));
    }
    const int first = start ? static_cast<int>(*start) : current - 5;
    const int last = start ? static_cast<int>(*end) : current + 5;
    // The file a policy allows (source_policy.h); absent and refused say the same.
    SourcePolicy policy(SourceOriginOf(context.target));
    auto file = policy.Open(frame.filename());
    auto source = file.ok() ? ReadSourceLines(*file, frame.filename(), first, last)
                            : Result<SourceLines>(file.error());
    // The qualified name and the path (also inside the error) are the target's choice.
    if (!source.ok()) {
      return CommandOutput{
          fmt::format("The source of frame {} ({}, line {}) is not on this machine: {}\n",
                      selected.index, PrintableText(frame.qualname()),
                      frame.line ? std::to_string(current) : "?",
                      PrintableText(source.error().message)),
          false};
    }
    const std::string listing = Listing(*source, current);
    if (listing.empty()) {
      return CommandOutput{fmt::format("'{}' has no lines {} to {}\n",
                                       PrintableText(frame.filename()), std::max(first, 1), last),
                           false};
    }
    return CommandOutput{listing, false};
  });
}

}  // namespace pyunwind
