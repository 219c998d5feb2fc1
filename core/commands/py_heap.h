// py-heap: the census of the objects the collector tracks in every interpreter, grouped by
// type, as text or JSON (core/heap, core/render/heap_format.h).
#pragma once

#include "core/commands/commands.h"
#include "core/commands/options.h"

namespace pyunwind {

// The py-heap command (command_table.cc).
CommandOutput RunPyHeap(const ParsedArgs& args, CommandContext& context);

}  // namespace pyunwind
