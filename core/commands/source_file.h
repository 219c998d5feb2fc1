// Reading the source file a code object names. The path is the target's
// choice: it may name a terminal (a script run as `python3 /dev/stdin`), a
// FIFO, /dev/zero or a huge file. Only regular files are read, opened
// without blocking, and at most kMaxSourceFileBytes of them.
#pragma once

#include <string>
#include <vector>

#include "core/base/result.h"

namespace pyunwind {

struct SourceLines {
  int first = 1;                   // the line number of lines[0]
  std::vector<std::string> lines;  // without their line ends, each cut at kMaxSourceLineLength
};

// Lines `first` to `last` (1-based, inclusive) of the file at `path`; fewer
// where the file ends sooner. An error says why there is no source: missing,
// not a regular file, unreadable.
Result<SourceLines> ReadSourceLines(const std::string& path, int first, int last);

}  // namespace pyunwind
