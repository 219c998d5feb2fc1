// The `with` and `async with` blocks a frame's value stack holds open, from the exit each
// block keeps there until it ends: the context manager is the block's holder (py-waits: the
// thread or task holding a Lock it entered with `with`).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace pyunwind {

struct ExitRecognizers {
  // 3.6-3.13 keep the manager's bound __exit__ (__aexit__): the manager it is bound to, or 0
  // when `value` is no such method.
  std::function<uint64_t(uint64_t value)> bound_exit;
  // 3.14+ keep what LOAD_SPECIAL pushed: the unbound __exit__, then the manager (its self).
  std::function<bool(uint64_t value)> is_unbound_exit;
  // And while the frame calls the manager's __enter__ (the block not entered yet) the stack
  // ends [__exit__, manager, __enter__, manager].
  std::function<bool(uint64_t value)> is_unbound_enter;
};

// The managers of the blocks `stack` (bottom first) holds open, innermost last; a manager
// entered twice is there twice.
std::vector<uint64_t> OpenWithBlocks(const std::vector<uint64_t>& stack,
                                     const ExitRecognizers& exits);

}  // namespace pyunwind
