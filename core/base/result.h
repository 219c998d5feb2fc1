// Errors as values: every failure carries one sentence for the user, and
// nothing throws through the debugger's C++ or Python. What a caller decides
// on is the error's kind, never its text: the text is the user's.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace pyunwind {

// What went wrong, for the code that acts on an error; set where the error is born.
enum class ErrorKind {
  kOther,               // none of the below: the message is all there is to know
  kNoRuntime,           // the target has no Python runtime: not a Python process
  kInterrupted,         // the user stopped the command (Ctrl-C, Target::Interrupted)
  kBudgetExhausted,     // the command's work budget ran out (WorkBudget)
  kUnreadableMemory,    // a read of the target's memory failed (also once interrupted)
  kUnsupportedVersion,  // a CPython version pyunwind does not read
  kRefusedLayout,       // a layout or debug-offsets block that does not hold together
  kBadArgument,         // the command's arguments are wrong
};

struct Error {
  ErrorKind kind = ErrorKind::kOther;
  std::string message;  // one clear sentence, no trailing newline

  // The same error, its message led by `context` ("py-tasks: " + message).
  Error WithContext(std::string_view context) const {
    return Error{kind, std::string(context) + message};
  }
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}         // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}     // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Result<void> equivalent.
struct Ok {};
using Status = Result<Ok>;

inline Error MakeError(std::string message) { return Error{ErrorKind::kOther, std::move(message)}; }
inline Error MakeError(ErrorKind kind, std::string message) {
  return Error{kind, std::move(message)};
}

// The kinds made most often, named as what they say.
inline Error UnreadableMemory(std::string message) {
  return MakeError(ErrorKind::kUnreadableMemory, std::move(message));
}
inline Error BadArgument(std::string message) {
  return MakeError(ErrorKind::kBadArgument, std::move(message));
}

}  // namespace pyunwind

// Propagates an error from an expression yielding Result<T>; binds the value otherwise.
#define PYU_CONCAT_INNER(a, b) a##b
#define PYU_CONCAT(a, b) PYU_CONCAT_INNER(a, b)
#define PYU_ASSIGN_OR_RETURN(lhs, expr) \
  PYU_ASSIGN_OR_RETURN_IMPL(PYU_CONCAT(pyu_result_, __LINE__), lhs, expr)
#define PYU_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                              \
  if (!tmp.ok()) return tmp.error();              \
  lhs = std::move(tmp).value()
#define PYU_RETURN_IF_ERROR(expr)                      \
  do {                                                 \
    auto pyu_status_ = (expr);                         \
    if (!pyu_status_.ok()) return pyu_status_.error(); \
  } while (0)
