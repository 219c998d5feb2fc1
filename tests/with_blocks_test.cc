// Which `with` blocks a value stack holds open (core/waits/with_blocks.h): bound exits
// (3.6-3.13), LOAD_SPECIAL's pairs (3.14+), and not the block whose __enter__ is being called.
#include "core/waits/with_blocks.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace pyunwind {
namespace {

// Values 0x100 + m: the bound exit of manager m; 0xe0: the unbound __exit__; 0xe1: the
// unbound __enter__; anything else: some other value.
ExitRecognizers Recognizers() {
  ExitRecognizers exits;
  exits.bound_exit = [](uint64_t v) -> uint64_t { return v >= 0x100 && v < 0x200 ? v - 0x100 : 0; };
  exits.is_unbound_exit = [](uint64_t v) { return v == 0xe0; };
  exits.is_unbound_enter = [](uint64_t v) { return v == 0xe1; };
  return exits;
}

using Values = std::vector<uint64_t>;

TEST(OpenWithBlocks, BoundExitsNameTheirManagers) {
  EXPECT_EQ(OpenWithBlocks({0x107, 5, 0x109}, Recognizers()), (Values{7, 9}));
}

TEST(OpenWithBlocks, UnboundExitPairsNameTheirSelf) {
  EXPECT_EQ(OpenWithBlocks({0xe0, 7, 3, 0xe0, 9, 4}, Recognizers()), (Values{7, 9}));
}

TEST(OpenWithBlocks, TheBlockBeingEnteredIsNotHeld) {
  // Inside `with A:`, calling B.__enter__ for `with B:`: only A is held.
  EXPECT_EQ(OpenWithBlocks({0xe0, 7, 0xe0, 9, 0xe1, 9}, Recognizers()), (Values{7}));
  // `with A:` inside `with A:`: the outer block holds A, the inner one is being entered.
  EXPECT_EQ(OpenWithBlocks({0xe0, 7, 0xe0, 7, 0xe1, 7}, Recognizers()), (Values{7}));
  // Entered: the block's __enter__ returned, its result above the pair.
  EXPECT_EQ(OpenWithBlocks({0xe0, 7, 0xe0, 9, 1}, Recognizers()), (Values{7, 9}));
}

TEST(OpenWithBlocks, AnExitWithNoSelfAboveItHoldsNothing) {
  EXPECT_EQ(OpenWithBlocks({3, 0xe0}, Recognizers()), Values{});
  EXPECT_EQ(OpenWithBlocks({0xe0, 0}, Recognizers()), Values{});
  EXPECT_EQ(OpenWithBlocks({}, Recognizers()), Values{});
}

}  // namespace
}  // namespace pyunwind
