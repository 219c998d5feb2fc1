// The thread header: tests/data/thread_states.py parks named threads (non-ASCII and
// control characters among the names; one renames its OS thread), threads in known waits
// (Lock.acquire, time.sleep, select, socket.recv, Event.wait) and one busy loop, threads
// inside `except` blocks with distinct exception types and messages, a _DummyThread, a thread
// threading never saw, and one thread inside gc.collect() -> __del__ -> time.sleep while the
// busy one holds the GIL. `py-bt --all --json` must give, for every thread, what the process
// recorded from inside: the threading name (`name`), the OS name (`os_name`: live, the
// thread's /proc comm; null from a gcore core, whose notes name no thread), `activity`, the
// handled exception's type and message (none for OSError, whose own __str__ is not rebuilt),
// and status "gc" with a frame of kind "gc" first
// exactly on the collecting thread. `py-bt --all` text shows the header and the <GC> line.
// In {LLDB, GDB} x {live, gcore core with its executable} on Debian's 3.11 and pyenv's
// 3.11.7, 3.12.1, 3.13.0, Debian unstable's 3.14 and 3.15 and the free-threaded 3.13t built from
// Debian's source (not on CI) where installed (one scenario process and one core per
// interpreter; the stripped 3.14/3.15 tell activity and the collector from their Python frames).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

// The thread's native frames, innermost first: what decided its activity.
std::string NativeFunctions(const json& thread) {
  std::string out = "native frames:";
  for (const json& frame : thread.at("frames")) {
    if (frame.at("kind") == "native") out += "\n  " + frame.value("function", std::string("?"));
  }
  return out;
}

class ThreadStates : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start("tests/data/thread_states.py"); }
};

