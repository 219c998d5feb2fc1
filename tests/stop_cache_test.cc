// One read per stop (core/commands/stop_cache.h), over fixture cores read
// without a debugger: the second command at the same stop reads nothing from
// the target but one word (that the runtime is still there: a process killed
// under the debugger keeps its stop id) and prints the same; a new stop id (the process ran) or another
// process shows the target as it is now, never what was kept. The "process"
// is a Target that forwards to one core or another: switching it is the
// process moving on.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "core/commands/stop_cache.h"
#include "core/target/forwarding_target.h"
#include "tests/fixture_cores.h"
#include "tests/opened_core.h"

namespace pyunwind {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr char kThisFile[] = "tests/stop_cache_test.cc";

// Forwards to the target of the moment, counting its reads; Ctrl-C after a number of reads
// if told, from when on every read fails (as LLDB's and GDB's reads through the debugger do).
class MovingTarget final : public ForwardingTarget {
 public:
  explicit MovingTarget(Target* now) : ForwardingTarget(now) {}
  void MoveTo(Target* now) { ForwardTo(now); }
  uint64_t reads = 0;
  std::optional<uint64_t> interrupted_after_reads;

  bool ReadMemory(uint64_t address, void* out, size_t size) override {
    ++reads;
    return !Interrupted() && ForwardingTarget::ReadMemory(address, out, size);
  }
  bool Interrupted() override {
    return interrupted_after_reads && reads > *interrupted_after_reads;
  }
};

struct Debugger {
  FrameSelections selections;
  StopCache cache;

  CommandOutput Run(Target& target, const ProcessStop& stop, const std::string& name,
                    const std::vector<std::string>& args) {
    CommandContext context{target};
    return RunCommand(name, args, context, selections, cache, stop);
  }
};

Json ParseJson(const CommandOutput& output) {
  EXPECT_FALSE(output.failed) << output.text;
  return output.failed ? Json() : Json::parse(output.text);
}

// Every thread's frames (file, line, qualname), to compare runs.
Json Frames(const Json& doc) {
  Json frames = Json::array();
  for (const Json& interp : doc["interpreters"]) {
    for (const Json& thread : interp["threads"]) {
      for (const Json& frame : thread["frames"]) {
        frames.push_back({frame["filename"], frame["line"], frame["qualname"]});
      }
    }
  }
  return frames;
}

fs::path CoreDir(const std::string& version, const std::string& scenario) {
  const fs::path fixtures = testing::SharedFixtures(kThisFile);
  if (fixtures.empty()) return {};
  const fs::path dir = fixtures / "cores" / version / scenario;
  return fs::exists(dir / "core.xz") ? dir : fs::path();
}

TEST(StopCache, SecondCommandAtAStopReadsNothingAndANewStopReadsAgain) {
  const fs::path threads_dir = CoreDir("3.11.2", "threads");
  const fs::path locals_dir = CoreDir("3.11.2", "locals");
  if (threads_dir.empty() || locals_dir.empty()) {
    GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile, "cores/3.11.2/{threads,locals}/core.xz");
  }
  testing::OpenedCore threads(threads_dir, "stop_cache_threads");
  testing::OpenedCore locals(locals_dir, "stop_cache_locals");
  ASSERT_EQ(threads.error(), "");
  ASSERT_EQ(locals.error(), "");

  // What each core shows to a command that keeps nothing.
  CommandContext fresh_threads{threads.target()};
  const Json threads_alone = ParseJson(RunCommand("py-bt", {"--all", "--json"}, fresh_threads));
  CommandContext fresh_locals{locals.target()};
  const Json locals_alone = ParseJson(RunCommand("py-bt", {"--all", "--json"}, fresh_locals));
  ASSERT_NE(Frames(threads_alone), Frames(locals_alone));

  MovingTarget process(&threads.target());
  Debugger debugger;
  const std::vector<std::string> bt = {"--all", "--json", "--stats"};
  const ProcessStop first{4242, 1, 7};

  const Json one = ParseJson(debugger.Run(process, first, "py-bt", bt));
  EXPECT_GT(one["stats"]["target_reads"].get<uint64_t>(), 0u);
  EXPECT_FALSE(one["stats"]["session_kept"].get<bool>());
  EXPECT_EQ(Frames(one), Frames(threads_alone));

  // The same stop: nothing is read again but the liveness probe, the same frames are shown.
  const uint64_t reads_before = process.reads;
  const Json two = ParseJson(debugger.Run(process, first, "py-bt", bt));
  EXPECT_EQ(two["stats"]["target_reads"].get<uint64_t>(), 0u);
  EXPECT_TRUE(two["stats"]["session_kept"].get<bool>());
  EXPECT_EQ(Frames(two), Frames(threads_alone));
  // The commands that show one frame reuse it too (the threads core has no
  // selected thread here: they fail the same way without reading).
  debugger.Run(process, first, "py-list", {});
  debugger.Run(process, first, "py-locals", {});
  EXPECT_EQ(process.reads, reads_before + 1);
  // The text --stats says so (the words of docs/commands.md).
  const std::string text = debugger.Run(process, first, "py-bt", {"--all", "--stats"}).text;
  EXPECT_NE(text.find(" ms, reusing what an earlier command read at this stop\n"), std::string::npos)
      << text.substr(text.size() - std::min<size_t>(text.size(), 400));

