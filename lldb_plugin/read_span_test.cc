#include "lldb_plugin/read_span.h"

#include <gtest/gtest.h>

namespace pyunwind_lldb {
namespace {

// Reads of at most one cache line become the pages around them, more than a line; larger
// reads stay as they are.
TEST(ReadSpan, NeverAtMostOneCacheLine) {
  for (uint64_t line : {uint64_t{64}, uint64_t{512}, uint64_t{4096}, uint64_t{10000}}) {
    for (uint64_t address : {uint64_t{0x7f0000001000}, uint64_t{0x7f0000001ff8},
                             uint64_t{0x7f00000010a3}, uint64_t{0x55aa00000fff}}) {
      for (uint64_t size : {uint64_t{1}, uint64_t{8}, uint64_t{256}, uint64_t{512},
                            uint64_t{513}, uint64_t{4096}, uint64_t{12345}}) {
        const auto span = SpanAvoidingTheLineCache(address, size, line);
        ASSERT_TRUE(span) << address << " " << size << " " << line;
        EXPECT_GT(span->size, line) << address << " " << size << " " << line;
        EXPECT_LE(span->start, address);
        EXPECT_GE(span->start + span->size, address + size);
        if (size > line) {
          EXPECT_EQ(span->start, address);
          EXPECT_EQ(span->size, size);
        } else {
          EXPECT_EQ(span->start % 4096, 0u);
          EXPECT_EQ(span->size % 4096, 0u);
          EXPECT_LT(span->size, line + 2 * 4096);  // no more pages than needed
        }
      }
    }
  }
  // The probe of StopCache::SessionAt: 8 bytes, LLDB's default line of 512: the page.
  const auto probe = SpanAvoidingTheLineCache(0x7f1234567890, 8, 512);
  ASSERT_TRUE(probe);
  EXPECT_EQ(probe->start, 0x7f1234567000u);
  EXPECT_EQ(probe->size, 4096u);
  // 8 bytes across a page boundary: both pages.
  const auto across = SpanAvoidingTheLineCache(0x7f1234567ffc, 8, 512);
  ASSERT_TRUE(across);
  EXPECT_EQ(across->start, 0x7f1234567000u);
  EXPECT_EQ(across->size, 8192u);
}

TEST(ReadSpan, NothingPastTheTopOfTheAddressSpace) {
  EXPECT_FALSE(SpanAvoidingTheLineCache(UINT64_MAX - 3, 8, 512));
  EXPECT_FALSE(SpanAvoidingTheLineCache(UINT64_MAX - 100, 8, 512));
  EXPECT_FALSE(SpanAvoidingTheLineCache(0x1000, 0, 512));
}

}  // namespace
}  // namespace pyunwind_lldb