TEST_P(ThreadStates, HeaderFieldsMatchTruth) {
  const MatrixCell& cell = GetParam();
  std::string error;
  const json& truth = scenario_->truth();
  ASSERT_EQ(truth.at("threads").size(), 15u) << truth.dump(1);

  // --native: idle/running is decided from the native stack where the debugger gives one
  // (without it, from the Python frames only: GDB unwinds a thread in tens of ms).
  const RunResult run = RunDebugger(cell.debugger, *install_, target_,
                                    {"py-bt --all --json --native", "py-bt --all --native"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  const auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got.has_value()) << error << "\n" << run.Describe();

  const std::map<uint64_t, json> threads = ThreadsByNativeId(*got);
  const bool free_threaded = truth.at("python").at("free_threaded");
  for (const json& want : truth.at("threads")) {
    const uint64_t native_id = want.at("native_id");
    const std::string role = want.at("role");
    SCOPED_TRACE("thread " + std::to_string(native_id) + " (" + role + ")");
    auto found = threads.find(native_id);
    if (found == threads.end()) {
      ADD_FAILURE() << "missing";
      continue;
    }
    const json& thread = found->second;
    EXPECT_EQ(thread.at("name"), want.at("name"));
    EXPECT_EQ(thread.at("os_name"), cell.live ? want.at("os_name") : json(nullptr));
    EXPECT_EQ(thread.at("activity"), want.at("activity")) << NativeFunctions(thread);
    // The busy loop is the one runnable thread: it holds the GIL (a free-threaded build has
    // none: null).
    EXPECT_EQ(thread.at("holds_gil"), free_threaded ? json(nullptr) : json(role == "busy"));
    EXPECT_EQ(thread.at("exception"), want.at("exception"));
    if (role == "exc_os") {
      // OSError's own __str__ ("[Errno 2] No such file") is not rebuilt: no message.
      EXPECT_EQ(want.at("exception_message"), "[Errno 2] No such file");
      EXPECT_EQ(thread.at("exception_message"), json(nullptr));
    } else {
      EXPECT_EQ(thread.at("exception_message"), want.at("exception_message"));
    }
    EXPECT_EQ(thread.at("exception_state"), want.at("exception").is_null() ? "none" : "handled");
    const bool gc = want.at("gc");
    EXPECT_EQ(HasStatus(thread, "gc"), gc) << thread.at("status");
    json frames = json::array();
    for (const json& frame : thread.at("frames")) {
      if (frame.at("kind") != "native") frames.push_back(frame);
    }
    ASSERT_FALSE(frames.empty());
    EXPECT_EQ(frames[0].at("kind") == "gc", gc) << frames[0];
    if (gc) {
      // Below <GC>: the finalizer, then the function that called gc.collect().
      ASSERT_GE(frames.size(), 4u);
      EXPECT_EQ(frames[2].at("qualname"), "Finalizer.__del__");
      EXPECT_EQ(frames[3].at("qualname"), "collector");
    }
  }

  // The text: each header names the thread (escaped), says idle/running, the handled
  // exception with its message; the collecting thread's traceback starts with <GC>.
  const std::string& text = run.out;
  for (const json& want : truth.at("threads")) {
    const std::string id = std::to_string(want.at("native_id").get<uint64_t>());
    const std::string role = want.at("role");
    std::string header;
    for (const std::string& line : LinesContaining(text, "Thread " + id)) {
      if (line.rfind("Thread " + id + " ", 0) == 0 || line.rfind("Thread " + id + ":", 0) == 0) {
        header = line;
      }
    }
    ASSERT_FALSE(header.empty()) << "no header for " << role << " in\n" << text;
    EXPECT_NE(header.find("(" + want.at("activity").get<std::string>()), std::string::npos) << header;
    if (role == "sleep") {
      EXPECT_NE(header.find("\"tab\\there\\x1b[31mred\\nline\""), std::string::npos) << header;
    }
    if (role == "lock") {
      EXPECT_NE(header.find("\"wörker-名前-😀\""), std::string::npos) << header;
    }
    if (role == "raw" && cell.live) {
      EXPECT_NE(header.find("[os \"" + want.at("os_name").get<std::string>() + "\"]"),
                std::string::npos) << header;
    }
    if (role == "exc_value") {
      EXPECT_NE(header.find("handling ValueError: \"bad value 42\""), std::string::npos) << header;
    }
    if (role == "gc") {
      EXPECT_NE(header.find("collecting garbage"), std::string::npos) << header;
      // Its Python traceback (native lines "  #N ..." left out) starts with <GC>.
      const std::string below = "\nTraceback (most recent call first):\n  <GC>\n  File ";
      const size_t at = text.find(header);
      std::string python_lines;
      size_t line_start = at + header.size();
      while (line_start < text.size() && python_lines.size() < 4096) {
        const size_t end = text.find('\n', line_start + 1);
        const std::string line = text.substr(line_start, end - line_start);
        if (line.rfind("\n  #", 0) != 0) python_lines += line;
        if (end == std::string::npos) break;
        line_start = end;
      }
      EXPECT_EQ(python_lines.substr(0, below.size()), below) << text.substr(at, 600);
    }
  }
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << "a raw escape reached the output";
}

// Cores with their executable: without it GDB has no symbols for a core's native frames, and
// `activity` is decided from them.
INSTANTIATE_TEST_SUITE_P(Interpreters, ThreadStates,
                         ::testing::ValuesIn(MatrixCells({"debian_3.11", "3.11.7", "3.12.1",
                                                          "3.13.0", "sid_3.14", "sid_3.15"},
                                                         Cores::kWithExecutable)),
                         MatrixCellName);
// A suite of its own, so that the other suite's scenarios (each with a busy thread) are gone
// when it starts: 3.13.5t spins on sched_yield() in its locks (1,760 calls to start), and beside
// six busy loops on 2 cores one start took 12.6 s (3.11: 0.12 s) and the scenario's truth 80 s.
INSTANTIATE_TEST_SUITE_P(FreeThreaded, ThreadStates,
                         ::testing::ValuesIn(MatrixCells({"built_3.13t"}, Cores::kWithExecutable)),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e
