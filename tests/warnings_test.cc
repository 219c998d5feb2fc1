// BoundedWarnings: at most `cap` warnings, then one line that counts the rest.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/base/warnings.h"

namespace pyunwind {
namespace {

TEST(BoundedWarnings, KeepsUpToTheCapThenCountsTheRest) {
  std::vector<std::string> out = {"earlier"};
  BoundedWarnings warnings(out, 3);
  for (int i = 0; i < 10; ++i) warnings.Add("w" + std::to_string(i));
  warnings.Finish();
  EXPECT_EQ(out, (std::vector<std::string>{"earlier", "w0", "w1", "w2",
                                           "7 more warnings like these were not shown...truncated"}));
}

TEST(BoundedWarnings, NothingAddedWhenUnderTheCap) {
  std::vector<std::string> out;
  BoundedWarnings warnings(out, 3);
  warnings.Add("one");
  warnings.Finish();
  EXPECT_EQ(out, (std::vector<std::string>{"one"}));
}

TEST(BoundedWarnings, OneLeftOutIsSingular) {
  std::vector<std::string> out;
  BoundedWarnings warnings(out, 1);
  warnings.Add("kept");
  warnings.Add("left out");
  warnings.Finish();
  warnings.Finish();  // a second call adds nothing
  EXPECT_EQ(out, (std::vector<std::string>{"kept", "1 more warning like these were not shown...truncated"}));
}

}  // namespace
}  // namespace pyunwind
