// The waits-for graph: an edge from each waiter to each party that holds what it waits for,
// and its cycles (deadlocks). Iterative (no recursion a long chain could overflow), bounded
// by WaitGraphBounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/base/limits.h"
#include "core/waits/wait_model.h"

namespace pyunwind {

// The graph's bounds (tests lower them to reach them with small graphs).
struct WaitGraphBounds {
  size_t max_parties = kMaxWaitParties;
  size_t max_edges = kMaxWaitEdges;
  uint64_t max_any_of_steps = kMaxAnyOfSteps;
};

// `next[i]`: the nodes node i waits for. One cycle per strongly connected set of nodes
// (every cycle of a graph where each node waits for one thing), as the node indices
// around it, starting from the set's least node and following the shortest way back to it;
// cycles in the order of their first nodes. Edges to nodes out of range are ignored.
std::vector<std::vector<size_t>> FindCycles(const std::vector<std::vector<size_t>>& next);

// Clears the edges of each node of `any_of` (a waiter any one of whose holders can release
// it) unless every node it waits for leads back to it, once the others are cleared. Past
// bounds.max_any_of_steps nodes and edges visited, clears them all and warns: no cycle is
// claimed.
void PruneAnyOfWaiters(std::vector<std::vector<size_t>>& next, const std::vector<size_t>& any_of,
                       std::vector<std::string>& warnings, const WaitGraphBounds& bounds = {});

// The cycles of `waits` (WaitReport::cycles): an edge from a waiter to each party of its
// held_by that is itself one of `waits`; a waiter released_by_any keeps its edges only if
// every holder waits on it, directly or through others (PruneAnyOfWaiters), and none is
// outside `waits`. The least node is the least (kind, id).
// More waiters or edges than the bounds allow: nothing, and a warning.
std::vector<std::vector<WaitParty>> FindWaitCycles(const std::vector<Wait>& waits,
                                                   std::vector<std::string>& warnings,
                                                   const WaitGraphBounds& bounds = {});

}  // namespace pyunwind
