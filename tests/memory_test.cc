// core/memory: the page cache over Target::ReadMemory, its statistics, its
// fall-back to single pages at the end of a mapping, and its byte budget.
#include "core/target/memory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/fake_target.h"

namespace pyunwind {
namespace {

using testing::FakeTarget;

constexpr uint64_t kPage = RemoteMemory::kPageSize;
// A miss fetches Target::PagesPerFetch pages, 4 unless the target says otherwise.
const uint64_t kBlock = RemoteMemory::kPageSize * FakeTarget{}.PagesPerFetch();
constexpr uint64_t kBase = 0x7f0000000000;  // block-aligned

// The byte the fake target holds at `address`.
uint8_t Pattern(uint64_t address) { return static_cast<uint8_t>(address * 7 + (address >> 12)); }

class MemoryTest : public ::testing::Test {
 protected:
  // Maps [start, start + size) filled with Pattern.
  void MapPattern(uint64_t start, uint64_t size) {
    target_.Map(start, size);
    std::vector<uint8_t> bytes(size);
    for (uint64_t i = 0; i < size; ++i) bytes[i] = Pattern(start + i);
    target_.Write(start, bytes.data(), size);
    target_.reads.clear();
    target_.read_calls = 0;
  }
  bool ReadsMatchPattern(RemoteMemory& memory, uint64_t address, size_t size) {
    std::vector<uint8_t> out(size);
    if (!memory.Read(address, out.data(), size)) return false;
    for (size_t i = 0; i < size; ++i) {
      if (out[i] != Pattern(address + i)) return false;
    }
    return true;
  }
  size_t ReadsOfSize(uint64_t size) {
    return std::count_if(target_.reads.begin(), target_.reads.end(),
                         [&](const auto& read) { return read.second == size; });
  }

  FakeTarget target_;
};

TEST_F(MemoryTest, MissThenHitsWithinABlock) {
  MapPattern(kBase, 4 * kBlock);
  RemoteMemory memory(target_);
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + 100, 8));
  EXPECT_EQ(memory.stats().cache_misses, 1u);
  EXPECT_EQ(memory.stats().cache_hits, 0u);
  EXPECT_EQ(memory.stats().target_reads, 1u);
  EXPECT_EQ(memory.stats().target_bytes, kBlock);  // one block of pages per miss
  ASSERT_EQ(target_.reads.size(), 1u);
  EXPECT_EQ(target_.reads[0], std::make_pair(kBase, static_cast<size_t>(kBlock)));

  // Same page, then another page of the same block: no new target reads.
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + 200, 16));
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + kBlock - kPage + 3, 100));
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + 200, 16));
  EXPECT_EQ(memory.stats().cache_misses, 1u);
  EXPECT_EQ(memory.stats().cache_hits, 3u);
  EXPECT_EQ(target_.read_calls, 1u);

  // The next block is a new miss.
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + kBlock + 8, 8));
  EXPECT_EQ(memory.stats().cache_misses, 2u);
  EXPECT_EQ(memory.stats().target_reads, 2u);
  EXPECT_EQ(memory.stats().failed_reads, 0u);
}

TEST_F(MemoryTest, ReadSpanningPagesAndBlocks) {
  MapPattern(kBase, 4 * kBlock);
  RemoteMemory memory(target_);
  // Across a page boundary inside one block: one miss, one hit.
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + kPage - 5, 10));
  EXPECT_EQ(memory.stats().cache_misses, 1u);
  EXPECT_EQ(memory.stats().cache_hits, 1u);
  // Across a block boundary: the second block is fetched.
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + 2 * kBlock - 3, 6));
  EXPECT_EQ(memory.stats().cache_misses, 3u);
  EXPECT_EQ(memory.stats().target_reads, 3u);
  // Many pages at once.
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + 17, 3 * kBlock));
  EXPECT_EQ(memory.stats().target_reads, 4u);  // only the fourth block was new
}

