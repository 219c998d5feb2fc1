// The _asyncio debug offsets (3.14+) are taken only when they agree with what
// the target's _Py_DebugOffsets state: each tripwire below refuses a block.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/asyncio/asyncio_debug.h"

namespace pyunwind {
namespace {

// The block of CPython 3.15.2's default build, as its core holds it.
std::vector<uint64_t> Block315() {
  return {168, 136, 96, 108, 109, 128, 152, 226240, 10856, 1104, 1024, 1032, 1048};
}

Layout Layout315() {
  Layout l;
  l.interp.size = 226240;
  l.tstate.size = 1000;
  l.object.ob_type = 8;
  return l;
}

Result<AsyncioDebugOffsets> Decode(const std::vector<uint64_t>& block, const Layout& layout) {
  std::vector<uint8_t> bytes(kAsyncioDebugSize);
  std::memcpy(bytes.data(), block.data(), kAsyncioDebugSize);
  return DecodeAsyncioDebug(bytes.data(), layout);
}

TEST(AsyncioDebug, RealBlockIsRead) {
  auto o = Decode(Block315(), Layout315());
  ASSERT_TRUE(o.ok()) << o.error().message;
  EXPECT_EQ(o->task_name, 136u);
  EXPECT_EQ(o->task_coro, 128u);
  EXPECT_EQ(o->task_node, 152u);
  EXPECT_EQ(o->interp_tasks_head, 10856u);
  EXPECT_EQ(o->thread_running_task, 1032u);
  EXPECT_EQ(o->thread_tasks_head, 1048u);
}

TEST(AsyncioDebug, InterpreterSizeMustMatchDebugOffsets) {
  Layout l = Layout315();
  l.interp.size = 225864;  // 3.14's: a block of another build
  auto o = Decode(Block315(), l);
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message,
            "its interpreter state is 226240 bytes where _Py_DebugOffsets says 225864");
}

TEST(AsyncioDebug, ThreadStateMustHoldPyThreadState) {
  Layout l = Layout315();
  l.tstate.size = 2000;
  auto o = Decode(Block315(), l);
  ASSERT_FALSE(o.ok());
  EXPECT_NE(o.error().message.find("smaller than PyThreadState"), std::string::npos)
      << o.error().message;
}

TEST(AsyncioDebug, OffsetsMustLieInsideTheirStruct) {
  std::vector<uint64_t> block = Block315();
  block[5] = 168;  // coro at the end of a 168-byte task
  auto o = Decode(block, Layout315());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message, "the task coro at 168 lies outside its 168-byte struct");

  block = Block315();
  block[1] = 8;  // name inside the object header
  o = Decode(block, Layout315());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message, "the task name at 8 lies outside its 168-byte struct");

  block = Block315();
  block[12] = 1100;  // tasks_head (16 bytes) past the 1104-byte thread state
  o = Decode(block, Layout315());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message, "the thread tasks_head at 1100 lies outside its 1104-byte struct");
}

TEST(AsyncioDebug, ImplausibleTaskSizeIsRefused) {
  std::vector<uint64_t> block = Block315();
  block[0] = 1 << 20;
  auto o = Decode(block, Layout315());
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.error().message, "a task of 1048576 bytes is not plausible");
}

}  // namespace
}  // namespace pyunwind
