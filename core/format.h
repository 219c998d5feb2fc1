// Turning a Snapshot into what the user reads: a traceback per thread, or
// the JSON document of ../shared/notes/json-output.md.
#pragma once

#include <string>

#include "core/memory.h"
#include "core/model.h"

namespace pyunwind {

struct FormatOptions {
  bool color = false;
  bool verbose = false;          // print how the runtime was found, layout source
  size_t frame_limit = 0;        // frames per thread; 0 = all
  const MemoryStats* stats = nullptr;  // printed when set (--stats)
  double elapsed_ms = 0;
};

std::string FormatText(const Snapshot& snapshot, const FormatOptions& options);
std::string FormatJson(const Snapshot& snapshot, const FormatOptions& options);

}  // namespace pyunwind
