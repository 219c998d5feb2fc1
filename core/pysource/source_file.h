// Reading the source file a code object names. The path is the target's
// choice: it may name a terminal (a script run as `python3 /dev/stdin`), a
// FIFO, /dev/zero or a huge file. Only regular files are read, opened
// without blocking, and at most kMaxSourceFileBytes of them.
#pragma once

#include <string>
#include <vector>

#include "core/base/regular_file.h"
#include "core/base/result.h"

namespace pyunwind {

struct SourceLines {
  int first = 1;                   // the line number of lines[0]
  std::vector<std::string> lines;  // without their line ends, each cut at kMaxSourceLineLength
};

// Lines `first` to `last` (1-based, inclusive) of the file at `path`; fewer
// where the file ends sooner. An error says why there is no source: missing,
// not a regular file, unreadable. `path` is opened as it is: a code object's
// file name goes through SourcePolicy (source_policy.h) first, and the file
// it opens is read with the overload that takes it.
Result<SourceLines> ReadSourceLines(const std::string& path, int first, int last);
Result<SourceLines> ReadSourceLines(const RegularFile& file, const std::string& path, int first,
                                    int last);

struct NumberedLine {
  int number = 0;
  std::string text;  // as in SourceLines
};

// The lines of the file at `path` whose numbers are in `numbers` (ascending, each from 1),
// in that order; a number past the file's end has none. Only these lines are kept: a
// traceback needs a few lines of each file, not all of them up to the last.
Result<std::vector<NumberedLine>> ReadNumberedSourceLines(const std::string& path,
                                                         const std::vector<int>& numbers);
Result<std::vector<NumberedLine>> ReadNumberedSourceLines(const RegularFile& file,
                                                         const std::string& path,
                                                         const std::vector<int>& numbers);

}  // namespace pyunwind
