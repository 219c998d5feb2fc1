// The source line under each Python frame of py-bt: read from the file the
// code object names (or, with --source-dir DIR, from DIR/<its base name>
// first: the sources of a core made on another machine), with the safe
// reader of py-list (regular files only, bounded).
#pragma once

#include <string>
#include <vector>

#include "core/walk/model.h"

namespace pyunwind {

struct SourceLookup {
  // Directories searched, in order, for a file by its base name before the
  // path the code object names (like GDB's `directory DIR`).
  std::vector<std::string> directories;
};

// The path a frame's source is read from: the first DIR/<base name> that is
// a regular file, else `filename` itself.
std::string SourcePathFor(const std::string& filename, const SourceLookup& lookup);

// Fills frame.source_line of every Python frame of `snapshot` whose line its
// file has. Each file is read once; at most kMaxSourceFilesPerCommand files.
void AddSourceLines(Snapshot& snapshot, const SourceLookup& lookup);

}  // namespace pyunwind
