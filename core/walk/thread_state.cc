#include "core/walk/thread_state.h"

#include <fmt/format.h>

#include "core/base/address.h"
#include "core/objects/values.h"

namespace pyunwind {
namespace {

constexpr int kMaxExceptionStackItems = 256;

// The exception being handled: the innermost _PyErr_StackItem whose value is
// set and not None, as sys.exception() finds it (_PyErr_GetTopmostException).
uint64_t HandledException(RemoteMemory& memory, const Layout& l, uint64_t tstate, uint64_t none) {
  if (l.err_stackitem.exc_value == kAbsent) return 0;
  uint64_t item = 0;
  if (l.tstate.exc_info != kAbsent) {
    auto pointer = memory.ReadPointer(tstate + l.tstate.exc_info);
    if (!pointer) return 0;
    item = *pointer;
  } else if (l.tstate.exc_state != kAbsent) {
    item = tstate + l.tstate.exc_state;
  }
  for (int i = 0; i < kMaxExceptionStackItems && Aligned(item); ++i) {
    auto value = memory.ReadPointer(item + l.err_stackitem.exc_value);
    if (!value) return 0;
    if (*value != 0 && *value != none) return *value;
    if (l.err_stackitem.previous_item == kAbsent) return 0;
    auto previous = memory.ReadPointer(item + l.err_stackitem.previous_item);
    if (!previous) return 0;
    item = *previous;
  }
  return 0;
}

}  // namespace

void AddThreadStatus(ObjectReader& objects, Interpreter& interp) {
  const Layout& l = objects.layout();
  RemoteMemory& memory = objects.memory();
  const bool exceptions = l.tstate.current_exception != kAbsent || l.err_stackitem.exc_value != kAbsent;
  if (!exceptions && l.tstate.gil_requested == kAbsent) return;
  ValueFormatter values(objects);
  if (exceptions) values.LoadBuiltins(interp.address);
  for (Thread& thread : interp.threads) {
    const uint64_t tstate = thread.tstate_address;
    if (l.tstate.gil_requested != kAbsent) {
      auto requested = memory.ReadValue<int32_t>(tstate + l.tstate.gil_requested);
      if (requested && *requested != 0) thread.status.push_back("gil_requested");
    }
    if (!exceptions) continue;
    std::string type;
    if (l.tstate.current_exception != kAbsent) {
      // 3.11 keeps the type (curexc_type); 3.12+ the exception itself.
      auto raised = memory.ReadPointer(tstate + l.tstate.current_exception);
      if (raised && Aligned(*raised) && *raised != values.none()) {
        auto info = l.tstate.current_exception_is_type ? values.TypeInfoAt(*raised)
                                                       : values.TypeOf(*raised);
        type = info.ok() ? ShortTypeName(info->name) : "?";
      }
    }
    if (type.empty()) {
      if (uint64_t handled = HandledException(memory, l, tstate, values.none())) {
        auto info = values.TypeOf(handled);
        type = info.ok() ? ShortTypeName(info->name) : "?";
      }
    }
    if (!type.empty()) {
      thread.status.push_back("exception");
      thread.exception = type;
    }
  }
}

std::vector<std::string> GilHolderWarnings(const Snapshot& snapshot) {
  std::vector<std::string> warnings;
  for (const Interpreter& interp : snapshot.interpreters) {
    if (!interp.gil_holder) continue;
    bool shown = false;
    for (const Thread& thread : interp.threads) {
      shown = shown || thread.holds_gil.value_or(false);
    }
    if (!shown) {
      warnings.push_back(fmt::format(
          "the GIL of interpreter {} is held by thread state {:#x}, which is not shown", interp.id,
          *interp.gil_holder));
    }
  }
  return warnings;
}

}  // namespace pyunwind
