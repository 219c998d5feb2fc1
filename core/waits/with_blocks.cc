#include "core/waits/with_blocks.h"

namespace pyunwind {

std::vector<uint64_t> OpenWithBlocks(const std::vector<uint64_t>& stack,
                                     const ExitRecognizers& exits) {
  std::vector<uint64_t> managers;
  const size_t n = stack.size();
  // The pair of a block whose __enter__ is being called: [exit, manager, enter, manager] on top.
  const bool entering = n >= 4 && stack[n - 3] == stack[n - 1] && exits.is_unbound_enter &&
                        exits.is_unbound_enter(stack[n - 2]);
  for (size_t i = 0; i < n; ++i) {
    if (exits.bound_exit) {
      if (const uint64_t manager = exits.bound_exit(stack[i])) {
        managers.push_back(manager);
        continue;
      }
    }
    if (i + 1 >= n || stack[i + 1] == 0 || !exits.is_unbound_exit) continue;
    if (entering && i == n - 4) break;
    if (exits.is_unbound_exit(stack[i])) {
      managers.push_back(stack[i + 1]);
      ++i;  // the manager is the pair's second slot, no exit of its own
    }
  }
  return managers;
}

}  // namespace pyunwind
