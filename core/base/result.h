// Errors as values: every failure carries one sentence for the user, and
// nothing throws through the debugger's C++ or Python.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace pyunwind {

struct Error {
  std::string message;  // one clear sentence, no trailing newline
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

inline Error MakeError(std::string message) { return Error{std::move(message)}; }

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
