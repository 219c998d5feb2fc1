// Entry frames (Frame::is_entry) on every threads fixture core, read without a
// debugger: 3.11 from _PyInterpreterFrame.is_entry, 3.12+ from the C-stack
// shim frames. In the threads scenario the reentry thread's leaf, step and key
// are each called from C (map, functools.reduce, sorted), the main thread runs
// everything below <module> by Python-to-Python calls, and the outermost frame
// of every thread is an entry. Then the merge of native and Python frames.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <deque>
#include <string>
#include <vector>

#include "core/walk/code_objects.h"
#include "core/target/memory.h"
#include "core/commands/native.h"
#include "core/objects/objects.h"
#include "core/runtime/runtime_locator.h"
#include "core/walk/threads.h"
#include "tests/fixture_cores.h"
#include "tests/opened_core.h"

namespace pyunwind {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr char kThisFile[] = "tests/native_core_test.cc";

std::vector<fs::path> ThreadsCores() {
  std::vector<fs::path> dirs;
  const std::string layouts = testing::FixtureLayoutsDir(kThisFile);
  if (layouts.empty()) return dirs;
  const fs::path cores = fs::path(layouts).parent_path() / "cores";
  std::error_code ec;
  if (!fs::is_directory(cores, ec)) return dirs;
  for (const auto& version : fs::directory_iterator(cores)) {
    if (fs::exists(version.path() / "threads" / "core.xz")) dirs.push_back(version.path() / "threads");
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::vector<std::string> EntryNames(const Thread& thread) {
  std::vector<std::string> names;
  for (const Frame& f : thread.frames) {
    if (f.is_entry) names.push_back(f.qualname());
  }
  return names;
}

TEST(EntryFrames, EveryThreadsFixtureCore) {
  const std::vector<fs::path> dirs = ThreadsCores();
  if (dirs.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  for (const fs::path& dir : dirs) {
    SCOPED_TRACE(dir.string());
    testing::OpenedCore core(dir, "native_core_test");
    ASSERT_EQ(core.error(), "");
    const Json& truth = core.truth();
    ASSERT_FALSE(truth.is_null()) << "no truth.json in " << dir;
    RemoteMemory memory(core.target());
    auto location = LocateRuntime(memory);
    ASSERT_TRUE(location.ok()) << location.error().message;
    ObjectReader objects(memory, location->layout);
    CodeCache codes(objects);
    auto snapshot = WalkRuntime(objects, codes, location->address, WalkOptions{});
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;

    int checked = 0;
    for (const Json& truth_thread : truth.at("threads")) {
      const std::string role = truth_thread.at("role");
      const uint64_t native_id = truth_thread.at("native_id");
      const Thread* thread = nullptr;
      for (const Interpreter& interp : snapshot->interpreters) {
        for (const Thread& t : interp.threads) {
          if (t.native_id == native_id) thread = &t;
        }
      }
      ASSERT_NE(thread, nullptr) << role;
      if (thread->frames.empty()) continue;
      EXPECT_TRUE(thread->frames.back().is_entry) << role << ": the outermost frame";
      EXPECT_FALSE(thread->frames.front().is_entry && thread->frames.size() > 1 &&
                   thread->frames.front().qualname() == "park_forever")
          << role << ": park_forever is called from Python";
      const std::vector<std::string> entries = EntryNames(*thread);
      if (role == "main") {
        EXPECT_EQ(entries, std::vector<std::string>{"<module>"});
        ++checked;
      } else if (role == "reentry") {
        for (const char* name : {"leaf", "step", "key"}) {
          EXPECT_NE(std::find(entries.begin(), entries.end(), name), entries.end())
              << "reentry: " << name << " is called from C";
        }
        EXPECT_EQ(std::count(entries.begin(), entries.end(), "park_forever"), 0);
        ++checked;
      }
    }
    EXPECT_EQ(checked, 2);
  }
}

Frame Py(const std::string& name, bool entry) {
  static auto* names = new std::deque<CodeNames>();  // what the frames point to, kept
  Frame f;
  f.code_names = &names->emplace_back(CodeNames{"", name, name});
  f.is_entry = entry;
  return f;
}

std::vector<std::string> Names(const MergedStack& m) {
  std::vector<std::string> names;
  for (const Frame& f : m.frames) names.push_back(f.kind == FrameKind::kNative ? "#" + f.native->function : f.qualname());
  return names;
}

TEST(MergeNativeFrames, EachEvalLoopRunsItsFramesUpToTheEntry) {
  const std::vector<Frame> python = {Py("leaf", true), Py("step", false), Py("key", true),
                                     Py("main", true)};
  const std::vector<NativeFrame> native = {
      {0x10, "clock_nanosleep", "libc.so.6"},       {0x20, "_PyEval_EvalFrameDefault", "python"},
      {0x30, "map_next", "python"},                 {0x40, "_PyEval_EvalFrameDefault", "python"},
      {0x50, "_TAIL_CALL_CALL_PY_EXACT_ARGS", "py"}, {0x60, "_PyEval_EvalFrameDefault", "python"},
      {0x70, "main", "python"}};
  const MergedStack merged = MergeNativeFrames(python, native);
  EXPECT_EQ(Names(merged),
            (std::vector<std::string>{"#clock_nanosleep", "#_PyEval_EvalFrameDefault", "leaf",
                                      "#map_next", "#_PyEval_EvalFrameDefault", "step", "key",
                                      "#_TAIL_CALL_CALL_PY_EXACT_ARGS", "main",
                                      "#_PyEval_EvalFrameDefault", "#main"}));
  ASSERT_EQ(merged.native_of_python.size(), 4u);
  EXPECT_EQ(merged.native_of_python[0], 1u);
  EXPECT_EQ(merged.native_of_python[1], 3u);
  EXPECT_EQ(merged.native_of_python[2], 3u);
  EXPECT_EQ(merged.native_of_python[3], 4u);
  EXPECT_EQ(merged.frames[0].native_index, 0u);
  EXPECT_EQ(merged.frames[0].native->pc, 0x10u);
}

TEST(MergeNativeFrames, LeftoverPythonFramesComeLast) {
  const MergedStack merged = MergeNativeFrames({Py("a", false), Py("b", true)}, {{1, "start", ""}});
  EXPECT_EQ(Names(merged), (std::vector<std::string>{"#start", "a", "b"}));
  EXPECT_FALSE(merged.native_of_python[0].has_value());
}

// 2.7's loop is PyEval_EvalFrameEx; 3.x keeps a PyEval_EvalFrameEx (a C API entry that
// calls _PyEval_EvalFrameDefault), which then runs no frame of its own.
TEST(MergeNativeFrames, Python2EvalLoopOnlyOnAStackWithoutTheDefault) {
  const std::vector<NativeFrame> python2 = {{0x10, "sem_wait", "libc.so.6"},
                                            {0x20, "PyEval_EvalFrameEx", "python2.7"},
                                            {0x30, "PyEval_EvalFrameEx.cold", "python2.7"},
                                            {0x40, "main", "python2.7"}};
  EXPECT_EQ(Names(MergeNativeFrames({Py("leaf", true), Py("main", true)}, python2)),
            (std::vector<std::string>{"#sem_wait", "#PyEval_EvalFrameEx", "leaf",
                                      "#PyEval_EvalFrameEx.cold", "main", "#main"}));
  const std::vector<NativeFrame> python3 = {{0x10, "_PyEval_EvalFrameDefault", "python3"},
                                            {0x20, "PyEval_EvalFrameEx", "python3"},
                                            {0x30, "main", "python3"}};
  EXPECT_EQ(Names(MergeNativeFrames({Py("leaf", true), Py("main", true)}, python3)),
            (std::vector<std::string>{"#_PyEval_EvalFrameDefault", "leaf",
                                      "#PyEval_EvalFrameEx", "#main", "main"}));
}

TEST(IsEvalLoopFunction, Names) {
  EXPECT_TRUE(IsEvalLoopFunction("_PyEval_EvalFrameDefault"));
  EXPECT_TRUE(IsEvalLoopFunction("_PyEval_EvalFrameDefault.cold"));
  EXPECT_TRUE(IsEvalLoopFunction("_TAIL_CALL_LOAD_FAST"));
  EXPECT_FALSE(IsEvalLoopFunction("_PyEval_EvalFrameDefaultX"));
  EXPECT_FALSE(IsEvalLoopFunction("_PyEval_EvalFrame"));
  EXPECT_FALSE(IsEvalLoopFunction(""));
}

}  // namespace
}  // namespace pyunwind