TEST_F(MemoryTest, BlockFailingAtTheEndOfAMappingFallsBackToPages) {
  // Three pages mapped: the block around them cannot be read whole.
  MapPattern(kBase, 3 * kPage);
  RemoteMemory memory(target_);
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + 10, 8));
  EXPECT_EQ(memory.stats().failed_reads, 1u);  // the block
  EXPECT_EQ(memory.stats().target_reads, 2u);  // the block, then the page
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + kPage + 10, 8));
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + 2 * kPage + 10, kPage - 10));
  // The block was tried once; every later miss in it reads one page.
  EXPECT_EQ(ReadsOfSize(kBlock), 1u);
  EXPECT_EQ(ReadsOfSize(kPage), 3u);
  EXPECT_EQ(memory.stats().failed_reads, 1u);

  // Past the mapping: false, once from the target, then from the cache.
  uint8_t byte;
  EXPECT_FALSE(memory.Read(kBase + 3 * kPage, &byte, 1));
  EXPECT_EQ(memory.stats().failed_reads, 2u);
  EXPECT_EQ(ReadsOfSize(kBlock), 1u);
  const uint64_t calls = target_.read_calls;
  EXPECT_FALSE(memory.Read(kBase + 3 * kPage + 100, &byte, 1));
  EXPECT_EQ(target_.read_calls, calls);
  // A read starting in the mapping and running past its end fails as a whole.
  std::vector<uint8_t> out(32);
  EXPECT_FALSE(memory.Read(kBase + 3 * kPage - 16, out.data(), out.size()));
  EXPECT_EQ(target_.read_calls, calls);
  // And the pages that were readable still are.
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase, 3 * kPage));
  EXPECT_EQ(target_.read_calls, calls);
}

TEST_F(MemoryTest, PagesPastTheCacheBoundAreReadAgainRight) {
  // More pages than the cache keeps: it starts over (its arena's pages handed out again),
  // and every byte read is still the target's.
  const uint64_t pages = RemoteMemory::kMaxCachedPages + 700;
  MapPattern(kBase, pages * kPage);
  RemoteMemory memory(target_);
  for (uint64_t page = 0; page < pages; ++page) {
    ASSERT_TRUE(ReadsMatchPattern(memory, kBase + page * kPage + page % 97, 64)) << page;
  }
  EXPECT_LE(memory.CachedBytes(), RemoteMemory::kMaxCachedPages * kPage);
  const uint64_t calls = target_.read_calls;
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase, kPage));  // dropped: read again
  EXPECT_EQ(target_.read_calls, calls + 1);
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + (pages - 1) * kPage, kPage));  // still kept
  EXPECT_EQ(target_.read_calls, calls + 1);
}

TEST_F(MemoryTest, UnreadablePages) {
  MapPattern(kBase, kBlock);
  target_.Map(kBase + kBlock, kBlock, /*writable=*/false, /*readable=*/false);
  RemoteMemory memory(target_);
  uint64_t value;
  EXPECT_FALSE(memory.Read(kBase + kBlock + 64, &value, 8));
  EXPECT_FALSE(memory.ReadPointer(kBase + kBlock).has_value());
  EXPECT_FALSE(memory.ReadValue<uint32_t>(0x1000).has_value());  // unmapped
  EXPECT_FALSE(memory.ReadPointer(0).has_value());
  EXPECT_TRUE(memory.ReadPointer(kBase + kBlock - 8).has_value());
  EXPECT_FALSE(memory.ReadPointer(kBase + kBlock - 4).has_value());  // straddles into it
  EXPECT_GT(memory.stats().failed_reads, 0u);
  EXPECT_FALSE(memory.BudgetExhausted());
}

