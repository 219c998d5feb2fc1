#include "core/asyncio/task_reader.h"

#include <fmt/format.h>

#include <unordered_set>

#include "core/asyncio/coroutine_frames.h"
#include "core/base/address.h"
#include "core/base/limits.h"
#include "core/walk/frames.h"

#include <algorithm>

namespace pyunwind {

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
  auto type = objects_.TypeOf(object);
  if (!type.ok() || *type == 0) return false;
  // By type: a million tasks have a handful of types.
  auto found = is_task_cache_.find(*type);
  if (found != is_task_cache_.end()) return found->second;
  bool result = false;
  uint64_t t = *type;
  for (size_t depth = 0; t != 0 && depth < kMaxBaseClasses; ++depth) {  // up the tp_base chain
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
  is_task_cache_[*type] = result;
  return result;
}

void TaskReader::ReadTask(uint64_t address, AsyncTask& task) {
  RemoteMemory& memory = objects_.memory();
  task.address = address;
  task.loop = memory.ReadPointer(address + a_.task.loop).value_or(0);
  task.fut_waiter = memory.ReadPointer(address + a_.task.fut_waiter).value_or(0);
  task.coroutine = memory.ReadPointer(address + a_.task.coro).value_or(0);
  const auto state = memory.ReadValue<int32_t>(address + a_.task.state);
  task.state = state && *state >= 0 && *state <= 2 ? static_cast<TaskState>(*state)
                                                   : TaskState::kUnknown;
  task.name = ReadName(address);
  ReadCoroutineStack(task);
}

void TaskReader::KeepNames(uint64_t code_address, const CodeInfo& code) {
  if (out_.codes.count(code_address)) return;
  out_.codes.emplace(code_address, *code.names);
}

std::string TaskReader::ReadName(uint64_t task) {
  if (a_.task.name == kAbsent) return fmt::format("<task {:#x}>", task);  // 3.7: no names
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

bool TaskReader::SeenBefore(uint64_t coroutine) {
  constexpr size_t kScan = 32;  // short chains (nearly all) are scanned, longer ones hashed
  if (chain_.size() < kScan) {
    for (uint64_t c : chain_) {
      if (c == coroutine) return true;
    }
    chain_.push_back(coroutine);
    if (chain_.size() == kScan) chain_set_.insert(chain_.begin(), chain_.end());
    return false;
  }
  chain_.push_back(coroutine);
  return !chain_set_.insert(coroutine).second;
}

// The task's coroutine and what it awaits, through suspended frames. A chain
// deeper than kMaxCoroutineDepth keeps its outermost and innermost halves and
// counts the coroutines between them (the task is parked at the innermost).
void TaskReader::ReadCoroutineStack(AsyncTask& task) {
  RemoteMemory& memory = objects_.memory();
  const size_t half = kMaxCoroutineDepth / 2;
  chain_.clear();
  chain_set_.clear();
  outer_.clear();
  inner_ring_.clear();
  size_t walked = 0;
  uint64_t coro = task.coroutine;
  while (coro != 0) {
    if (SeenBefore(coro)) {
      Warn(fmt::format("task {}: the coroutine chain loops", task.name));
      break;
    }
    if (chain_.size() > kMaxCoroutineChain) {
      Warn(fmt::format("task {}: more than {} coroutines deep: the innermost are not "
                       "shown...truncated", task.name, kMaxCoroutineChain));
      break;
    }
    // `async for` awaits its generator's asend object (athrow for aclose()): the generator's
    // frame is the next link, as CPython's _remote_debugging reads it.
    if (IsA(coro, 0, "async_generator_asend") || IsA(coro, 0, "async_generator_athrow")) {
      // ags_gen / agt_gen: the first field after PyObject_HEAD, where a PyVarObject's
      // ob_size would be.
      auto generator = memory.ReadPointer(coro + objects_.layout().object.ob_size);
      if (!generator || !Aligned(*generator) || *generator == 0 ||
          !IsA(*generator, known.async_generator, "async_generator") || SeenBefore(*generator)) {
        break;
      }
      coro = *generator;
    } else if (!IsA(coro, known.coroutine, "coroutine") &&
               !(UsesFrameObjects(objects_.layout()) && IsA(coro, 0, "generator"))) {
      // A future, ...; before 3.11 also a generator-based coroutine (@asyncio.coroutine:
      // 3.6's asyncio.sleep), whose frame awaits as a coroutine's does (gi_yieldfrom).
      break;
    }
    // Cycle detection is per task: many tasks may share one long chain.
    if (!memory.budget().Spend(Work::kCoroutineLinks, 1)) {
      Warn(fmt::format("task {}: {}", task.name, *memory.budget().Reason()));
      break;
    }
    const std::optional<CoroutineState> state = ReadCoroutineFrame(objects_, codes_, coro);
    if (!state) {
      Warn(fmt::format("task {}: cannot read coroutine {:#x}", task.name, coro));
      break;
    }
    if (state->frame == 0) break;  // finished: no frame
    const uint64_t frame = state->frame;
    auto position = ReadFramePosition(objects_, codes_, frame);
    if (!position.ok()) {
      Warn(fmt::format("task {}: coroutine {:#x}: {}", task.name, coro, position.error().message));
      break;
    }
    KeepNames(position->code_address, *position->code);
    CoroutineFrame f{position->code_address, frame, position->line};
    if (state->created) f.line = position->code->first_line;  // not started
    if (outer_.size() < half) {
      outer_.push_back(f);
    } else if (inner_ring_.size() < half) {
      inner_ring_.push_back(f);
    } else {
      inner_ring_[(walked - half) % half] = f;
    }
    ++walked;
    if (!state->awaiting) break;
    coro = AwaitedObject(objects_, frame).value_or(0);
  }
  // Innermost first: the ring from its newest entry back, then the outer half reversed.
  task.coroutine_stack.clear();
  const size_t ring = inner_ring_.size();
  const size_t newest = walked > half ? (walked - half - 1) % std::max<size_t>(ring, 1) : 0;
  for (size_t i = 0; i < ring; ++i) {
    task.coroutine_stack.push_back(inner_ring_[(newest + ring - i) % ring]);
  }
  task.coroutines_cut = walked - outer_.size() - ring;
  task.cut_at = task.coroutines_cut ? ring : 0;
  task.coroutine_stack.insert(task.coroutine_stack.end(), outer_.rbegin(), outer_.rend());
}

std::vector<uint64_t> TaskReader::Callbacks(uint64_t future) {
  RemoteMemory& memory = objects_.memory();
  std::vector<uint64_t> out;
  // 3.6 has no callback0 and no contexts: its list holds the callbacks themselves.
  const bool pairs = a_.task.callback0 != kAbsent;
  if (auto first = pairs ? memory.ReadPointer(future + a_.task.callback0) : std::nullopt;
      first && *first) {
    out.push_back(*first);
  }
  // The rest: a list of (callback, context) pairs.
  auto list = memory.ReadPointer(future + a_.task.callbacks);
  if (list && *list) {
    auto items = c_.ListItems(*list, 4096);
    if (items.ok()) {
      for (uint64_t pair : *items) {
        if (!pairs) {
          out.push_back(pair);
          continue;
        }
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
