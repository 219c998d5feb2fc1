// py-tasks as text: the table, the await tree, the running tasks' chains and
// the summary.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/printable.h"
#include "core/render/tasks_format.h"

namespace pyunwind {
namespace {

// The tree's depth (in tasks) past which a chain is summed up in one line.
constexpr size_t kMaxTreeDepth = 32;
// Names listed after a collapsed group of identical siblings.
constexpr size_t kCollapsedNames = 3;

const CodeNames& NamesOf(const AsyncSnapshot& s, uint64_t code) {
  static const CodeNames kUnknown{"?", "?", "?"};
  auto it = s.codes.find(code);
  return it == s.codes.end() ? kUnknown : it->second;
}

std::string FrameText(const AsyncSnapshot& s, const CoroutineFrame& frame) {
  const CodeNames& names = NamesOf(s, frame.code_address);
  return fmt::format("{} {}:{}", PrintableText(names.qualname), PrintableText(names.filename),
                     frame.line ? std::to_string(*frame.line) : "?");
}

std::string GapText(const AsyncTask& task) {
  return fmt::format("... {} coroutines not shown ...", task.coroutines_cut);
}

// The coroutine stack as lines, innermost first, with the gap of a cut chain.
std::vector<std::string> StackLines(const AsyncSnapshot& s, const AsyncTask& task) {
  std::vector<std::string> out;
  out.reserve(task.coroutine_stack.size() + 1);
  for (size_t i = 0; i < task.coroutine_stack.size(); ++i) {
    if (task.coroutines_cut && i == task.cut_at) out.push_back(GapText(task));
    out.push_back(FrameText(s, task.coroutine_stack[i]));
  }
  return out;
}

std::string Warnings(const AsyncSnapshot& s) {
  std::string out;
  for (const std::string& w : s.warnings) out += fmt::format("warning: {}\n", PrintableText(w));
  return out;
}

// What the selection left out, one line each; empty when nothing was.
std::string NotShown(const TaskSelection& sel) {
  std::string out;
  if (sel.done_hidden) {
    out += fmt::format("{} finished or cancelled task{} not shown (--state done or --all shows "
                       "them)\n", sel.done_hidden, sel.done_hidden == 1 ? "" : "s");
  }
  if (sel.cut_by_limit) {
    out += fmt::format("{} more task{} not shown (--limit {})\n", sel.cut_by_limit,
                       sel.cut_by_limit == 1 ? "" : "s", sel.tasks.size());
  }
  return out;
}

std::string ThreadOf(const AsyncTask& task) {
  return task.thread_native_id ? std::to_string(*task.thread_native_id) : "?";
}

std::string NoTasks(const AsyncSnapshot& s, const TaskSelection& sel) {
  return (s.tasks.empty() ? "no asyncio tasks\n" : "no task matches\n") + NotShown(sel) +
         Warnings(s);
}

// The await cycles, as `python -m asyncio pstree` lists them (`cycle: a → b → a`), under one
// line that counts them (those past kMaxAwaitCycles too: a warning says so) and above the
// tree; nothing when there is none.
std::string CyclesText(const AwaitCycles& cycles) {
  const size_t count = cycles.listed.size() + cycles.not_listed;
  if (count == 0) return "";
  std::string out =
      fmt::format("the await graph contains {} cycle{} (each task awaits the next):\n", count,
                  count == 1 ? "" : "s");
  for (const AwaitCycle& cycle : cycles.listed) {
    out += "cycle: ";
    for (const AsyncTask* task : cycle.tasks) out += PrintableText(task->name) + " → ";
    if (cycle.tasks.size() < cycle.length) {
      out += fmt::format("({} more) → ", cycle.length - cycle.tasks.size());
    }
    out += PrintableText(cycle.tasks.front()->name) + "\n";
  }
  return out + "\n";
}

// A subtree's shape, as one number: identical numbers are identical
// subtrees (same stacks, lines, states, edge kinds, children), so siblings
// with one number are drawn once with a count.
class SubtreeShapes {
 public:
  // children[i]: (child position, edge kind) of selected task i.
  SubtreeShapes(const std::vector<const AsyncTask*>& tasks,
                const std::vector<std::vector<std::pair<size_t, const char*>>>& children)
      : shape_(tasks.size(), kUnset) {
    // Post-order without recursion: a chain of a million tasks is no deeper here.
    std::vector<std::pair<size_t, size_t>> stack;  // (task, next child)
    std::vector<bool> on_path(tasks.size(), false);
    for (size_t root = 0; root < tasks.size(); ++root) {
      if (shape_[root] != kUnset) continue;
      stack.push_back({root, 0});
      on_path[root] = true;
      while (!stack.empty()) {
        auto& [task, next] = stack.back();
        if (next < children[task].size()) {
          const size_t child = children[task][next++].first;
          if (shape_[child] == kUnset && !on_path[child]) {
            on_path[child] = true;
            stack.push_back({child, 0});
          }
          continue;
        }
        std::vector<uint64_t> key;
        const AsyncTask& t = *tasks[task];
        key.push_back(static_cast<uint64_t>(t.state));
        key.push_back(t.running);
        key.push_back(t.coroutines_cut);
        key.push_back(t.coroutine_stack.size());
        for (const CoroutineFrame& f : t.coroutine_stack) {
          key.push_back(f.code_address);
          key.push_back(f.line ? static_cast<uint64_t>(*f.line) : ~0ull);
        }
        std::vector<std::pair<uint64_t, uint64_t>> kids;
        for (const auto& [child, kind] : children[task]) {
          // A child still on the path closes a cycle: unique, never collapsed.
          const uint64_t child_shape = shape_[child] == kUnset ? next_unique_-- : shape_[child];
          kids.push_back({std::hash<std::string_view>()(kind), child_shape});
        }
        std::sort(kids.begin(), kids.end());
        for (const auto& [kind, child_shape] : kids) {
          key.push_back(kind);
          key.push_back(child_shape);
        }
        auto [it, added] = ids_.try_emplace(std::move(key), ids_.size());
        shape_[task] = it->second;
        on_path[task] = false;
        stack.pop_back();
      }
    }
  }
  uint64_t operator[](size_t task) const { return shape_[task]; }

