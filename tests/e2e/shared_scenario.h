// A parameterized test suite whose cases share one scenario process (and its core): the first
// case that asks starts it, and it is stopped after the suite's last case.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {

// `Suite` is the deriving class (one scenario per suite), `Param` the cases' parameter.
template <typename Suite, typename Param>
class WithSharedScenario : public ::testing::TestWithParam<Param> {
 public:
  static void TearDownTestSuite() { shared_.reset(); }

 protected:
  static ScenarioWithCore* scenario() {
    if (!shared_) shared_ = std::make_unique<ScenarioWithCore>();
    return shared_.get();
  }

 private:
  static inline std::unique_ptr<ScenarioWithCore> shared_;
};

}  // namespace pyunwind_e2e