TEST_F(MemoryTest, WrapAroundAddressIsRefused) {
  RemoteMemory memory(target_);
  uint8_t out[16];
  EXPECT_FALSE(memory.Read(~uint64_t{0} - 3, out, sizeof out));
  EXPECT_FALSE(memory.Read(~uint64_t{0}, out, 2));
  EXPECT_FALSE(memory.ReadPointer(~uint64_t{0} - 6).has_value());
  EXPECT_EQ(target_.read_calls, 0u);
  EXPECT_FALSE(memory.Read(1, out, ~size_t{0}));  // a size that wraps
  EXPECT_EQ(target_.read_calls, 0u);
}

TEST_F(MemoryTest, EmptyReadNeedsNoTarget) {
  RemoteMemory memory(target_);
  EXPECT_TRUE(memory.Read(0xdead0000, nullptr, 0));
  EXPECT_EQ(target_.read_calls, 0u);
}

TEST_F(MemoryTest, ValuesAndPointers) {
  target_.Map(kBase, kPage);
  target_.PutU64(kBase + 8, 0x1122334455667788);
  target_.PutU32(kBase + 16, 0xcafef00d);
  RemoteMemory memory(target_);
  EXPECT_EQ(memory.ReadPointer(kBase + 8), 0x1122334455667788u);
  EXPECT_EQ(memory.ReadValue<uint32_t>(kBase + 16), 0xcafef00du);
  EXPECT_EQ(memory.ReadValue<uint16_t>(kBase + 9), 0x6677u);
}

TEST_F(MemoryTest, ClearForgetsThePages) {
  target_.Map(kBase, kBlock);
  target_.PutU64(kBase, 1);
  RemoteMemory memory(target_);
  EXPECT_EQ(memory.ReadPointer(kBase), 1u);
  target_.PutU64(kBase, 2);  // the target ran
  EXPECT_EQ(memory.ReadPointer(kBase), 1u);  // still the cached page
  memory.Clear();
  EXPECT_EQ(memory.ReadPointer(kBase), 2u);
  EXPECT_EQ(memory.stats().target_reads, 2u);
}

TEST_F(MemoryTest, UncachedReadsBypassTheCache) {
  MapPattern(kBase, kBlock);
  RemoteMemory memory(target_);
  std::vector<uint8_t> out(100);
  EXPECT_TRUE(memory.ReadUncached(kBase + 3, out.data(), out.size()));
  EXPECT_EQ(out[0], Pattern(kBase + 3));
  EXPECT_TRUE(memory.ReadUncached(kBase + 3, out.data(), out.size()));
  EXPECT_EQ(memory.stats().target_reads, 2u);
  EXPECT_EQ(memory.stats().target_bytes, 200u);
  EXPECT_EQ(memory.stats().cache_misses, 0u);
  EXPECT_FALSE(memory.ReadUncached(kBase + kBlock - 50, out.data(), out.size()));
  EXPECT_EQ(memory.stats().failed_reads, 1u);
}

TEST_F(MemoryTest, TinyBudgetIsExhaustedAtOnce) {
  MapPattern(kBase, kBlock);
  RemoteMemory memory(target_, /*byte_budget=*/100);
  uint64_t value;
  EXPECT_FALSE(memory.Read(kBase, &value, 8));
  EXPECT_TRUE(memory.BudgetExhausted());
  EXPECT_EQ(target_.read_calls, 0u);
  EXPECT_EQ(memory.stats().target_bytes, 0u);
}

TEST_F(MemoryTest, BudgetRunsOutAfterSomeReads) {
  MapPattern(kBase, 4 * kBlock);
  RemoteMemory memory(target_, /*byte_budget=*/kBlock);
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase, 8));
  EXPECT_FALSE(memory.BudgetExhausted());
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + kBlock - 8, 8));  // cached: free
  EXPECT_FALSE(memory.BudgetExhausted());
  uint64_t value;
  EXPECT_FALSE(memory.Read(kBase + kBlock, &value, 8));  // neither a block nor a page fits
  EXPECT_TRUE(memory.BudgetExhausted());
  EXPECT_EQ(target_.read_calls, 1u);
  EXPECT_LE(memory.stats().target_bytes, kBlock);
  // Uncached reads (scans) bound themselves: the read budget does not stop them.
  EXPECT_TRUE(memory.ReadUncached(kBase, &value, 8));
  EXPECT_EQ(target_.read_calls, 2u);
  EXPECT_EQ(memory.BudgetWarning(),
            "the read budget for one command ran out: output is incomplete...truncated");
}