 private:
  static constexpr uint64_t kUnset = ~0ull;
  std::vector<uint64_t> shape_;
  std::map<std::vector<uint64_t>, uint64_t> ids_;
  uint64_t next_unique_ = kUnset - 1;
};

class TreePrinter {
 public:
  TreePrinter(const AsyncSnapshot& s, const TaskSelection& sel) : s_(s), tasks_(sel.tasks) {
    position_.reserve(tasks_.size());
    for (size_t i = 0; i < tasks_.size(); ++i) position_[tasks_[i]->address] = i;
    children_.resize(tasks_.size());
    hidden_awaiters_.assign(tasks_.size(), 0);
    for (size_t i = 0; i < tasks_.size(); ++i) {
      for (const TaskEdge& edge : tasks_[i]->awaited_by) {
        auto awaiter = position_.find(edge.awaiter);
        if (awaiter == position_.end()) {
          ++hidden_awaiters_[i];
        } else {
          children_[awaiter->second].push_back({i, edge.kind});
        }
      }
    }
    shown_.assign(tasks_.size(), false);
  }

  std::string Print() {
    const SubtreeShapes shapes(tasks_, children_);
    shapes_ = &shapes;
    // Roots: tasks no shown task awaits.
    std::vector<std::pair<size_t, const char*>> roots;
    for (size_t i = 0; i < tasks_.size(); ++i) {
      if (tasks_[i]->awaited_by.empty() || hidden_awaiters_[i] == tasks_[i]->awaited_by.size()) {
        roots.push_back({i, ""});
      }
    }
    PrintSiblings(roots, "", 0, true);
    // Tasks only reachable through a cycle of awaits.
    for (size_t i = 0; i < tasks_.size(); ++i) {
      if (!shown_[i]) PrintSiblings({{i, ""}}, "", 0, true);
    }
    return std::move(out_);
  }

 private:
  std::string Label(size_t i, const char* kind) const {
    const AsyncTask& t = *tasks_[i];
    std::string label = fmt::format("(T) {} [{:#x}]", PrintableText(t.name), t.address);
    if (*kind) label += fmt::format(" via {}", kind);
    if (t.running) label += " (running)";
    if (t.done()) label += fmt::format(" ({})", TaskStateName(t.state));
    if (hidden_awaiters_[i]) {
      label += fmt::format(" (awaited by {} task{} not shown)", hidden_awaiters_[i],
                           hidden_awaiters_[i] == 1 ? "" : "s");
    }
    return label;
  }

