#include "core/walk/thread_state.h"

#include <fmt/format.h>

#include "core/base/address.h"
#include "core/objects/remote_collections.h"
#include "core/objects/values.h"

namespace pyunwind {
namespace {

constexpr int kMaxExceptionStackItems = 256;
constexpr size_t kMaxExceptionMessage = 1024;  // characters of a message

// The exception being handled: the innermost _PyErr_StackItem whose value is
// set and not None, as sys.exception() finds it (_PyErr_GetTopmostException).
// Null when the chain cannot be read; 0 when nothing is being handled.
std::optional<uint64_t> HandledException(RemoteMemory& memory, const Layout& l, uint64_t tstate,
                                         ValueFormatter& values) {
  if (l.err_stackitem.exc_value == kAbsent) return std::nullopt;
  uint64_t item = 0;
  if (l.tstate.exc_info != kAbsent) {
    auto pointer = memory.ReadPointer(tstate + l.tstate.exc_info);
    if (!pointer) return std::nullopt;
    item = *pointer;
  } else if (l.tstate.exc_state != kAbsent) {
    item = tstate + l.tstate.exc_state;
  }
  for (int i = 0; i < kMaxExceptionStackItems && Aligned(item); ++i) {
    auto value = memory.ReadPointer(item + l.err_stackitem.exc_value);
    if (!value) return std::nullopt;
    if (*value != 0 && !values.IsNone(*value)) return *value;
    if (l.err_stackitem.previous_item == kAbsent) return 0;
    auto previous = memory.ReadPointer(item + l.err_stackitem.previous_item);
    if (!previous) return std::nullopt;
    item = *previous;
  }
  return 0;
}

// str(exception) as BaseException.__str__ gives it: "" without arguments,
// str(args[0]) with one (repr for KeyError, as KeyError.__str__ does; the
// text for a str, the repr for the numbers repr rebuilds), str(args) with
// several. Null where the type has its own __str__ that is not rebuilt here
// (OSError and its subclasses with errno, UnicodeError, ...) or args is unreadable.
std::optional<std::string> ExceptionMessage(ObjectReader& objects, ValueFormatter& values,
                                            uint64_t exception, const std::string& type) {
  const Layout& l = objects.layout();
  if (l.exception.args == kAbsent) return std::nullopt;
  auto args = objects.memory().ReadPointer(exception + l.exception.args);
  if (!args || !Aligned(*args)) return std::nullopt;
  RemoteCollections c(objects);
  auto items = c.TupleItems(*args, 2);
  if (!items.ok()) return std::nullopt;
  if (items->empty()) return std::string();
  if (items->size() > 1) {
    auto repr = values.Repr(*args);
    return repr.ok() ? std::optional<std::string>(*repr) : std::nullopt;
  }
  const uint64_t arg = (*items)[0];
  auto info = values.TypeOf(arg);
  if (!info.ok()) return std::nullopt;
  using Kind = ValueFormatter::Kind;
  if (info->kind == Kind::kStr && type != "KeyError") {
    auto text = objects.ReadString(arg, kMaxExceptionMessage);
    return text.ok() ? std::optional<std::string>(*text) : std::nullopt;
  }
  const bool repr_is_str = info->kind == Kind::kStr || info->kind == Kind::kInt ||
                           info->kind == Kind::kFloat || info->kind == Kind::kBool ||
                           info->kind == Kind::kNone || type == "KeyError";
  if (!repr_is_str) return std::nullopt;
  auto repr = values.Repr(arg);
  return repr.ok() ? std::optional<std::string>(*repr) : std::nullopt;
}

// Types whose __str__ is not BaseException's, so their message is not rebuilt.
bool OwnStr(const std::string& type) {
  static const char* const kOwn[] = {
      "OSError", "FileNotFoundError", "FileExistsError", "PermissionError", "TimeoutError",
      "ConnectionError", "ConnectionResetError", "ConnectionRefusedError", "ConnectionAbortedError",
      "BrokenPipeError", "BlockingIOError", "ChildProcessError", "InterruptedError",
      "IsADirectoryError", "NotADirectoryError", "ProcessLookupError", "SyntaxError",
      "IndentationError", "TabError", "UnicodeDecodeError", "UnicodeEncodeError",
      "UnicodeTranslateError", "ImportError", "ModuleNotFoundError", "BaseExceptionGroup",
      "ExceptionGroup", "SystemExit", "StopIteration"};
  for (const char* own : kOwn) {
    if (type == own) return true;
  }
  return false;
}

}  // namespace

void AddThreadStatus(ObjectReader& objects, Interpreter& interp) {
  const Layout& l = objects.layout();
  RemoteMemory& memory = objects.memory();
  const bool exceptions = l.tstate.current_exception != kAbsent || l.err_stackitem.exc_value != kAbsent;
  if (!exceptions && l.tstate.gil_requested == kAbsent) return;
  ValueFormatter values(objects);
  if (exceptions) values.UseBuiltinsOf(interp.address);
  for (Thread& thread : interp.threads) {
    const uint64_t tstate = thread.tstate_address;
    if (l.tstate.gil_requested != kAbsent) {
      auto requested = memory.ReadValue<int32_t>(tstate + l.tstate.gil_requested);
      if (requested && *requested != 0) thread.status.push_back("gil_requested");
    }
    if (!exceptions) continue;
    bool readable = true;
    std::string type;
    uint64_t exception = 0;
    if (l.tstate.current_exception != kAbsent) {
      // 3.11 keeps the type (curexc_type); 3.12+ the exception itself.
      auto raised = memory.ReadPointer(tstate + l.tstate.current_exception);
      readable = raised.has_value();
      if (raised && Aligned(*raised) && *raised != 0 && !values.IsNone(*raised)) {
        auto info = l.tstate.current_exception_is_type ? values.TypeInfoAt(*raised)
                                                       : values.TypeOf(*raised);
        type = info.ok() ? ShortTypeName(info->name) : "?";
        if (!l.tstate.current_exception_is_type) exception = *raised;
        thread.exception_state = ExceptionState::kRaised;
      }
    }
    if (type.empty()) {
      auto handled = HandledException(memory, l, tstate, values);
      if (!handled) {
        readable = false;
      } else if (*handled != 0) {
        auto info = values.TypeOf(*handled);
        type = info.ok() ? ShortTypeName(info->name) : "?";
        exception = *handled;
        thread.exception_state = ExceptionState::kHandled;
      }
    }
    if (!type.empty()) {
      thread.status.push_back("exception");
      thread.exception = type;
      if (exception != 0 && !OwnStr(type)) {
        thread.exception_message = ExceptionMessage(objects, values, exception, type);
      }
    } else if (readable) {
      thread.exception_state = ExceptionState::kNone;
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
