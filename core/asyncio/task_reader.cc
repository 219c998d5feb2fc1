#include "core/asyncio/task_reader.h"

#include <fmt/format.h>

#include <unordered_set>

#include "core/base/address.h"
#include "core/walk/frames.h"

namespace pyunwind {
namespace {

constexpr int64_t kMaxStackDepth = 1 << 16;

}  // namespace

void TaskReader::Warn(std::string message) {
  warnings_.Add(std::move(message));
}

bool TaskReader::IsA(uint64_t object, uint64_t type, std::string_view name) {
  auto actual = objects_.TypeOf(object);
  if (!actual.ok()) return false;
  if (type != 0) return *actual == type;
  auto actual_name = objects_.TypeNameOfType(*actual);
  return actual_name.ok() && *actual_name == name;
}

bool TaskReader::IsTask(uint64_t object) {
  auto found = is_task_cache_.find(object);
  if (found != is_task_cache_.end()) return found->second;
  bool result = false;
  auto type = objects_.TypeOf(object);
  uint64_t t = type.ok() ? *type : 0;
  for (int depth = 0; t != 0 && depth < 16; ++depth) {  // up the tp_base chain
    if (known.task != 0) {
      if (t == known.task) {
        result = true;
        break;
      }
    } else {
      auto name = objects_.TypeNameOfType(t);
      if (!name.ok()) break;
      if (*name == "_asyncio.Task") {
        result = true;
        break;
      }
    }
    auto base = objects_.memory().ReadPointer(t + objects_.layout().type.tp_base);
    if (!base || !Aligned(*base) || *base == t) break;
    t = *base;
  }
  is_task_cache_[object] = result;
  return result;
}

AsyncTask TaskReader::ReadTask(uint64_t address) {
  RemoteMemory& memory = objects_.memory();
  AsyncTask task;
  task.address = address;
  task.loop = memory.ReadPointer(address + a_.task.loop).value_or(0);
  task.fut_waiter = memory.ReadPointer(address + a_.task.fut_waiter).value_or(0);
  task.coroutine = memory.ReadPointer(address + a_.task.coro).value_or(0);
  const auto state = memory.ReadValue<int32_t>(address + a_.task.state);
  static const char* kStates[] = {"pending", "cancelled", "finished"};
  task.state = state && *state >= 0 && *state <= 2 ? kStates[*state] : "unknown";
  task.name = ReadName(address);
  ReadCoroutineStack(task);
  return task;
}

std::string TaskReader::ReadName(uint64_t task) {
  auto name = objects_.memory().ReadPointer(task + a_.task.name);
  if (!name || !Aligned(*name)) {
    Warn(fmt::format("task {:#x}: cannot read its name", task));
    return fmt::format("<task {:#x}>", task);
  }
  if (IsA(*name, known.int_type, "int")) {  // 3.12+: an unnamed task keeps its counter
    auto number = objects_.ReadInt(*name);
    if (number.ok()) return fmt::format("Task-{}", *number);
  }
  auto text = objects_.ReadString(*name);
  if (text.ok()) return *text;
  Warn(fmt::format("task {:#x}: {}", task, text.error().message));
  return fmt::format("<task {:#x}>", task);
}

// The task's coroutine and what it awaits, through suspended frames.
void TaskReader::ReadCoroutineStack(AsyncTask& task) {
  RemoteMemory& memory = objects_.memory();
  const Layout& l = objects_.layout();
  const Layout::FrameStates& states = l.frame_state;
  std::vector<Frame> outermost_first;
  std::unordered_set<uint64_t> seen;
  uint64_t coro = task.coroutine;
  while (coro != 0) {
    if (!seen.insert(coro).second) {
      Warn(fmt::format("task {}: the coroutine chain loops", task.name));
      break;
    }
    if (seen.size() > kMaxCoroutineDepth) {
      Warn(fmt::format("task {}: more than {} coroutines deep: the rest are not shown...truncated",
                       task.name, kMaxCoroutineDepth));
      break;
    }
    if (!IsA(coro, known.coroutine, "coroutine")) break;  // a future, a generator...
    const auto state = memory.ReadValue<int8_t>(coro + l.gen.frame_state);
    if (!state) {
      Warn(fmt::format("task {}: cannot read coroutine {:#x}", task.name, coro));
      break;
    }
    if (*state >= states.completed) break;  // finished: no frame
    const uint64_t frame = coro + l.gen.iframe;
    Thread one;
    WalkFrames(objects_, codes_, frame, 1, one);
    if (one.frames.empty()) {
      Warn(fmt::format("task {}: coroutine {:#x}: {}", task.name, coro,
                       one.error.value_or("no frame")));
      break;
    }
    Frame f = std::move(one.frames.front());
    if (*state == states.created) {  // not started: at its first line
      if (auto code = codes_.Get(f.code_address); code.ok()) f.line = (*code)->first_line;
    }
    outermost_first.push_back(std::move(f));
    const bool awaiting =
        *state == states.suspended_yield_from || *state == states.suspended_yield_from_locked;
    if (!awaiting) break;
    coro = AwaitedObject(frame).value_or(0);
  }
  task.coroutine_stack.assign(outermost_first.rbegin(), outermost_first.rend());
}

// What a frame suspended in `await` or `yield from` waits for: a slot near
// the top of its value stack.
std::optional<uint64_t> TaskReader::AwaitedObject(uint64_t frame) {
  RemoteMemory& memory = objects_.memory();
  const Layout::Frame& f = objects_.layout().frame;
  const uint64_t from_top = static_cast<uint64_t>(f.awaited_from_top);
  uint64_t slot = 0;
  if (f.stackpointer != kAbsent) {  // 3.14+: a pointer past the top
    auto pointer = memory.ReadPointer(frame + f.stackpointer);
    if (!pointer || *pointer < frame + f.localsplus + 8 * from_top ||
        *pointer - frame > static_cast<uint64_t>(kMaxStackDepth) * 8) {
      return std::nullopt;
    }
    slot = *pointer - 8 * from_top;
  } else {  // the count of slots in use above localsplus
    auto top = memory.ReadValue<int32_t>(frame + f.stacktop);
    if (!top || *top < static_cast<int64_t>(from_top) || *top > kMaxStackDepth) return std::nullopt;
    slot = frame + f.localsplus + 8 * (static_cast<uint64_t>(*top) - from_top);
  }
  auto value = memory.ReadPointer(slot);
  if (!value) return std::nullopt;
  const uint64_t object = *value & ~f.stackref_tag_mask & ~uint64_t{1};
  return Aligned(object) ? std::optional<uint64_t>(object) : std::nullopt;
}

std::vector<uint64_t> TaskReader::Callbacks(uint64_t future) {
  RemoteMemory& memory = objects_.memory();
  std::vector<uint64_t> out;
  if (auto first = memory.ReadPointer(future + a_.task.callback0); first && *first) {
    out.push_back(*first);
  }
  // The rest: a list of (callback, context) pairs.
  auto list = memory.ReadPointer(future + a_.task.callbacks);
  if (list && *list) {
    auto items = c_.ListItems(*list, 4096);
    if (items.ok()) {
      for (uint64_t pair : *items) {
        auto tuple = c_.TupleItems(pair, 4);
        if (tuple.ok() && !tuple->empty()) out.push_back((*tuple)[0]);
      }
    }
  }
  return out;
}

std::vector<uint64_t> TaskReader::AwaitedBy(uint64_t task) {
  RemoteMemory& memory = objects_.memory();
  std::vector<uint64_t> out;
  if (a_.task_awaited_by == kAbsent) return out;
  auto value = memory.ReadPointer(task + a_.task_awaited_by);
  auto is_set = memory.ReadValue<uint8_t>(task + a_.task_awaited_by_is_set);
  if (!value || !is_set || *value == 0) return out;
  if (*is_set) {
    auto items = c_.SetItems(*value, 4096);
    if (items.ok()) return *items;
    Warn(fmt::format("task {:#x}: awaited_by: {}", task, items.error().message));
    return out;
  }
  out.push_back(*value);
  return out;
}

}  // namespace pyunwind
