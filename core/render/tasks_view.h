// What py-tasks shows of the tasks it read: its options, which tasks a filter
// keeps (--name, --state, --limit; finished tasks only on request, as
// asyncio.all_tasks() leaves them out), and the --summary groups. The table,
// the tree and the JSON all show the same selection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/asyncio/asyncio.h"

namespace pyunwind {

// Which states --state keeps. kLive (the default): pending and running.
enum class StateFilter { kLive, kPending, kRunning, kDone, kAll };

struct PyTasksOptions {
  bool json = false;
  bool tree = false;
  bool running = false;
  bool summary = false;
  bool stats = false;
  bool verbose = false;
  std::optional<std::string> name_glob;  // fnmatch(3) pattern on the task's name
  StateFilter states = StateFilter::kLive;
  size_t limit = 0;  // tasks shown at most (--summary: groups); 0 = no limit
};

// "running" for a running task, else its state: "pending", "finished"...
std::string_view StateWord(const AsyncTask& task);

struct TaskSelection {
  std::vector<const AsyncTask*> tasks;  // kept, in address order, at most `limit`
  size_t read = 0;           // tasks read
  size_t matched = 0;        // kept by --name and --state, before --limit
  size_t done_hidden = 0;    // finished or cancelled (matching --name), left out by the default
  size_t cut_by_limit = 0;   // matched but past --limit
};

TaskSelection SelectTasks(const AsyncSnapshot& snapshot, const PyTasksOptions& options);

// Tasks with the same coroutine stack (code objects, outermost first) and the
// same state word, largest group first (then by stack), with a few names.
struct TaskGroupSummary {
  size_t count = 0;
  std::string_view state;
  std::vector<uint64_t> stack;  // code addresses, outermost first
  std::vector<const AsyncTask*> examples;  // the first few, in address order
};
inline constexpr size_t kSummaryExamples = 3;

// Groups `tasks` (every matched task: --limit applies to the groups listed).
std::vector<TaskGroupSummary> SummarizeTasks(const std::vector<const AsyncTask*>& tasks);

}  // namespace pyunwind
