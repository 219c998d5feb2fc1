// The Python frame py-up / py-down / py-frame selected in each thread, kept
// between commands. The front-ends keep one each and say which stop of which
// process a command runs in; a selection is good for the stop it was made in
// only, since a resumed process has other frames.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <tuple>

namespace pyunwind {

// Which stop of which process a command runs in, as the debugger tells them.
struct ProcessStop {
  uint64_t process = 0;   // the OS process id (0 for a core without one)
  uint64_t instance = 0;  // the debugger's own id of the process object (a new attach is new)
  uint64_t stop_id = 0;   // changes whenever the process resumes
};

class FrameSelections {
 public:
  // The Python frame selected in `thread` during `stop`, if any; a selection
  // of an earlier stop is forgotten.
  std::optional<size_t> Get(const ProcessStop& stop, uint64_t thread);
  void Set(const ProcessStop& stop, uint64_t thread, size_t python_frame);

 private:
  using Key = std::tuple<uint64_t, uint64_t, uint64_t>;  // process, instance, thread
  struct Selection {
    uint64_t stop_id = 0;
    size_t python_frame = 0;
  };
  std::map<Key, Selection> selections_;
};

}  // namespace pyunwind