// Cache hits are work too: a page read over and over costs its bytes every time.
TEST_F(MemoryTest, WorkBudgetCountsCacheHits) {
  MapPattern(kBase, kBlock);
  WorkBudget::Amounts limits = WorkBudget::kDefaultLimits;
  limits[static_cast<size_t>(Work::kBytesRead)] = 80;
  RemoteMemory memory(target_, kMaxBytesReadPerCommand, limits);
  uint64_t value;
  for (int i = 0; i < 10; ++i) EXPECT_TRUE(memory.Read(kBase, &value, 8)) << i;
  EXPECT_EQ(target_.read_calls, 1u);
  EXPECT_FALSE(memory.Read(kBase, &value, 8));  // the 81st byte
  EXPECT_FALSE(memory.BudgetExhausted());       // not the read budget
  EXPECT_EQ(memory.BudgetWarning(),
            "the work budget of one command ran out (more than 80 bytes read): output is "
            "incomplete...truncated");
  memory.budget().Reset();  // a new command
  EXPECT_TRUE(memory.Read(kBase, &value, 8));
  EXPECT_EQ(memory.BudgetWarning(), std::nullopt);
}

TEST(WorkBudget, OneKindRunningOutStopsEveryKind) {
  WorkBudget::Amounts limits = WorkBudget::kDefaultLimits;
  limits[static_cast<size_t>(Work::kFrames)] = 3;
  WorkBudget budget(limits);
  EXPECT_TRUE(budget.Spend(Work::kFrames, 3));
  EXPECT_EQ(budget.Spent(Work::kFrames), 3u);
  EXPECT_FALSE(budget.Exhausted());
  EXPECT_FALSE(budget.Spend(Work::kFrames, 1));
  EXPECT_FALSE(budget.Spend(Work::kBytesRead, 1));
  EXPECT_TRUE(budget.Exhausted());
  EXPECT_EQ(budget.Reason(), "the work budget of one command ran out (more than 3 frames "
                             "visited): output is incomplete...truncated");
  EXPECT_EQ(budget.StopError().kind, ErrorKind::kBudgetExhausted);
  EXPECT_EQ(budget.StopError().message, budget.Reason());
  // An amount that would overflow the count is refused, not wrapped.
  WorkBudget fresh;
  EXPECT_FALSE(fresh.Spend(Work::kLineTableEntries, ~uint64_t{0}));
}

// Ctrl-C: the poll is asked every kSpendsPerInterruptPoll spends, not at each; once it says
// yes every spend fails, whatever kind, until Reset.
TEST(WorkBudget, AnInterruptStopsEveryKindUntilReset) {
  WorkBudget budget;
  int polls = 0;
  bool stopped = false;
  budget.PollForInterrupt([&] {
    ++polls;
    return stopped;
  });
  for (uint32_t i = 0; i < 3 * WorkBudget::kSpendsPerInterruptPoll; ++i) {
    ASSERT_TRUE(budget.Spend(Work::kBytesRead, 1));
  }
  EXPECT_EQ(polls, 3);
  stopped = true;
  bool spent = true;
  for (uint32_t i = 0; i < WorkBudget::kSpendsPerInterruptPoll && spent; ++i) {
    spent = budget.Spend(Work::kFrames, 1);
  }
  EXPECT_FALSE(spent);
  EXPECT_TRUE(budget.Interrupted());
  EXPECT_TRUE(budget.Exhausted());
  EXPECT_FALSE(budget.Spend(Work::kContainerEntries, 1));
  EXPECT_EQ(budget.Reason(), "interrupted: output is incomplete...truncated");
  EXPECT_EQ(budget.StopError().kind, ErrorKind::kInterrupted);
  EXPECT_EQ(budget.StopError().message, budget.Reason());
  stopped = false;
  budget.Reset();
  EXPECT_FALSE(budget.Interrupted());
  EXPECT_TRUE(budget.Spend(Work::kFrames, 1));
}

