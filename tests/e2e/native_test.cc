// py-bt --native and the Python frame navigation (py-up, py-down, py-frame, py-list) on a
// live Debian 3.11 `threads` scenario (tests/data/threads.py), in LLDB and in GDB (batch mode):
//   * py-bt --all --native --json: every Python frame of the truth appears, in order, each
//     after an eval-loop native frame (only Python frames between them); and for every
//     thread of the truth, its native frames (index -> function) are exactly the frames of
//     the debugger's own plain backtrace of all threads (LLDB: `thread backtrace all` with
//     our own thread-format/frame-format; GDB: `thread apply all bt -no-filters`).
//   * py-up / py-down / py-frame / py-list on the main thread: the frames, the native
//     eval-loop frame selected after py-up, the "Newest Python frame reached" message.
#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/base/limits.h"
#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_sources.h"

namespace pyunwind_e2e {
namespace {

bool IsEvalLoop(const std::string& name) {
  return name == "_PyEval_EvalFrameDefault" || name.rfind("_PyEval_EvalFrameDefault.", 0) == 0 ||
         name.rfind("_TAIL_CALL_", 0) == 0;
}

// LLDB's thread and frame lines for `thread backtrace all`, in a format of our own, so that
// every thread header carries its OS thread id and every frame line its index and function
// (LLDB 14's default thread header has no tid). Set as thread-stop-format too, which
// `thread backtrace` uses for a thread with a stop reason. `${function.name}` and not
// `${function.name-without-args}`: LLDB 14 fails to format the latter for a function with
// debug-info arguments (e.g. libc's __GI___clock_nanosleep) and then falls back to its
// default frame line. `${function.name}` is what SBFrame::GetFunctionName gives for C
// functions, i.e. what lldb_plugin/native_frames.cc puts in the JSON `function` (except
// for a frame of inlined code at the top of the stack: see the comparison below). The
// optional scope `{...}` keeps a frame without any function or symbol on a pyu-frame line
// (empty name) instead of a default line.
const char* const kLldbThreadFormat = "pyu-thread tid=${thread.id%tid}\\n";
const char* const kLldbFrameFormat = "pyu-frame #${frame.index} {${function.name}}\\n";

// Function name of each frame (by index) of each thread (by OS thread id) of the
// debugger's own backtrace of all threads; a line the parser cannot account for goes into
// `errors` (so a format change is a failure, not frames silently missing).
struct Backtraces {
  std::map<uint64_t, std::map<int, std::string>> threads;
  std::vector<std::string> errors;
};

Backtraces ParseBacktraces(Debugger d, const std::string& out) {
  Backtraces bt;
  // LLDB: "* pyu-thread tid=123" / "  * pyu-frame #0 name" ('*' marks the selected ones).
  const std::regex lldb_thread(R"(^[ *]*pyu-thread tid=(\d+)\s*$)");
  const std::regex lldb_frame(R"(^[ *]*pyu-frame #(\d+) ?(.*?)\s*$)");
  // A frame line in LLDB's default format (our format failed for that frame).
  const std::regex lldb_default_frame(R"(^[ *]*frame #\d+:)");
  // GDB: `Thread 2 (Thread 0x7f... (LWP 123) "python3.11"):` (or "(process 123)" without
  // libthread_db), then "#0  0x... in name (args) at file:line", "#1  name (args) ..."
  // (inlined frames and frame 0 at a line boundary have no address), "#5  0x... in ?? ()".
  const std::regex gdb_thread(R"(^Thread \d+ \(.*\((?:LWP|process) (\d+)\))");
  const std::regex gdb_frame(R"(^#(\d+) +(?:0x[0-9a-f]+ in )?(\S.*?) \()");
  const std::regex gdb_any_frame(R"(^#\d+ )");
  std::map<int, std::string>* current = nullptr;
  std::istringstream lines(out);
  std::string line;
  std::smatch m;
  while (std::getline(lines, line)) {
    if (d == Debugger::kLldb) {
      if (line.rfind("(lldb) ", 0) == 0) {
        current = nullptr;  // the next command's output
      } else if (std::regex_search(line, m, lldb_thread)) {
        current = &bt.threads[std::stoull(m[1])];
      } else if (current && std::regex_search(line, m, lldb_frame)) {
        if (!current->emplace(std::stoi(m[1]), m[2]).second) bt.errors.push_back("duplicate frame: " + line);
      } else if (current && std::regex_search(line, lldb_default_frame)) {
        bt.errors.push_back("frame line not in our frame-format: " + line);
      }
    } else {
      if (std::regex_search(line, m, gdb_thread)) {
        current = &bt.threads[std::stoull(m[1])];
      } else if (std::regex_search(line, gdb_any_frame)) {
        if (!current) {
          bt.errors.push_back("frame line before any thread header: " + line);
        } else if (!std::regex_search(line, m, gdb_frame)) {
          bt.errors.push_back("unparsed frame line: " + line);
        } else {
          // GDB prints "??" for a frame without a name; pyunwind's native_frames callback
          // (gdb_bridge/script/pyunwind_gdb/session.py) sends `frame.name() or ""` for it,
          // which the JSON reports as a null/empty function (read as "" below).
          const std::string name = m[2] == "??" ? "" : m[2].str();
          if (!current->emplace(std::stoi(m[1]), name).second) bt.errors.push_back("duplicate frame: " + line);
        }
      }
    }
  }
  return bt;
}

std::string Describe(const std::map<int, std::string>& frames) {
  std::string s;
  for (const auto& [index, name] : frames) s += "  #" + std::to_string(index) + " " + name + "\n";
  return s;
}

// The live Debian 3.11 `threads` scenario, started once for the suite.
class Native : public SourceTest {};

TEST_P(Native, PyBtNativeInterleavesTheTruthAndTheDebuggersBacktrace) {
  const Debugger d = GetParam().debugger;
  std::vector<std::string> commands = {"py-bt --all --native --json"};
  if (d == Debugger::kLldb) {
    commands.push_back(std::string("settings set thread-format \"") + kLldbThreadFormat + "\"");
    commands.push_back(std::string("settings set thread-stop-format \"") + kLldbThreadFormat + "\"");
    commands.push_back(std::string("settings set frame-format \"") + kLldbFrameFormat + "\"");
    commands.push_back("thread backtrace all");
  } else {
    // -no-filters: GDB's plain backtrace, without pyunwind's frame filter (which decorates
    // the eval-loop frames with their Python frames).
    commands.push_back("thread apply all bt -no-filters");
  }
  RunResult run = RunDebugger(d, install(), target(), commands);
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::string error;
  auto doc = ExtractJson(run.out, &error);
  ASSERT_TRUE(doc) << error << "\n" << run.Describe();
  EXPECT_EQ(CompareWithTruth(truth(), *doc), "");
  const Backtraces bt = ParseBacktraces(d, run.out);
  EXPECT_TRUE(bt.errors.empty()) << ::testing::PrintToString(bt.errors) << "\n" << run.Describe();

  for (const json& truth_thread : truth().at("threads")) {
    const uint64_t id = truth_thread.at("native_id");
    SCOPED_TRACE("thread " + std::to_string(id) + " (" + truth_thread.at("role").get<std::string>() + ")");
    const json* thread = nullptr;
    for (const json& interp : doc->at("interpreters"))
      for (const json& t : interp.at("threads"))
        if (t.at("native_id") == id) thread = &t;
    ASSERT_NE(thread, nullptr);
    size_t next_truth = 0;
    bool after_eval_loop = false;
    std::map<int, std::string> natives;
    for (const json& frame : thread->at("frames")) {
      if (frame.at("kind") == "native") {
        const std::string function = frame.at("function").is_string() ? frame.at("function").get<std::string>() : "";
        after_eval_loop = IsEvalLoop(function);
        natives[frame.at("index").get<int>()] = function;
        continue;
      }
      EXPECT_TRUE(after_eval_loop) << "Python frame " << frame.dump() << " not after an eval-loop frame";
      ASSERT_LT(next_truth, truth_thread.at("frames").size()) << frame.dump();
      const json& want = truth_thread.at("frames")[next_truth++];
      EXPECT_EQ(frame.at("qualname"), want.at("qualname"));
      EXPECT_EQ(frame.at("line"), want.at("line"));
    }
    EXPECT_EQ(next_truth, truth_thread.at("frames").size());
    // The debugger's own backtrace of this thread, frame for frame: same indices, same
    // function names, exactly (no .cold/"()" normalisation: neither side has them), with
    // one LLDB-only exception. LLDB 14 formats a frame of code inlined at the top of the
    // stack with the name of the function it is inlined into (the next frame's), in every
    // function.* format variable and in its default format alike, e.g. the waiter thread's
    // "#0 __futex_abstimed_wait_common / #1 __futex_abstimed_wait_common"; SBFrame::
    // GetFunctionName (what py-bt reports) names the inlined function itself
    // (__futex_abstimed_wait_common64), as GDB's bt does. So, in LLDB only, where the
    // debugger's frame i has the same name as its frame i+1 and py-bt agrees on frame i+1,
    // py-bt's frame i may carry another (non-empty) name; anything else must be equal.
    auto it = bt.threads.find(id);
    ASSERT_NE(it, bt.threads.end()) << "no such thread in the debugger's backtrace\n" << run.Describe();
    std::map<int, std::string> expected = it->second;
    EXPECT_FALSE(expected.empty());
    if (d == Debugger::kLldb) {
      for (auto& [index, name] : expected) {
        auto caller = it->second.find(index + 1);
        auto mine = natives.find(index);
        auto my_caller = natives.find(index + 1);
        if (caller != it->second.end() && caller->second == name && mine != natives.end() &&
            !mine->second.empty() && my_caller != natives.end() && my_caller->second == name)
          name = mine->second;  // an inlined frame LLDB's text names by its container
      }
    }
    EXPECT_EQ(natives, expected) << "py-bt --native:\n"
                                 << Describe(natives) << "the debugger's backtrace:\n"
                                 << Describe(it->second);
  }
}

// The truth's main thread (threads.py: sleep_forever <- descend x7 <- ... <- <module>).
const json& MainThreadOf(const json& truth) {
  for (const json& thread : truth.at("threads")) {
    if (thread.at("is_main") == true) return thread;
  }
  throw std::runtime_error("the truth has no main thread");
}

// "NAME at FILE-BASENAME:LINE", as GDB's frame filter names a Python frame.
std::string FilterText(const json& frame) {
  const std::string filename = frame.at("filename");
  return frame.at("qualname").get<std::string>() + " at " +
         filename.substr(filename.rfind('/') + 1) + ":" + std::to_string(frame.at("line").get<int>());
}

// The main thread is stopped in time.sleep's C code: py-up 2 reaches frame 0, then frame 1.
TEST_P(Native, PyUpDownFrameList) {
  const Debugger d = GetParam().debugger;
  const std::string frame_info = d == Debugger::kLldb ? "frame info" : "info frame";
  const std::string select_main = d == Debugger::kLldb ? "thread select 1" : "thread 1";
  RunResult run = RunDebugger(d, install(), target(),
                              {select_main, "py-up 2", frame_info, "py-list", "py-up", "py-down",
                               "py-frame", "py-frame 0", "py-down"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  const json& frames = MainThreadOf(truth()).at("frames");
  auto header = [&](size_t n) {
    const json& f = frames.at(n);
    return "#" + std::to_string(n) + " File \"" + f.at("filename").get<std::string>() +
           "\", line " + std::to_string(f.at("line").get<int>()) + ", in " +
           f.at("name").get<std::string>();
  };
  const std::string f0 = header(0), f1 = header(1), f2 = header(2);
  const std::string& o = run.out;
  const size_t up1 = o.find(f1);
  ASSERT_NE(up1, std::string::npos) << f1 << "\n" << run.Describe();
  EXPECT_NE(o.find("sleep_forever()", up1), std::string::npos) << "the source line";
  const size_t info = o.find("_PyEval_EvalFrameDefault", up1);
  EXPECT_NE(info, std::string::npos) << "the eval-loop frame is selected after py-up\n" << run.Describe();
  const size_t up2 = o.find(f2, up1);
  ASSERT_NE(up2, std::string::npos) << run.Describe();
  const size_t down = o.find(f1, up2);
  ASSERT_NE(down, std::string::npos) << run.Describe();
  const size_t shown = o.find(f1, down + 1);
  ASSERT_NE(shown, std::string::npos) << "py-frame shows the selection\n" << run.Describe();
  const size_t zero = o.find(f0, shown);
  ASSERT_NE(zero, std::string::npos) << run.Describe();
  EXPECT_NE(o.find("Newest Python frame reached", zero), std::string::npos) << run.Describe();
  // py-list marks the selected line (frame 1's) with '>'.
  EXPECT_NE(o.find(">" + std::to_string(frames.at(1).at("line").get<int>()), up1), std::string::npos)
      << "py-list around frame 1's line\n" << run.Describe();
}

// GDB's frame filter, installed by pyunwind-gdb.py: plain `bt` names the Python frames each
// eval-loop frame runs. LLDB 14's SB API has no frame filter (lldb_plugin/README.md).
TEST_P(Native, PlainBtShowsThePythonFramesOfEachEvalLoopFrame) {
  const Debugger d = GetParam().debugger;
  if (d != Debugger::kGdb) GTEST_SKIP() << "LLDB 14 has no frame filter API; py-bt --native instead";
  RunResult run = RunDebugger(d, install(), target(), {"thread 1", "bt"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  // The main thread: sleep_forever <- descend x7 <- ... <- <module>, all in one eval loop.
  const json& frames = MainThreadOf(truth()).at("frames");
  const std::string innermost = "_PyEval_EvalFrameDefault [Python: " + FilterText(frames.at(0)) +
                                ", " + FilterText(frames.at(1)) + ", " + FilterText(frames.at(2)) + ", ";
  EXPECT_NE(run.out.find(innermost), std::string::npos) << innermost << "\n" << run.Describe();
  // The first kMaxPythonFramesPerNativeFrame are named, the rest counted (core/base/limits.h).
  const size_t named = std::min<size_t>(frames.size(), pyunwind::kMaxPythonFramesPerNativeFrame);
  const std::string outermost =
      frames.size() > named
          ? ", " + FilterText(frames.at(named - 1)) + " and " +
                std::to_string(frames.size() - named) + " more] ("
          : ", " + FilterText(frames.back()) + "] (";
  EXPECT_NE(run.out.find(outermost), std::string::npos) << outermost << "\n" << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(Threads311, Native,
                         ::testing::Values(SourceCase{"threads", "debian_3_11", true, Debugger::kLldb},
                                           SourceCase{"threads", "debian_3_11", true, Debugger::kGdb}),
                         SourceCaseName);

}  // namespace
}  // namespace pyunwind_e2e
