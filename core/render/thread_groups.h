// py-bt --all --group: the threads of an interpreter whose Python stacks are the same, so
// that a pool of 200 idle workers is shown once, with its count and names.
#pragma once

#include <cstddef>
#include <vector>

#include "core/walk/model.h"

namespace pyunwind {

// Threads of one interpreter with the same stack: indexes into its threads, in their order.
struct ThreadGroup {
  std::vector<size_t> threads;
};

// The threads a group's text title names; one line counts the rest.
inline constexpr size_t kGroupThreadsNamed = 10;

// Whether `a` and `b` show the same stack: frame by frame the same kind, code (file, name,
// qualname), position and C call, and the same cut. What the thread headers say (GIL,
// activity, exception, running task) may differ.
bool SameStack(const Thread& a, const Thread& b);

// `threads` grouped by SameStack: largest group first, then by where each group's first
// thread is in `threads`.
std::vector<ThreadGroup> GroupThreadsByStack(const std::vector<Thread>& threads);

}  // namespace pyunwind
