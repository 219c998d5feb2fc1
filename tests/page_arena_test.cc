// core/target/page_arena.h: the page cache's memory, handed out in contiguous pages from
// slabs that are handed out again after a reset, and to the next arena.
#include "core/target/page_arena.h"

#include <sys/mman.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstring>

namespace pyunwind {
namespace {

constexpr size_t kPage = PageArena::kPageSize;

TEST(PageArena, HandsOutContiguousWritablePages) {
  PageArena arena;
  uint8_t* first = arena.Allocate(4);
  ASSERT_NE(first, nullptr);
  std::memset(first, 0xab, 4 * kPage);
  uint8_t* next = arena.Allocate(1);
  EXPECT_EQ(next, first + 4 * kPage);
  EXPECT_EQ(first[4 * kPage - 1], 0xab);  // untouched by the next allocation
  EXPECT_EQ(arena.SlabCount(), 1u);
}

TEST(PageArena, RefusesNoPagesAndMoreThanASlab) {
  PageArena arena;
  EXPECT_EQ(arena.Allocate(0), nullptr);
  EXPECT_EQ(arena.Allocate(PageArena::kPagesPerSlab + 1), nullptr);
  EXPECT_NE(arena.Allocate(PageArena::kPagesPerSlab), nullptr);
}

TEST(PageArena, AnAllocationThatDoesNotFitStartsTheNextSlab) {
  PageArena arena;
  uint8_t* most = arena.Allocate(PageArena::kPagesPerSlab - 2);
  uint8_t* block = arena.Allocate(4);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(arena.SlabCount(), 2u);
  // Not inside the first slab's pages.
  EXPECT_TRUE(block >= most + PageArena::kPagesPerSlab * kPage ||
              block + 4 * kPage <= most);
}

TEST(PageArena, TheLastAllocationCanBeGivenBack) {
  PageArena arena;
  uint8_t* a = arena.Allocate(1);
  uint8_t* b = arena.Allocate(4);
  arena.GiveBack(a, 1);  // not the last: kept
  EXPECT_EQ(arena.Allocate(1), b + 4 * kPage);
  uint8_t* c = arena.Allocate(2);
  arena.GiveBack(c, 2);
  EXPECT_EQ(arena.Allocate(2), c);
}

TEST(PageArena, ResetHandsTheSameSlabsOutAgain) {
  PageArena arena;
  uint8_t* first = arena.Allocate(PageArena::kPagesPerSlab);
  uint8_t* second = arena.Allocate(1);
  ASSERT_EQ(arena.SlabCount(), 2u);
  arena.Reset();
  EXPECT_EQ(arena.Allocate(PageArena::kPagesPerSlab), first);
  EXPECT_EQ(arena.Allocate(1), second);
  EXPECT_EQ(arena.SlabCount(), 2u);
}

TEST(PageArena, TheNextArenaStartsOnTheSlabsOfOneGone) {
  uint8_t* first = nullptr;
  {
    PageArena arena;
    first = arena.Allocate(1);
    ASSERT_NE(first, nullptr);
    first[0] = 0x5a;
  }
  PageArena next;
  uint8_t* again = next.Allocate(1);
  ASSERT_EQ(again, first);
  EXPECT_EQ(again[0], 0x5a);  // the slab kept, not unmapped and mapped (zeroed) again
}

TEST(PageArena, ASlabPreparedInTheBackgroundWaitsForTheNextArena) {
  const size_t before = PageArena::KeptSlabs();  // the slabs of the arenas above
  ASSERT_LT(before, 4u) << "the pool keeps 4 slabs: no room for a prepared one";
  PageArena::PrepareSlabInBackground();
  for (int waited_ms = 0; waited_ms < 5000 && PageArena::KeptSlabs() == before; ++waited_ms) {
    usleep(1000);
  }
  ASSERT_EQ(PageArena::KeptSlabs(), before + 1) << "no slab prepared within 5 s";
  PageArena::PrepareSlabInBackground();  // once per process: no second slab
  usleep(50 * 1000);
  EXPECT_EQ(PageArena::KeptSlabs(), before + 1);

  PageArena arena;
  uint8_t* page = arena.Allocate(1);
  ASSERT_NE(page, nullptr);
  EXPECT_EQ(PageArena::KeptSlabs(), before);  // taken from the pool
  unsigned char resident = 0;
  ASSERT_EQ(mincore(page, kPage, &resident), 0);
  EXPECT_EQ(resident & 1, 1) << "the prepared slab was not faulted in";
}

}  // namespace
}  // namespace pyunwind