  // Marks every task below `i` shown; returns how many were not yet, and the deepest.
  size_t HideBelow(size_t i, const AsyncTask** deepest) {
    size_t count = 0;
    std::vector<std::pair<size_t, size_t>> todo{{i, 0}};  // (task, depth)
    size_t deepest_depth = 0;
    while (!todo.empty()) {
      auto [task, depth] = todo.back();
      todo.pop_back();
      for (const auto& [child, kind] : children_[task]) {
        if (shown_[child]) continue;
        shown_[child] = true;
        ++count;
        if (depth + 1 > deepest_depth) {
          deepest_depth = depth + 1;
          *deepest = tasks_[child];
        }
        todo.push_back({child, depth + 1});
      }
    }
    return count;
  }

  // `siblings` under one parent: identical subtrees (not yet shown) drawn once with a count.
  void PrintSiblings(const std::vector<std::pair<size_t, const char*>>& siblings,
                     const std::string& prefix, size_t depth, bool top) {
    // Group by (shape, kind) in first-seen order.
    std::vector<std::vector<size_t>> groups;
    std::vector<const char*> kinds;
    std::map<std::pair<uint64_t, std::string_view>, size_t> group_of;
    for (const auto& [i, kind] : siblings) {
      if (shown_[i]) {  // drawn elsewhere already
        groups.push_back({i});
        kinds.push_back(kind);
        continue;
      }
      auto [it, added] = group_of.try_emplace({(*shapes_)[i], kind}, groups.size());
      if (added) {
        groups.push_back({});
        kinds.push_back(kind);
      }
      groups[it->second].push_back(i);
    }
    for (size_t g = 0; g < groups.size(); ++g) {
      PrintNode(groups[g], kinds[g], prefix, depth, g + 1 == groups.size(), top);
    }
  }

  void PrintNode(const std::vector<size_t>& group, const char* kind, const std::string& prefix,
                 size_t depth, bool last, bool top) {
    const size_t i = group.front();
    const std::string branch = top ? "" : (last ? "└── " : "├── ");
    std::string label = Label(i, kind);
    if (shown_[i]) {
      out_ += prefix + branch + label + " (shown above)\n";
      return;
    }
    if (group.size() > 1) {
      label += fmt::format(", and {} identical sibling{}:", group.size() - 1,
                           group.size() == 2 ? "" : "s");
      for (size_t k = 1; k < group.size() && k <= kCollapsedNames; ++k) {
        label += fmt::format("{} {}", k == 1 ? "" : ",", PrintableText(tasks_[group[k]]->name));
      }
      if (group.size() - 1 > kCollapsedNames) label += ", ...";
    }
    for (size_t member : group) shown_[member] = true;
    out_ += prefix + branch + label + "\n";
    const std::string inner = top ? prefix : prefix + (last ? "    " : "│   ");
    const auto& kids = children_[i];
    std::vector<std::string> stack = StackLines(s_, *tasks_[i]);
    std::reverse(stack.begin(), stack.end());  // outermost first, like python -m asyncio pstree
    for (const std::string& line : stack) {
      out_ += inner + (kids.empty() ? "    " : "│   ") + line + "\n";
    }
    // The identical siblings' subtrees are this one's: drawn once.
    for (size_t k = 1; k < group.size(); ++k) {
      const AsyncTask* ignored = nullptr;
      HideBelow(group[k], &ignored);
    }
    if (kids.empty()) return;
    if (depth + 1 >= kMaxTreeDepth) {
      const AsyncTask* deepest = nullptr;
      const size_t below = HideBelow(i, &deepest);
      if (below == 0) return;
      out_ += inner + fmt::format("└── ... {} more task{} awaited below this one (the tree draws {} "
                                  "levels); the deepest: {} [{:#x}]\n",
                                  below, below == 1 ? "" : "s", kMaxTreeDepth,
                                  PrintableText(deepest->name), deepest->address);
      return;
    }
    PrintSiblings(kids, inner, depth + 1, false);
  }