  // The process ran and stopped elsewhere: a new stop id shows the new stack.
  process.MoveTo(&locals.target());
  const Json moved = ParseJson(debugger.Run(process, {4242, 1, 8}, "py-bt", bt));
  EXPECT_GT(moved["stats"]["target_reads"].get<uint64_t>(), 0u);
  EXPECT_FALSE(moved["stats"]["session_kept"].get<bool>());
  EXPECT_EQ(Frames(moved), Frames(locals_alone));

  // Another process (another target selected), even with the same stop id.
  process.MoveTo(&threads.target());
  const Json other = ParseJson(debugger.Run(process, {4242, 2, 8}, "py-bt", bt));
  EXPECT_FALSE(other["stats"]["session_kept"].get<bool>());
  EXPECT_EQ(Frames(other), Frames(threads_alone));
}

// A command stopped by Ctrl-C fails in one line and keeps nothing of the stop (its reads
// failed from then on, and the pages it could not read would be taken for unreadable): the
// next command at the same stop reads the target anew and shows every frame.
TEST(StopCache, AnInterruptedCommandKeepsNothing) {
  const fs::path dir = CoreDir("3.11.2", "threads");
  if (dir.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile, "cores/3.11.2/threads/core.xz");
  testing::OpenedCore core(dir, "stop_cache_interrupted");
  ASSERT_EQ(core.error(), "");
  CommandContext fresh{core.target()};
  const Json alone = ParseJson(RunCommand("py-bt", {"--all", "--json"}, fresh));

  MovingTarget process(&core.target());
  Debugger debugger;
  const ProcessStop stop{77, 1, 3};
  process.interrupted_after_reads = 40;
  const CommandOutput stopped = debugger.Run(process, stop, "py-bt", {"--all", "--json"});
  EXPECT_TRUE(stopped.failed);
  EXPECT_EQ(stopped.text, "pyunwind: interrupted\n");
  EXPECT_FALSE(debugger.cache.Holds(stop));

  process.interrupted_after_reads.reset();
  const Json again = ParseJson(debugger.Run(process, stop, "py-bt", {"--all", "--json", "--stats"}));
  EXPECT_FALSE(again["stats"]["session_kept"].get<bool>());
  EXPECT_EQ(Frames(again), Frames(alone));
}

// A target without Python is not searched again at the same stop (a core
// without executable would be scanned every time), and is at the next.
TEST(StopCache, NoRuntimeIsKeptForTheStop) {
  const fs::path dir = CoreDir("3.11.2", "threads");
  if (dir.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile, "cores/3.11.2/threads/core.xz");
  testing::OpenedCore core(dir, "stop_cache_no_runtime");
  ASSERT_EQ(core.error(), "");

  // The core's regions, all unreadable: no runtime is found in them.
  class Blank final : public Target {
   public:
    explicit Blank(Target& real) : real_(real) {}
    uint64_t reads = 0;
    bool ReadMemory(uint64_t, void*, size_t) override {
      ++reads;
      return false;
    }
    std::optional<uint64_t> FindSymbol(std::string_view) override { return std::nullopt; }
    std::vector<MemoryRegion> MemoryRegions() override { return real_.MemoryRegions(); }

   private:
    Target& real_;
  } blank(core.target());

  Debugger debugger;
  const CommandOutput first = debugger.Run(blank, {1, 1, 1}, "py-bt", {"--all"});
  ASSERT_TRUE(first.failed);
  const uint64_t reads = blank.reads;
  EXPECT_GT(reads, 0u);
  const CommandOutput again = debugger.Run(blank, {1, 1, 1}, "py-bt", {"--all"});
  EXPECT_EQ(again.text, first.text);
  EXPECT_EQ(blank.reads, reads);
  debugger.Run(blank, {1, 1, 2}, "py-bt", {"--all"});
  EXPECT_GT(blank.reads, reads);
}

// py-tasks on 3.14+ finds the _asyncio debug offsets by scanning writable
// memory in a core without binaries; the second py-tasks of the stop does not
// scan again (nor read anything but the liveness probe).
TEST(StopCache, AsyncioDebugOffsetsAreFoundOncePerStop) {
  const fs::path dir = CoreDir("3.14.7", "asyncio_tree");
  if (dir.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile, "cores/3.14.7/asyncio_tree/core.xz");
  testing::OpenedCore core(dir, "stop_cache_asyncio");
  ASSERT_EQ(core.error(), "");
  MovingTarget process(&core.target());
  Debugger debugger;
  const CommandOutput first = debugger.Run(process, {9, 1, 1}, "py-tasks", {"--json"});
  ASSERT_FALSE(first.failed) << first.text;
  const uint64_t reads = process.reads;
  const CommandOutput second = debugger.Run(process, {9, 1, 1}, "py-tasks", {"--json"});
  EXPECT_EQ(second.text, first.text);
  EXPECT_EQ(process.reads, reads + 1);  // the liveness probe
}

}  // namespace
}  // namespace pyunwind
