// What the commands keep between them is held by one command at a time
// (core/session/kept_state.h): another thread waits for it, and a command started inside
// another on the same thread is refused.
#include "core/session/kept_state.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace pyunwind {
namespace {

TEST(KeptState, AnotherThreadWaitsUntilItIsGivenBack) {
  std::atomic<bool> taken{false};
  std::thread other;
  {
    auto held = KeptState::Take();
    ASSERT_TRUE(held.ok()) << held.error().message;
    other = std::thread([&taken] { taken = KeptState::Take().ok(); });
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    EXPECT_FALSE(taken) << "another thread took the state while this one held it";
  }
  other.join();
  EXPECT_TRUE(taken);
}

TEST(KeptState, ACommandInsideAnotherOnItsThreadIsRefused) {
  {
    auto outer = KeptState::Take();
    ASSERT_TRUE(outer.ok()) << outer.error().message;
    auto inner = KeptState::Take();
    ASSERT_FALSE(inner.ok());
    EXPECT_EQ(inner.error().message, "a pyunwind command is already running");
  }
  EXPECT_TRUE(KeptState::Take().ok()) << "given back when the outer command ended";
}

TEST(KeptState, EveryCommandSeesWhatTheOnesBeforeKept) {
  const ProcessStop stop{1234, 1, 7};
  {
    auto first = KeptState::Take();
    ASSERT_TRUE(first.ok());
    first->selections().Set(stop, 1235, 4);
  }
  std::optional<size_t> seen;
  std::thread([&] {
    auto later = KeptState::Take();
    if (later.ok()) seen = later->selections().Get(stop, 1235);
  }).join();
  EXPECT_EQ(seen, 4u);
}

}  // namespace
}  // namespace pyunwind
