// py-heap's totals against memory (core/heap/memory_totals.h) and their line and JSON
// (core/render/heap_format.h), on a target that lists given regions: only the readable,
// writable ones naming no file (or [heap]) count; with none listed, the line and JSON say why
// in the target's words (a remote stub's), or in a generic one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/heap/heap_census.h"
#include "core/heap/memory_totals.h"
#include "core/render/heap_format.h"
#include "core/target/forwarding_target.h"

namespace pyunwind {
namespace {

class Regions final : public ForwardingTarget {
 public:
  Regions(std::vector<MemoryRegion> regions, std::string why)
      : regions_(std::move(regions)), why_(std::move(why)) {}
  std::vector<MemoryRegion> MemoryRegions() override { return regions_; }
  std::string WhyNoMemoryRegions() override { return why_; }

 private:
  std::vector<MemoryRegion> regions_;
  std::string why_;
};

constexpr uint64_t kMiB = 1 << 20;

TEST(HeapMemory, CountsTheWritableAnonymousRegionsOnly) {
  Regions target({{0x10000000, 0x10000000 + 4 * kMiB, true, true, ""},
                  {0x20000000, 0x20000000 + 2 * kMiB, true, true, "[heap]"},
                  {0x30000000, 0x30000000 + 8 * kMiB, true, true, "[stack]"},
                  {0x40000000, 0x40000000 + 1 * kMiB, true, true, "/usr/lib/libc.so.6"},
                  {0x50000000, 0x50000000 + 16 * kMiB, true, false, ""},
                  {0x60000000, 0x60000000 + 32 * kMiB, false, true, ""}},
                 "");
  const MemoryTotals memory = WritableAnonymousMemory(target);
  ASSERT_TRUE(memory.writable_anonymous_bytes.has_value());
  EXPECT_EQ(*memory.writable_anonymous_bytes, 6 * kMiB);
  EXPECT_EQ(memory.regions, 2u);
  HeapCensus census;
  census.bytes = 2 * kMiB;
  census.through_containers_bytes = kMiB;
  const HeapView view{&census, {}, 0, &memory};
  const std::string text = FormatHeapText(view);
  EXPECT_NE(text.find("\ncensus: 3.0 MiB of 6.0 MiB in writable anonymous mappings (50.0 %)\n"),
            std::string::npos)
      << text;
  const std::string json = FormatHeapJson(view);
  EXPECT_NE(json.find("\"memory\":{\"writable_anonymous_bytes\":6291456,\"regions\":2,"
                      "\"census_bytes\":3145728,\"census_percent\":50.000,"
                      "\"unknown_reason\":null}"),
            std::string::npos)
      << json;
}

TEST(HeapMemory, SaysWhyWithoutRegions) {
  for (const std::string& why : {std::string("this stub lists none"), std::string()}) {
    Regions target({}, why);
    const MemoryTotals memory = WritableAnonymousMemory(target);
    EXPECT_FALSE(memory.writable_anonymous_bytes.has_value());
    const std::string reason =
        why.empty() ? "the debugger lists no memory regions of this target" : why;
    HeapCensus census;
    census.bytes = kMiB;
    const HeapView view{&census, {}, 0, &memory};
    const std::string text = FormatHeapText(view);
    EXPECT_NE(text.find("\ncensus: 1.0 MiB; the writable anonymous mappings are not known: " +
                        reason + "\n"),
              std::string::npos)
        << text;
    const std::string json = FormatHeapJson(view);
    EXPECT_NE(json.find("\"writable_anonymous_bytes\":null,\"regions\":0,\"census_bytes\":1048576,"
                        "\"census_percent\":null,\"unknown_reason\":\"" +
                        reason + "\"}"),
              std::string::npos)
        << json;
  }
}

}  // namespace
}  // namespace pyunwind
