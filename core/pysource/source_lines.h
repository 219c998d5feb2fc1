// The source line under each Python frame of py-bt: read from the file the
// code object names, as SourcePolicy (source_policy.h) finds and allows it
// (with --source-dir DIR, DIR/<its base name> first: the sources of a core
// made on another machine), with the safe reader of py-list (regular files
// only, bounded).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/pysource/source_policy.h"
#include "core/walk/model.h"

namespace pyunwind {

// Fills frame.source of the Python frames of threads given a few at a time (py-bt --all
// shows each thread as it is walked). A file is read when a frame needs a line of it not
// read before, at most kMaxSourceFilesPerCommand times in all; its lines are kept.
class SourceLineReader {
 public:
  explicit SourceLineReader(const SourceOrigin& origin);
  // The texts the frames point to are kept in `owner` (a Snapshot's source_texts).
  void Add(const std::vector<Thread*>& threads,
           std::vector<std::shared_ptr<const SourceText>>& owner);
  // The files refused so far, for py-bt -v (SourcePolicy::RefusalNote).
  const SourcePolicy& policy() const { return policy_; }

 private:
  struct SourceFile {
    std::map<int, std::string> lines;  // read so far, by number
    std::vector<int> wanted;           // numbers to read next
    bool unreadable = false;
  };
  SourcePolicy policy_;
  std::map<std::string, SourceFile> files_;
  // Frames at the same lines share one SourceText.
  std::map<std::tuple<const SourceFile*, int, int>, const SourceText*> texts_;
  size_t reads_ = 0;
  size_t span_lines_ = 0;  // source lines under the frames, beyond their first
};

// Fills frame.source of every Python frame of `snapshot` whose line its file has
// (SourceLineReader, all threads at once). Returns the note of the files refused, if any.
std::optional<std::string> AddSourceLines(Snapshot& snapshot, const SourceOrigin& origin);

}  // namespace pyunwind