  const AsyncSnapshot& s_;
  const std::vector<const AsyncTask*>& tasks_;
  std::unordered_map<uint64_t, size_t> position_;
  std::vector<std::vector<std::pair<size_t, const char*>>> children_;
  std::vector<size_t> hidden_awaiters_;
  std::vector<bool> shown_;
  const SubtreeShapes* shapes_ = nullptr;
  std::string out_;
};

}  // namespace

std::string FormatTasksTable(const AsyncSnapshot& s, const TaskSelection& sel) {
  if (sel.tasks.empty()) return NoTasks(s, sel);
  std::string out = fmt::format("{:<16} {:<20} {:<8} {:<9} {:<50} {}\n", "task id", "name",
                                "thread", "state", "coroutine stack", "awaited by");
  for (const AsyncTask* task : sel.tasks) {
    const std::vector<std::string> stack = StackLines(s, *task);
    std::vector<std::string> awaiters;
    for (const TaskEdge& edge : task->awaited_by) {
      const AsyncTask* awaiter = s.Find(edge.awaiter);
      awaiters.push_back(fmt::format("{} ({:#x}, {})", awaiter ? PrintableText(awaiter->name) : "?",
                                     edge.awaiter, edge.kind));
    }
    const size_t rows = std::max<size_t>({1, stack.size(), awaiters.size()});
    for (size_t i = 0; i < rows; ++i) {
      const bool first = i == 0;
      out += fmt::format("{:<16} {:<20} {:<8} {:<9} {:<50} {}\n",
                         first ? fmt::format("{:#x}", task->address) : "",
                         first ? PrintableText(task->name) : "", first ? ThreadOf(*task) : "",
                         first ? std::string(StateWord(*task)) : "",
                         i < stack.size() ? stack[i] : "", i < awaiters.size() ? awaiters[i] : "");
    }
  }
  return out + NotShown(sel) + Warnings(s);
}

std::string FormatTasksTree(const AsyncSnapshot& s, const TaskSelection& sel,
                            const AwaitCycles& cycles) {
  if (sel.tasks.empty()) return NoTasks(s, sel);
  return CyclesText(cycles) + TreePrinter(s, sel).Print() + NotShown(sel) + Warnings(s);
}

std::string FormatRunningTasks(const AsyncSnapshot& s, const TaskSelection& sel) {
  std::string out;
  for (const AsyncTask* task : sel.tasks) {
    if (!task->running) continue;
    out += fmt::format("Thread {} is running task {} [{:#x}]:\n", ThreadOf(*task),
                       PrintableText(task->name), task->address);
    std::unordered_set<uint64_t> seen;
    const AsyncTask* current = task;
    std::string kind;
    while (current && seen.insert(current->address).second) {
      if (current != task) {
        out += fmt::format("awaited by task {} [{:#x}] ({}):\n", PrintableText(current->name),
                           current->address, kind);
      }
      for (const std::string& line : StackLines(s, *current)) out += "  " + line + "\n";
      if (current->awaited_by.empty()) break;
      kind = current->awaited_by.front().kind;
      current = s.Find(current->awaited_by.front().awaiter);
    }
  }
  if (out.empty()) out = s.tasks.empty() ? "no asyncio tasks\n" : "no task is running\n";
  return out + Warnings(s);
}

std::string FormatTasksSummary(const AsyncSnapshot& s, const TaskSelection& sel,
                               const std::vector<TaskGroupSummary>& groups, size_t limit) {
  if (groups.empty()) return NoTasks(s, sel);
  std::string out;
  const size_t shown = limit ? std::min(limit, groups.size()) : groups.size();
  for (size_t g = 0; g < shown; ++g) {
    const TaskGroupSummary& group = groups[g];
    std::string stack;
    for (uint64_t code : group.stack) {
      stack += (stack.empty() ? "" : " -> ") + PrintableText(NamesOf(s, code).qualname);
    }
    if (stack.empty()) stack = "(no coroutine frame)";
    std::string names;
    for (const AsyncTask* task : group.examples) {
      names += (names.empty() ? "" : ", ") + PrintableText(task->name);
    }
    if (group.count > group.examples.size()) names += ", ...";
    out += fmt::format("{} task{}, {}: {}  ({})\n", group.count, group.count == 1 ? "" : "s",
                       group.state, stack, names);
  }
  if (shown < groups.size()) {
    out += fmt::format("{} more group{} not shown (--limit {})\n", groups.size() - shown,
                       groups.size() - shown == 1 ? "" : "s", limit);
  }
  return out + NotShown(sel) + Warnings(s);
}

}  // namespace pyunwind
