#include "core/commands/py_print.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "core/base/limits.h"
#include "core/base/printable.h"
#include "core/commands/selected_frame.h"
#include "core/objects/values.h"
#include "core/render/format.h"
#include "core/walk/locals.h"

namespace pyunwind {

namespace {

struct PrintOptions {
  std::string name;
  ReprLimits limits;
  std::optional<size_t> frame;
};

Result<PrintOptions> OptionsOf(const ParsedArgs& args) {
  PrintOptions options;
  options.limits.max_length = args.Number("--max-chars").value_or(kDefaultPrintReprLength);
  options.limits.max_depth = static_cast<int>(args.Number("--depth").value_or(kDefaultPrintReprDepth));
  options.frame = args.Number("--frame");
  if (!args.operands().empty()) options.name = args.operands().front();
  if (options.name.empty()) return BadArgument("py-print: which name? (see 'help py-print')");
  // Every item shows at least one character: more items than characters are never shown.
  options.limits.max_items = std::min(options.limits.max_length, kMaxContainerEntries);
  return options;
}

// Where a name was found, as GDB's py-print says it.
struct Found {
  const char* scope;
  std::string repr;
};

}  // namespace

CommandOutput RunPyPrint(const ParsedArgs& args, CommandContext& context) {
  auto parsed = OptionsOf(args);
  if (!parsed.ok()) return Failure(parsed.error().message);
  const PrintOptions& options = *parsed;
  return WithSelectedFrame("py-print", context, options.frame, [&](Selection selected) {
    const Frame& frame = *selected.frame;
    ObjectReader& objects = *selected.objects;
    const Layout& l = objects.layout();
    ValueFormatter values(objects, options.limits);
    values.UseBuiltinsOf(selected.interp);
    const std::string where = fmt::format("frame #{} ({})", selected.index, frame.qualname());
    auto show = [&](const char* scope, uint64_t object) {
      auto repr = values.Repr(object);
      if (!repr.ok()) {
        return Failure(fmt::format("py-print: {} '{}' of {} cannot be read: {}", scope,
                                   options.name, where, repr.error().message));
      }
      return CommandOutput{fmt::format("{} '{}' = {}\n", scope, PrintableText(options.name),
                                       PrintableText(*repr)),
                           false};
    };
    // 1. The fast locals: a name the code object keeps there is never looked
    //    up further (unbound, it is an UnboundLocalError / NameError).
    auto slots = ReadLocalSlots(objects, values, frame.frame_address, frame.code_address);
    if (!slots.ok()) return Failure("py-print: " + slots.error().message);
    for (const LocalSlot& slot : slots->slots) {
      if (slot.name != options.name) continue;
      const char* scope = slot.cell_or_free ? "cell" : "local";
      if (!slot.bound) {
        return Failure(fmt::format("py-print: '{}' is a local of {} that is not bound (yet)",
                                   options.name, where));
      }
      if (slot.error) {
        return Failure(fmt::format("py-print: {} '{}' of {} cannot be read: {}", scope,
                                   options.name, where, *slot.error));
      }
      if (slot.tagged_int) {
        return CommandOutput{fmt::format("{} '{}' = {}\n", scope, PrintableText(options.name),
                                         *slot.tagged_int),
                             false};
      }
      return show(scope, slot.object);
    }
    // 2. The namespaces the frame points to: f_locals (a module's or class
    //    body's), f_globals, f_builtins; each a dict looked up by str key.
    struct Namespace {
      int32_t offset;
      const char* scope;
    };
    std::optional<uint64_t> globals;
    if (l.frame.globals != kAbsent) globals = objects.memory().ReadPointer(frame.frame_address + l.frame.globals);
    for (const Namespace& ns : {Namespace{l.frame.locals_dict, "local"},
                                Namespace{l.frame.globals, "global"},
                                Namespace{l.frame.builtins, "builtin"}}) {
      if (ns.offset == kAbsent) continue;
      auto dict = objects.memory().ReadPointer(frame.frame_address + ns.offset);
      if (!dict || *dict == 0) continue;
      // A module's frame has its globals as its locals: they are globals.
      if (ns.offset == l.frame.locals_dict && globals && *dict == *globals) continue;
      auto value = objects.LookupStringKey(*dict, options.name);
      if (!value.ok()) {
        return Failure(fmt::format("py-print: the {}s of {} cannot be read: {}", ns.scope, where,
                                   value.error().message));
      }
      if (*value != 0) return show(ns.scope, *value);
    }
    if (slots->not_shown > 0) {
      return Failure(fmt::format(
          "py-print: '{}' is not defined in {}: no global or builtin and none of its first {} "
          "locals has that name ({} more locals were not read)",
          options.name, where, kMaxLocalsPerFrame, slots->not_shown));
    }
    return Failure(fmt::format("py-print: '{}' is not defined in {}: no local, global or builtin has that name",
                               options.name, where));
  });
}

}  // namespace pyunwind
