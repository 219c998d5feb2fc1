// One read per stop, in the real debuggers on a live process (tests/data/moving_stack.py):
// py-bt twice at a stop (the second reads nothing: --stats), then the process is told to move
// on, continues to a breakpoint on getppid in another function, and py-bt, py-up, py-list and
// py-bt again show the new stack, never the one kept from the first stop. In GDB, plain `bt`
// at the second stop decorates the new stack and leaves what it read to the next py-bt.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

constexpr char kMarker[] = "=== stop cache step ===";

// The Python frames of a py-bt --json document's first thread, as the truth lists them.
json PythonFrames(const json& doc) {
  json frames = json::array();
  for (const json& interp : doc.at("interpreters")) {
    for (const json& thread : interp.at("threads")) {
      for (const json& frame : thread.at("frames")) {
        if (frame.value("kind", "python") != "python") continue;
        frames.push_back({frame.at("filename"), frame.at("line"), frame.at("qualname")});
      }
      return frames;
    }
  }
  return frames;
}

json TruthFrames(const json& stack) {
  json frames = json::array();
  for (const json& frame : stack) {
    frames.push_back({frame.at("filename"), frame.at("line"), frame.at("qualname")});
  }
  return frames;
}

// The output between marker lines (a line that is the marker alone: LLDB also echoes the
// command that prints it): part i follows the i-th.
std::vector<std::string> Parts(const std::string& out) {
  std::vector<std::string> parts;
  bool started = false;
  size_t pos = 0;
  while (pos < out.size()) {
    size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    const std::string line = out.substr(pos, end - pos);
    if (line == kMarker) {
      parts.emplace_back();
      started = true;
    } else if (started) {
      parts.back() += line + "\n";
    }
    pos = end + 1;
  }
  if (!parts.empty()) parts.pop_back();  // after the last marker
  return parts;
}

class StopCache : public ::testing::TestWithParam<Debugger> {};

TEST_P(StopCache, ANewStopShowsTheNewStackAndTheSameStopReadsNothing) {
  const Debugger d = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  auto scenario =
      Scenario::StartScript(kDebianPython, ProjectFile("tests/data/moving_stack.py"), &error);
  ASSERT_NE(scenario, nullptr) << error;
  const std::string pid = std::to_string(scenario->pid());
  const bool lldb = d == Debugger::kLldb;
  const std::string marker =
      lldb ? std::string("platform shell echo ") + kMarker : std::string("echo ") + kMarker + "\\n";

  std::vector<std::string> commands = {
      marker, "py-bt --json --stats",
      marker, "py-bt --json --stats",
      marker, lldb ? "breakpoint set -n getppid" : "break getppid",
      lldb ? "platform shell kill -USR1 " + pid : "shell kill -USR1 " + pid,
      lldb ? "process continue" : "continue",
  };
  if (!lldb) commands.insert(commands.end(), {marker, "bt"});
  commands.insert(commands.end(), {marker, "py-bt --json --stats", marker, "py-up 2", marker,
                                   "py-list", marker, "py-bt --json --stats", marker});
  const RunResult run = RunDebugger(d, *install, {scenario->pid(), "", ""}, commands);
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::vector<std::string> parts = Parts(run.out);
  // GDB's `bt` part, then the parts both debuggers have.
  std::string bt;
  if (!lldb && parts.size() > 3) {
    bt = parts[3];
    parts.erase(parts.begin() + 3);
  }
  ASSERT_EQ(parts.size(), 7u) << run.Describe();

  const json& truth = scenario->truth();
  const json second = json::parse(ReadFile(truth.at("second_truth").get<std::string>())).at("second");
  const json first_frames = TruthFrames(truth.at("first"));
  const json second_frames = TruthFrames(second);

  auto py_bt = [&](size_t part) {
    std::string why;
    auto doc = ExtractJson(parts[part], &why);
    EXPECT_TRUE(doc.has_value()) << "part " << part << ": " << why << "\n" << parts[part];
    return doc.value_or(json::object());
  };
  auto stats = [](const json& doc) { return doc.value("stats", json::object()); };

  // The first stop, twice: the second command reads nothing and shows the same.
  const json one = py_bt(0), two = py_bt(1);
  EXPECT_EQ(PythonFrames(one), first_frames);
  EXPECT_GT(stats(one).value("target_reads", 0), 0);
  EXPECT_FALSE(stats(one).value("session_kept", true));
  EXPECT_EQ(PythonFrames(two), first_frames);
  EXPECT_EQ(stats(two).value("target_reads", -1), 0);
  EXPECT_TRUE(stats(two).value("session_kept", false));

  // The process ran to the breakpoint: the new stack, read anew (GDB: by `bt`'s decoration,
  // which the py-bt after it reuses).
  const json moved = py_bt(3);
  EXPECT_EQ(PythonFrames(moved), second_frames);
  if (lldb) {
    EXPECT_GT(stats(moved).value("target_reads", 0), 0);
    EXPECT_FALSE(stats(moved).value("session_kept", true));
  } else {
    // What bt read is reused; py-bt reads only what bt did not need (the running task).
    EXPECT_LT(stats(moved).value("target_reads", -1), stats(one).value("target_reads", 0));
    EXPECT_TRUE(stats(moved).value("session_kept", false));
    const std::string decorated = "[Python: second_place at moving_stack.py:" +
                                  std::to_string(second.at(0).at("line").get<int>());
    EXPECT_NE(bt.find(decorated), std::string::npos) << bt;
    EXPECT_EQ(bt.find("first_place at moving_stack.py:" +
                      std::to_string(truth.at("first").at(0).at("line").get<int>())),
              std::string::npos)
        << bt;
  }
  // py-up 2 (from getppid's C code: frame 0, then its caller) and py-list: the caller in the
  // new stack.
  const int caller_line = second.at(1).at("line");
  EXPECT_NE(parts[4].find("#1 File \"" + second.at(1).at("filename").get<std::string>() +
                          "\", line " + std::to_string(caller_line) + ", in first_place"),
            std::string::npos)
      << parts[4];
  EXPECT_NE(parts[5].find(">" + std::to_string(caller_line) + "    "), std::string::npos)
      << parts[5];
  const json again = py_bt(6);
  EXPECT_EQ(PythonFrames(again), second_frames);
  EXPECT_EQ(stats(again).value("target_reads", -1), 0);
  EXPECT_TRUE(stats(again).value("session_kept", false));
}

INSTANTIATE_TEST_SUITE_P(Debuggers, StopCache, ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const auto& info) { return std::string(DebuggerName(info.param)); });

}  // namespace
}  // namespace pyunwind_e2e
