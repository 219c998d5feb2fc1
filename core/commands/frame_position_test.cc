// Where py-up / py-down start (StartingPosition, core/commands/native.h): from the debugger's
// selected native frame, as GDB's `up` and libpython's py-up go, unless a Python frame was
// selected since and the debugger still has its eval-loop frame selected.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "core/commands/native.h"

namespace pyunwind {
namespace {

// Python frames 0 and 1 run in the eval loop at native frame 3 (one call of the loop, 3.11+),
// frame 2 in the one at native frame 7; native frames 0-2 are C code frame 0 called.
const std::vector<std::optional<size_t>> kEvalLoops = {3, 3, 7};

void ExpectAt(FramePosition got, size_t frame, bool in_newer_native) {
  EXPECT_EQ(got.frame, frame);
  EXPECT_EQ(got.in_newer_native, in_newer_native);
}

TEST(StartingPosition, FromCCodeTheFirstStepUpReachesFrameZero) {
  ExpectAt(StartingPosition(kEvalLoops, std::nullopt, 0), 0, true);
  ExpectAt(StartingPosition(kEvalLoops, std::nullopt, 2), 0, true);
}

TEST(StartingPosition, AnEvalLoopFrameSelectsItsNewestPythonFrame) {
  ExpectAt(StartingPosition(kEvalLoops, std::nullopt, 3), 0, false);
  ExpectAt(StartingPosition(kEvalLoops, std::nullopt, 7), 2, false);
}

TEST(StartingPosition, CBetweenTwoEvalLoopsIsBelowTheOlderFrame) {
  ExpectAt(StartingPosition(kEvalLoops, std::nullopt, 5), 2, true);
}

TEST(StartingPosition, OlderThanEveryEvalLoopIsTheOldestFrame) {
  ExpectAt(StartingPosition(kEvalLoops, std::nullopt, 9), 2, false);
}

TEST(StartingPosition, AKeptSelectionHoldsWhileItsEvalLoopIsSelected) {
  ExpectAt(StartingPosition(kEvalLoops, 1, 3), 1, false);
  // The user went `down` to the C code since: the native frame decides.
  ExpectAt(StartingPosition(kEvalLoops, 1, 0), 0, true);
  ExpectAt(StartingPosition(kEvalLoops, 1, std::nullopt), 1, false);
}

TEST(StartingPosition, UnknownEvalLoopsTakeFrameZeroAsSelected) {
  const std::vector<std::optional<size_t>> unknown = {std::nullopt, std::nullopt};
  ExpectAt(StartingPosition(unknown, std::nullopt, 0), 0, false);
  ExpectAt(StartingPosition(unknown, 1, 0), 1, false);
}

}  // namespace
}  // namespace pyunwind