// The page cache asks its target (Target::Interrupted): reads fail once it says yes.
TEST_F(MemoryTest, ReadsFailOnceTheTargetIsInterrupted) {
  MapPattern(kBase, 4 * kBlock);
  RemoteMemory memory(target_);
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase, 8));
  target_.interrupted = true;
  bool read = true;
  for (uint32_t i = 0; i <= WorkBudget::kSpendsPerInterruptPoll && read; ++i) {
    read = ReadsMatchPattern(memory, kBase, 8);
  }
  EXPECT_FALSE(read);
  EXPECT_TRUE(memory.budget().Interrupted());
  EXPECT_EQ(memory.BudgetWarning(), "interrupted: output is incomplete...truncated");
}

TEST_F(MemoryTest, BudgetCutsBlocksToPages) {
  // Room for one block and one page: the second miss cannot have its block
  // but still gets its page; the third gets nothing.
  MapPattern(kBase, 4 * kBlock);
  RemoteMemory memory(target_, /*byte_budget=*/kBlock + kPage);
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase, 8));
  EXPECT_TRUE(ReadsMatchPattern(memory, kBase + kBlock, 8));
  EXPECT_TRUE(memory.BudgetExhausted());  // the block was refused
  EXPECT_FALSE(ReadsMatchPattern(memory, kBase + kBlock + kPage, 8));
  EXPECT_EQ(memory.stats().target_bytes, kBlock + kPage);
  EXPECT_EQ(target_.read_calls, 2u);
}

// A target that asks for n pages per fetch gets the largest power of two up to
// n, at most kMaxPagesPerFetch.
class PagesPerFetchTarget : public FakeTarget {
 public:
  explicit PagesPerFetchTarget(uint64_t pages) : pages_(pages) {}
  uint64_t PagesPerFetch() const override { return pages_; }

 private:
  uint64_t pages_;
};

TEST(MemoryFetchSize, TheTargetSaysHowManyPagesAMissFetches) {
  for (const auto& [asked, fetched] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 1}, {1, 1}, {2, 2}, {3, 2}, {4, 4}, {16, 16}, {100, RemoteMemory::kMaxPagesPerFetch}}) {
    PagesPerFetchTarget target(asked);
    target.Map(kBase, 64 * kPage);
    RemoteMemory memory(target);
    uint64_t value = 0;
    ASSERT_TRUE(memory.Read(kBase + 5 * kPage + 8, &value, sizeof(value)));
    ASSERT_EQ(target.reads.size(), 1u) << "asked " << asked;
    const uint64_t block = fetched * kPage;
    EXPECT_EQ(target.reads[0], std::make_pair((kBase + 5 * kPage) / block * block,
                                              static_cast<size_t>(block)))
        << "asked " << asked;
  }
}

// At one page per fetch an unreadable page is asked of the target once, not
// once as a block and again as a page.
TEST(MemoryFetchSize, OnePagePerFetchReadsAnUnreadablePageOnce) {
  PagesPerFetchTarget target(1);
  target.Map(kBase, 4 * kPage);
  RemoteMemory memory(target);
  uint64_t value = 0;
  EXPECT_FALSE(memory.Read(kBase + 8 * kPage, &value, sizeof(value)));
  EXPECT_EQ(target.read_calls, 1u);
  EXPECT_EQ(memory.stats().failed_reads, 1u);
  ASSERT_TRUE(memory.Read(kBase + kPage, &value, sizeof(value)));
  EXPECT_EQ(target.read_calls, 2u);
}

}  // namespace
}  // namespace pyunwind
