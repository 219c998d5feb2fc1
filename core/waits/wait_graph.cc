#include "core/waits/wait_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

namespace pyunwind {
namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

// Tarjan's strongly connected components, with an explicit stack of (node, next edge).
std::vector<std::vector<size_t>> Components(const std::vector<std::vector<size_t>>& next) {
  const size_t n = next.size();
  std::vector<size_t> index(n, kNone), low(n, 0);
  std::vector<bool> on_stack(n, false);
  std::vector<size_t> stack;
  std::vector<std::pair<size_t, size_t>> calls;
  std::vector<std::vector<size_t>> components;
  size_t counter = 0;
  for (size_t root = 0; root < n; ++root) {
    if (index[root] != kNone) continue;
    calls.push_back({root, 0});
    index[root] = low[root] = counter++;
    stack.push_back(root);
    on_stack[root] = true;
    while (!calls.empty()) {
      auto& [node, edge] = calls.back();
      if (edge < next[node].size()) {
        const size_t to = next[node][edge++];
        if (to >= n) continue;
        if (index[to] == kNone) {
          index[to] = low[to] = counter++;
          stack.push_back(to);
          on_stack[to] = true;
          calls.push_back({to, 0});
        } else if (on_stack[to]) {
          low[node] = std::min(low[node], index[to]);
        }
        continue;
      }
      const size_t done = node;
      calls.pop_back();
      if (!calls.empty()) low[calls.back().first] = std::min(low[calls.back().first], low[done]);
      if (low[done] != index[done]) continue;
      std::vector<size_t> component;
      size_t member;
      do {
        member = stack.back();
        stack.pop_back();
        on_stack[member] = false;
        component.push_back(member);
      } while (member != done);
      components.push_back(std::move(component));
    }
  }
  return components;
}

// The shortest way from `start` back to itself through `members` (breadth first).
std::vector<size_t> ShortestCycle(const std::vector<std::vector<size_t>>& next, size_t start,
                                  const std::vector<bool>& member) {
  std::map<size_t, size_t> came_from;
  std::vector<size_t> frontier = {start};
  for (size_t at = 0; at < frontier.size(); ++at) {
    const size_t node = frontier[at];
    for (size_t to : next[node]) {
      if (to >= next.size() || !member[to]) continue;
      if (to == start) {
        std::vector<size_t> cycle = {node};
        while (cycle.back() != start) cycle.push_back(came_from[cycle.back()]);
        std::reverse(cycle.begin(), cycle.end());
        return cycle;
      }
      if (came_from.emplace(to, node).second) frontier.push_back(to);
    }
  }
  return {};
}

}  // namespace

std::vector<std::vector<size_t>> FindCycles(const std::vector<std::vector<size_t>>& next) {
  std::vector<std::vector<size_t>> cycles;
  std::vector<bool> member(next.size(), false);
  for (const std::vector<size_t>& component : Components(next)) {
    const size_t start = *std::min_element(component.begin(), component.end());
    const bool self_loop =
        std::find(next[start].begin(), next[start].end(), start) != next[start].end();
    if (component.size() < 2 && !self_loop) continue;
    for (size_t node : component) member[node] = true;
    cycles.push_back(ShortestCycle(next, start, member));
    for (size_t node : component) member[node] = false;
  }
  std::sort(cycles.begin(), cycles.end(),
            [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return cycles;
}

void PruneAnyOfWaiters(std::vector<std::vector<size_t>>& next, const std::vector<size_t>& any_of,
                       std::vector<std::string>& warnings, const WaitGraphBounds& bounds) {
  // A node waits for h and h leads back to it exactly when both are in one strongly connected
  // component. Clearing edges only cuts ways back, so a node cleared stays cleared: each pass
  // clears every node that fails, until a pass clears none.
  uint64_t steps = 0;
  std::vector<size_t> component_of(next.size());
  for (bool changed = true; changed;) {
    changed = false;
    const auto components = Components(next);
    for (size_t c = 0; c < components.size(); ++c) {
      for (size_t node : components[c]) component_of[node] = c;
    }
    steps += next.size();
    for (size_t node : any_of) {
      if (node >= next.size() || next[node].empty()) continue;
      steps += next[node].size();
      const bool all_lead_back =
          std::all_of(next[node].begin(), next[node].end(), [&](size_t to) {
            return to < next.size() && component_of[to] == component_of[node];
          });
      if (all_lead_back) continue;
      next[node].clear();
      changed = true;
    }
    if (steps > bounds.max_any_of_steps) {
      warnings.push_back(fmt::format("more than {} steps deciding which waits any holder can "
                                     "release: those waits are not taken for cycles",
                                     bounds.max_any_of_steps));
      for (size_t node : any_of) {
        if (node < next.size()) next[node].clear();
      }
      return;
    }
  }
}

std::vector<std::vector<WaitParty>> FindWaitCycles(const std::vector<Wait>& waits,
                                                   std::vector<std::string>& warnings,
                                                   const WaitGraphBounds& bounds) {
  if (waits.size() > bounds.max_parties) {
    warnings.push_back(fmt::format("{} waiters: more than {}, no cycles looked for", waits.size(),
                                   bounds.max_parties));
    return {};
  }
  // Nodes in (kind, id) order: the least node of a cycle is its least party.
  std::vector<size_t> order(waits.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](size_t i) { return std::pair(waits[i].waiter.kind, waits[i].waiter.id); };
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
  std::map<std::pair<WaiterKind, uint64_t>, size_t> node_of;
  for (size_t node = 0; node < order.size(); ++node) node_of.emplace(key(order[node]), node);
  std::vector<std::vector<size_t>> next(order.size());
  std::vector<size_t> any_of;  // the nodes any one of whose holders can release them
  size_t edges = 0;
  for (size_t node = 0; node < order.size(); ++node) {
    const auto& target = waits[order[node]].waits_for;
    if (!target || !target->held_by) continue;
    if (target->released_by_any) any_of.push_back(node);
    for (const WaitParty& holder : *target->held_by) {
      auto found = node_of.find({holder.kind, holder.id});
      if (found == node_of.end()) {
        if (!target->released_by_any) continue;
        next[node].clear();  // a holder that waits for nothing known can release it
        break;
      }
      if (++edges > bounds.max_edges) {
        warnings.push_back(fmt::format("more than {} waits-for edges, no cycles looked for",
                                       bounds.max_edges));
        return {};
      }
      next[node].push_back(found->second);
    }
  }
  PruneAnyOfWaiters(next, any_of, warnings, bounds);
  std::vector<std::vector<WaitParty>> cycles;
  for (const std::vector<size_t>& cycle : FindCycles(next)) {
    std::vector<WaitParty> parties;
    for (size_t node : cycle) parties.push_back(waits[order[node]].waiter);
    cycles.push_back(std::move(parties));
  }
  return cycles;
}

}  // namespace pyunwind
