#include "core/render/thread_groups.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

namespace pyunwind {
namespace {

bool SameText(const std::shared_ptr<const std::string>& a,
              const std::shared_ptr<const std::string>& b) {
  if (!a || !b) return !a && !b;
  return *a == *b;
}

bool SameFrame(const Frame& a, const Frame& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case FrameKind::kGc:
      return true;
    case FrameKind::kNative: {
      static const NativeFrame kNone;
      const NativeFrame& x = a.native ? *a.native : kNone;
      const NativeFrame& y = b.native ? *b.native : kNone;
      return x.pc == y.pc && x.function == y.function && x.module == y.module;
    }
    case FrameKind::kPython:
      break;
  }
  // Frames of one code object usually share its names; compared by text all the same, as
  // the code-object cache may hold two copies.
  const bool same_code = a.code_names == b.code_names ||
                         (a.filename() == b.filename() && a.name() == b.name() &&
                          a.qualname() == b.qualname());
  const bool same_position = a.line == b.line && a.end_line == b.end_line &&
                             a.column == b.column && a.end_column == b.end_column;
  return same_code && same_position && SameText(a.calling, b.calling);
}

// A hash of what SameStack compares, so that threads are compared only within a bucket.
size_t StackHash(const Thread& thread) {
  size_t hash = thread.frames.size();
  auto mix = [&hash](size_t value) {
    hash ^= value + 0x9e3779b97f4a7c15ull + (hash << 6) + (hash >> 2);
  };
  for (const Frame& frame : thread.frames) {
    mix(static_cast<size_t>(frame.kind));
    if (frame.kind != FrameKind::kPython) continue;
    mix(std::hash<std::string>{}(frame.qualname()));
    mix(static_cast<size_t>(frame.line.value_or(-1)));
  }
  return hash;
}

}  // namespace

bool SameStack(const Thread& a, const Thread& b) {
  if (a.frames.size() != b.frames.size() || a.truncated != b.truncated || a.error != b.error) {
    return false;
  }
  for (size_t i = 0; i < a.frames.size(); ++i) {
    if (!SameFrame(a.frames[i], b.frames[i])) return false;
  }
  return true;
}

std::vector<ThreadGroup> GroupThreadsByStack(const std::vector<Thread>& threads) {
  std::vector<ThreadGroup> groups;
  std::unordered_multimap<size_t, size_t> groups_by_hash;  // stack hash -> index in groups
  for (size_t i = 0; i < threads.size(); ++i) {
    const size_t hash = StackHash(threads[i]);
    auto [first, last] = groups_by_hash.equal_range(hash);
    auto same = std::find_if(first, last, [&](const auto& entry) {
      return SameStack(threads[groups[entry.second].threads.front()], threads[i]);
    });
    if (same != last) {
      groups[same->second].threads.push_back(i);
    } else {
      groups_by_hash.emplace(hash, groups.size());
      groups.push_back({{i}});
    }
  }
  // Groups were made in order of their first thread: a stable sort keeps that among equals.
  std::stable_sort(groups.begin(), groups.end(), [](const ThreadGroup& a, const ThreadGroup& b) {
    return a.threads.size() > b.threads.size();
  });
  return groups;
}

}  // namespace pyunwind
