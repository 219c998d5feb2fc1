#include "lldb_plugin/args.h"

#include <gtest/gtest.h>

namespace pyunwind_lldb {
namespace {

TEST(ArgvToVector, NullIsEmpty) { EXPECT_TRUE(ArgvToVector(nullptr).empty()); }

TEST(ArgvToVector, EmptyList) {
  char* argv[] = {nullptr};
  EXPECT_TRUE(ArgvToVector(argv).empty());
}

TEST(ArgvToVector, KeepsEachArgumentWhole) {
  char all[] = "--all";
  char json[] = "--json";
  char spaced[] = "a b";  // LLDB removed the quotes around it; it stays one argument
  char* argv[] = {all, json, spaced, nullptr};
  EXPECT_EQ(ArgvToVector(argv), (std::vector<std::string>{"--all", "--json", "a b"}));
}

}  // namespace
}  // namespace pyunwind_lldb
