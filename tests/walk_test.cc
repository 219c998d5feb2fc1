// The whole walk, from RunCommand down, over a CPython 3.11 process built in
// memory by the test (tests/fake_python.h): a runtime whose embedded main
// interpreter points back at it, thread states with cframes, frames and code
// objects with real location tables. Found by the _PyRuntime symbol and by
// the memory scan; then damage (cycles, unreadable frames) and the options
// of py-bt.
#include <sys/resource.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "core/layout/layout.h"
#include "core/runtime/runtime_locator.h"
#include "core/target/memory.h"
#include "core/walk/frames.h"
#include "tests/amplification.h"
#include "tests/fake_process311.h"
#include "tests/fake_python.h"
#include "tests/fake_target.h"

namespace pyunwind {
namespace {

using Json = nlohmann::json;
using testing::FakeHeap;
using testing::FakeObjects;
using testing::FakeTarget;
using namespace testing::fake311;

constexpr uint64_t kUnmapped = 0x7f2000000000;

// The 3.11 process image with the command runner the walk tests use.
class Fake311 : public testing::fake311::Process {
 public:
  using Process::Process;

  CommandOutput Run(std::vector<std::string> args, std::optional<uint64_t> selected = {}) {
    CommandContext context{target, selected, false, std::nullopt, std::nullopt};
    return RunCommand("py-bt", args, context);
  }
  Json RunJson(std::vector<std::string> args = {"--all", "--json"}) {
    CommandOutput out = Run(args);
    EXPECT_FALSE(out.failed) << out.text;
    if (out.failed) return Json::object();
    return Json::parse(out.text);
  }
};

// The two-thread program the tests share.
class WalkTest : public ::testing::Test {
 protected:
  WalkTest() {
    // Thread A (the main thread): Worker.run <- main <- <module>.
    a = p.AddThread(1001, 0x7f00aaaa0001);
    b = p.AddThread(1002, 0x7f00bbbb0002);
    p.SetMainThread(a);
    p.SetGil(true, b.tstate);

    const uint64_t run_code = p.Code("/app/worker.py", "run", "Worker.run", 10,
                                     LineTableBytes(10, {{1, 10}, {4, 12}, {6, 14}, {2, -1}}), 13);
    const uint64_t main_code = p.Code("/app/main.py", "main", "main", 25,
                                      LineTableBytes(25, {{2, 25}, {10, 30}, {3, 28}}), 15);
    const uint64_t module_code = p.Code("/app/main.py", "<module>", "<module>", 1,
                                        LineTableBytes(1, {{1, 0}, {20, 42}, {9, 1200}}), 30);
    a_outer = p.Frame(module_code, 15, 0);
    a_middle = p.Frame(main_code, 13, a_outer);  // a backward line delta: 28
    a_inner = p.Frame(run_code, 7, a_middle);
    p.SetCurrentFrame(a, a_inner);

    // Thread B: Outer.<locals>.helper (unicode file name) <- Thread.run.
    const uint64_t helper_code =
        p.Code("/srv/λ_utils/größe🐍.py", "helper", "Outer.<locals>.helper", 5,
               LineTableBytes(5, {{3, 5}, {3, 7}}), 6);
    const uint64_t thread_code = p.Code("/usr/lib/python3.11/threading.py", "run", "Thread.run",
                                        940, LineTableBytes(940, {{2, 940}, {70, 975}}), 72);
    b_outer = p.Frame(thread_code, 71, 0);
    b_inner = p.Frame(helper_code, 4, b_outer);
    p.SetCurrentFrame(b, b_inner);
  }

  static Json Frame(const char* filename, int line, const char* name, const char* qualname) {
    // The fake's location tables have no columns (entry kind 13): the end line is the line.
    // Its code objects hold no bytecode: no frame tells what it calls.
    return {{"filename", filename}, {"line", line}, {"name", name}, {"qualname", qualname},
            {"kind", "python"}, {"end_line", line}, {"column", nullptr}, {"end_column", nullptr},
            {"calling", nullptr}};
  }
  static Json AFrames() {
    return Json::array({Frame("/app/worker.py", 14, "run", "Worker.run"),
                        Frame("/app/main.py", 28, "main", "main"),
                        Frame("/app/main.py", 42, "<module>", "<module>")});
  }
  static Json BFrames() {
    return Json::array({Frame("/srv/λ_utils/größe🐍.py", 7, "helper", "Outer.<locals>.helper"),
                        Frame("/usr/lib/python3.11/threading.py", 975, "run", "Thread.run")});
  }
  static const Json& Threads(const Json& doc) { return doc.at("interpreters").at(0).at("threads"); }

  static void ExpectOneErrorLine(const CommandOutput& out) {
    EXPECT_TRUE(out.failed);
    EXPECT_EQ(out.text.rfind("pyunwind: ", 0), 0u) << out.text;
    ASSERT_FALSE(out.text.empty());
    EXPECT_EQ(out.text.back(), '\n');
    EXPECT_EQ(out.text.find('\n'), out.text.size() - 1) << out.text;
  }

  Fake311 p;
  Thread311 a, b;
  uint64_t a_inner = 0, a_middle = 0, a_outer = 0, b_inner = 0, b_outer = 0;
};

TEST_F(WalkTest, AllThreadsAsJsonFoundBySymbol) {
  p.AddSymbols();
  const Json doc = p.RunJson();
  EXPECT_EQ(doc.at("python").at("version"), "3.11.2");
  EXPECT_EQ(doc.at("python").at("hexversion"), kHexversion);
  EXPECT_EQ(doc.at("python").at("free_threaded"), false);
  EXPECT_EQ(doc.at("warnings"), Json::array());
  ASSERT_EQ(doc.at("interpreters").size(), 1u);
  EXPECT_EQ(doc.at("interpreters").at(0).at("id"), 0);
  const Json& threads = Threads(doc);
  ASSERT_EQ(threads.size(), 2u);
  // Oldest first.
  EXPECT_EQ(threads[0].at("native_id"), 1001);
  EXPECT_EQ(threads[0].at("python_id"), 0x7f00aaaa0001);
  EXPECT_EQ(threads[0].at("is_main"), true);
  EXPECT_EQ(threads[0].at("holds_gil"), false);
  EXPECT_EQ(threads[0].at("status"), Json::array({"main"}));
  EXPECT_EQ(threads[0].at("frames"), AFrames());
  EXPECT_FALSE(threads[0].contains("truncated"));
  EXPECT_EQ(threads[1].at("native_id"), 1002);
  EXPECT_EQ(threads[1].at("python_id"), 0x7f00bbbb0002);
  EXPECT_EQ(threads[1].at("is_main"), false);
  EXPECT_EQ(threads[1].at("holds_gil"), true);
  EXPECT_EQ(threads[1].at("status"), Json::array({"has_gil"}));
  EXPECT_EQ(threads[1].at("frames"), BFrames());
}

TEST_F(WalkTest, SubinterpreterThreadsUnderTheirInterpreterId) {
  // A subinterpreter (id 1) made after the main one: CPython links it at the
  // head of the runtime's list, in front of the main interpreter.
  p.AddSymbols();
  const uint64_t sub = p.heap.Alloc(p.layout.interp.size);
  p.target.Put<int64_t>(sub + p.layout.interp.id, 1);
  p.target.PutU64(sub + p.layout.interp.runtime, p.runtime);
  p.target.PutU64(sub + p.layout.interp.next, p.interp);
  p.target.PutU64(p.runtime + p.layout.runtime.interpreters_head, sub);
  // One thread in the subinterpreter, running one frame.
  const uint64_t tstate = p.heap.Alloc(p.layout.tstate.size);
  const uint64_t cframe = p.heap.Alloc(24);
  p.target.PutU64(sub + p.layout.interp.threads_head, tstate);
  p.target.PutU64(tstate + p.layout.tstate.interp, sub);
  p.target.PutU64(tstate + p.layout.tstate.native_thread_id, 1003);
  p.target.PutU64(tstate + p.layout.tstate.thread_id, 0x7f00cccc0003);
  p.target.PutU64(tstate + p.layout.tstate.cframe, cframe);
  const uint64_t code = p.Code("/app/sub.py", "serve", "serve", 3, LineTableBytes(3, {{4, 3}}), 4);
  p.target.PutU64(cframe + p.layout.tstate.cframe_current_frame, p.Frame(code, 2, 0));

  const Json doc = p.RunJson();
  ASSERT_EQ(doc.at("interpreters").size(), 2u);
  const Json& first = doc.at("interpreters").at(0);
  EXPECT_EQ(first.at("id"), 1);
  ASSERT_EQ(first.at("threads").size(), 1u);
  EXPECT_EQ(first.at("threads").at(0).at("native_id"), 1003);
  EXPECT_EQ(first.at("threads").at(0).at("is_main"), false);
  EXPECT_EQ(first.at("threads").at(0).at("frames"),
            Json::array({Frame("/app/sub.py", 3, "serve", "serve")}));
  const Json& main = doc.at("interpreters").at(1);
  EXPECT_EQ(main.at("id"), 0);
  ASSERT_EQ(main.at("threads").size(), 2u);
  EXPECT_EQ(main.at("threads").at(0).at("frames"), AFrames());
  EXPECT_EQ(main.at("threads").at(0).at("is_main"), true);
  EXPECT_EQ(main.at("threads").at(1).at("frames"), BFrames());

  // Text: each interpreter has a header when there are several.
  const CommandOutput text = p.Run({"--all"});
  EXPECT_NE(text.text.find("Interpreter 1"), std::string::npos) << text.text;
  EXPECT_NE(text.text.find("Interpreter 0"), std::string::npos) << text.text;
}

TEST_F(WalkTest, ColourOnlyOnATerminalAndNotWithNoColorOrJson) {
  p.AddSymbols();
  auto run = [&](bool terminal, std::vector<std::string> args) {
    CommandContext context{p.target, std::nullopt, terminal, std::nullopt, std::nullopt};
    return RunCommand("py-bt", args, context).text;
  };
  const std::string escape = "\x1b[";
  EXPECT_NE(run(true, {"--all"}).find(escape), std::string::npos);
  EXPECT_EQ(run(false, {"--all"}).find(escape), std::string::npos);
  EXPECT_EQ(run(true, {"--all", "--no-color"}).find(escape), std::string::npos);
  EXPECT_EQ(run(true, {"--all", "--json"}).find(escape), std::string::npos);
}

TEST_F(WalkTest, FoundByTheMemoryScanWithoutSymbols) {
  p.AddSysDict();
  // Noise the scan meets first: smaller writable regions of random bytes.
  p.target.Map(0x600000000000, 0x3000, true, true, "noise");
  p.target.FillRandom(0x600000000000, 7);
  p.target.Map(0x600000010000, 0x20000, true, true, "noise2");
  p.target.FillRandom(0x600000010000, 8);
  const Json doc = p.RunJson({"--all", "--json", "--verbose"});
  EXPECT_EQ(doc.at("python").at("version"), "3.11.2");  // from sys.hexversion
  EXPECT_EQ(Threads(doc).at(0).at("frames"), AFrames());
  EXPECT_EQ(Threads(doc).at(1).at("frames"), BFrames());
  const std::string warnings = doc.at("warnings").dump();
  EXPECT_NE(warnings.find("scan"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("table 3.11"), std::string::npos) << warnings;
}

TEST_F(WalkTest, ScanWithoutSysDictWarnsOfTheUnknownExactVersion) {
  const Json doc = p.RunJson();
  EXPECT_EQ(doc.at("python").at("version"), "3.11.0");
  EXPECT_NE(doc.at("warnings").dump().find("exact Python version is unknown"), std::string::npos)
      << doc.at("warnings");
  EXPECT_EQ(Threads(doc).at(1).at("frames"), BFrames());
}

TEST_F(WalkTest, NoSymbolAndNoRegionsIsOneErrorLine) {
  p.target.list_regions = false;
  const CommandOutput out = p.Run({"--all"});
  ExpectOneErrorLine(out);
  EXPECT_NE(out.text.find("no Python runtime found"), std::string::npos) << out.text;
}

// Without regions to search, whether there is a runtime is not known: the GDB frame filter
// asks again rather than taking the process for one without Python.
TEST_F(WalkTest, NoSymbolAndNoRegionsIsNotNoRuntime) {
  p.target.list_regions = false;
  RemoteMemory memory(p.target);
  auto location = LocateRuntime(memory);
  ASSERT_FALSE(location.ok());
  EXPECT_EQ(location.error().kind, ErrorKind::kOther) << location.error().message;
}

// The layout a table gives, and the -v line that names it.
TEST_F(WalkTest, TheTableIsTheLayoutSource) {
  p.AddSymbols();
  RemoteMemory memory(p.target);
  auto location = LocateRuntime(memory);
  ASSERT_TRUE(location.ok()) << location.error().message;
  EXPECT_EQ(location->layout.source, LayoutSource::kTable);
  EXPECT_EQ(DescribeLayoutSource(location->layout), "table 3.11");
  const std::string line = DescribeLocation(*location);
  EXPECT_EQ(line.substr(line.find(';')), "; layout from table 3.11") << line;
}

TEST_F(WalkTest, TextTraceback) {
  p.AddSymbols();
  // Without the source lines, which depend on the files of this machine.
  const CommandOutput out = p.Run({"--all", "--no-source"});
  ASSERT_FALSE(out.failed) << out.text;
  EXPECT_EQ(out.text,
            "Thread 1001 (main thread):\n"
            "Traceback (most recent call first):\n"
            "  File \"/app/worker.py\", line 14, in Worker.run\n"
            "  File \"/app/main.py\", line 28, in main\n"
            "  File \"/app/main.py\", line 42, in <module>\n"
            "\n"
            "Thread 1002 (running, holds the GIL):\n"
            "Traceback (most recent call first):\n"
            "  File \"/srv/λ_utils/größe🐍.py\", line 7, in Outer.<locals>.helper\n"
            "  File \"/usr/lib/python3.11/threading.py\", line 975, in Thread.run\n");
}

TEST_F(WalkTest, SelectedThreadOnly) {
  p.AddSymbols();
  const CommandOutput out = p.Run({}, 1002);
  ASSERT_FALSE(out.failed) << out.text;
  EXPECT_NE(out.text.find("Thread 1002"), std::string::npos) << out.text;
  EXPECT_NE(out.text.find("Outer.<locals>.helper"), std::string::npos);
  EXPECT_EQ(out.text.find("Thread 1001"), std::string::npos) << out.text;
  EXPECT_EQ(out.text.find("Worker.run"), std::string::npos) << out.text;

  const CommandOutput json = p.Run({"--json"}, 1001);
  ASSERT_FALSE(json.failed) << json.text;
  const Json doc = Json::parse(json.text);
  ASSERT_EQ(Threads(doc).size(), 1u);
  EXPECT_EQ(Threads(doc)[0].at("native_id"), 1001);
  EXPECT_EQ(Threads(doc)[0].at("frames"), AFrames());
}

TEST_F(WalkTest, SelectedThreadWithoutPythonOrNoSelection) {
  p.AddSymbols();
  const CommandOutput other = p.Run({}, 4242);
  ExpectOneErrorLine(other);
  EXPECT_NE(other.text.find("4242"), std::string::npos);
  ExpectOneErrorLine(p.Run({}));
  // --all ignores the selection.
  EXPECT_EQ(Threads(p.RunJson({"--all", "--json"})).size(), 2u);
}

TEST_F(WalkTest, FrameLimit) {
  p.AddSymbols();
  const Json doc = p.RunJson({"--all", "--json", "--limit", "1"});
  const Json& threads = Threads(doc);
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].at("frames"), Json::array({AFrames()[0]}));
  EXPECT_EQ(threads[0].at("truncated"), "frame limit");
  EXPECT_EQ(threads[1].at("frames"), Json::array({BFrames()[0]}));
  EXPECT_EQ(threads[1].at("truncated"), "frame limit");
  EXPECT_EQ(Threads(p.RunJson({"--all", "--json", "--limit=2"}))[0].at("frames").size(), 2u);
  EXPECT_EQ(Threads(p.RunJson({"--all", "--json", "--limit", "3"}))[0].count("truncated"), 0u);

  const CommandOutput text = p.Run({"--limit", "1"}, 1001);
  ASSERT_FALSE(text.failed) << text.text;
  EXPECT_NE(text.text.find("in Worker.run\n  ...truncated: 2 more frames (--limit 1)\n"),
            std::string::npos)
      << text.text;
  EXPECT_EQ(text.text.find("in main"), std::string::npos);
}

TEST_F(WalkTest, BadOptionsAreOneErrorLine) {
  p.AddSymbols();
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"--bogus"},
                                             {"--all", "-x"},
                                             {"--limit"},
                                             {"--limit", "0"},
                                             {"--limit", "abc"},
                                             {"--limit", "-3"},
                                             {"--limit=99999999999"},
                                             {"all"}}) {
    const CommandOutput out = p.Run(args, 1001);
    ExpectOneErrorLine(out);
  }
  const CommandOutput out = p.Run({"--bogus"});
  EXPECT_NE(out.text.find("--bogus"), std::string::npos) << out.text;
  CommandContext context{p.target, std::nullopt, false, std::nullopt, std::nullopt};
  ExpectOneErrorLine(RunCommand("py-nope", {}, context));
}

// --group needs --all, and shows neither locals nor native frames (docs/commands.md).
TEST_F(WalkTest, GroupRefusals) {
  p.AddSymbols();
  const std::vector<std::pair<std::vector<std::string>, std::string>> refused = {
      {{"--group"}, "--group groups the threads of --all: use py-bt --all --group"},
      {{"--all", "--group", "--locals"}, "--group shows no locals"},
      {{"--all", "--group", "--native"}, "--group shows no native frames"},
  };
  for (const auto& [args, reason] : refused) {
    const CommandOutput out = p.Run(args, 1001);
    ExpectOneErrorLine(out);
    EXPECT_NE(out.text.find("pyunwind: py-bt: " + reason), std::string::npos) << out.text;
  }
  const CommandOutput grouped = p.Run({"--all", "--group"});
  EXPECT_FALSE(grouped.failed) << grouped.text;
}

TEST_F(WalkTest, CyclicFrameChainStopsWithAWarning) {
  p.AddSymbols();
  p.SetPrevious(a_outer, a_inner);  // <module> "called from" Worker.run
  const Json doc = p.RunJson();
  const Json& thread = Threads(doc)[0];
  EXPECT_EQ(thread.at("frames"), AFrames());
  ASSERT_TRUE(thread.contains("truncated"));
  EXPECT_NE(thread.at("truncated").get<std::string>().find("loops"), std::string::npos)
      << thread.at("truncated");
  EXPECT_EQ(Threads(doc)[1].at("frames"), BFrames());  // the other thread is untouched

  const CommandOutput text = p.Run({"--all"});
  EXPECT_NE(text.text.find("  ...truncated: the frame chain loops"), std::string::npos)
      << text.text;
}

// The cycle starts after the first frame: the frames up to the first repeat, and the
// address that repeats.
TEST_F(WalkTest, FrameChainLoopingBackToAFrameInside) {
  p.AddSymbols();
  p.SetPrevious(a_outer, a_middle);  // run -> main -> <module> -> main -> ...
  const Json doc = p.RunJson();
  const Json& thread = Threads(doc)[0];
  EXPECT_EQ(thread.at("frames"), AFrames());
  ASSERT_TRUE(thread.contains("truncated"));
  EXPECT_EQ(thread.at("truncated"),
            fmt::format("the frame chain loops back to {:#x}", a_middle));
}

// A layout (from a target's debug offsets) that puts a frame's fields past the bytes the walk
// reads of each frame is refused with the reason, not read as zeros.
TEST_F(WalkTest, FrameFieldsPastTheFrameHeadAreRefused) {
  for (int32_t Layout::Frame::*field :
       {&Layout::Frame::previous, &Layout::Frame::executable, &Layout::Frame::instr_ptr}) {
    Layout bent = p.layout;
    bent.frame.size = 1024;
    bent.frame.*field = 300;
    RemoteMemory memory(p.target);
    ObjectReader objects(memory, bent);
    CodeCache codes(objects);
    Thread thread;
    WalkFrames(objects, codes, a_inner, 100, thread);
    EXPECT_TRUE(thread.frames.empty());
    EXPECT_TRUE(thread.truncated);
    EXPECT_EQ(thread.error, "the layout puts a frame's fields past its first 256 bytes");
  }
  // The same walk with the layout as it is reads the frames.
  RemoteMemory memory(p.target);
  ObjectReader objects(memory, p.layout);
  CodeCache codes(objects);
  Thread thread;
  WalkFrames(objects, codes, a_inner, 100, thread);
  EXPECT_EQ(thread.frames.size(), 3u);
  EXPECT_FALSE(thread.truncated);
}

// With a writer, py-bt's text goes out in pieces of kOutputPieceBytes or a frame more as it
// is made (one buffer, no string of the whole text): together with what is returned, the
// same text as without. Where the front-end prints meanwhile, --all's text goes a thread at
// a time as the walk goes, also at a thread's end once kThreadEndPieceBytes wait.
TEST_F(WalkTest, TextInPiecesIsTheWholeText) {
  p.AddSymbols();
  const uint64_t deep_code = p.Code("/app/" + std::string(200, 'd') + ".py", "deep", "Deep.deep",
                                    10, LineTableBytes(10, {{1, 10}, {4, 12}, {6, 14}}), 13);
  uint64_t frame = a_inner;
  for (int i = 0; i < 1000; ++i) frame = p.Frame(deep_code, 5, frame);
  p.SetCurrentFrame(a, frame);
  const CommandOutput whole = p.Run({"--all"});
  ASSERT_FALSE(whole.failed) << whole.text;
  ASSERT_GT(whole.text.size(), 3 * kOutputPieceBytes);

  for (const bool printed_meanwhile : {false, true}) {
    SCOPED_TRACE(printed_meanwhile ? "printed meanwhile" : "printed in turn");
    std::vector<std::string> pieces;
    CommandContext context{p.target, std::nullopt, false, std::nullopt, std::nullopt};
    context.write_output = [&](std::string_view piece) { pieces.emplace_back(piece); };
    context.output_printed_meanwhile = printed_meanwhile;
    const CommandOutput rest = RunCommand("py-bt", {"--all"}, context);
    ASSERT_FALSE(rest.failed) << rest.text;
    ASSERT_GE(pieces.size(), 3u);
    std::string joined;
    for (size_t i = 0; i < pieces.size(); ++i) {
      // Printed meanwhile, a piece at a thread's end may be smaller.
      EXPECT_GE(pieces[i].size(), printed_meanwhile ? kThreadEndPieceBytes : kOutputPieceBytes);
      EXPECT_LT(pieces[i].size(), kOutputPieceBytes + 1024);  // one frame's lines past it at most
      joined += pieces[i];
    }
    EXPECT_LT(rest.text.size(), kOutputPieceBytes + 1024);
    EXPECT_EQ(joined + rest.text, whole.text);
    // The fake target's first thread (1,000 frames) is handed over whole before the second
    // thread's title is made.
    if (printed_meanwhile) {
      const size_t second = whole.text.find("\nThread ");
      ASSERT_NE(second, std::string::npos);
      EXPECT_EQ(joined.size(), second);  // the blank line between threads comes with the next
    }
  }
}

TEST_F(WalkTest, SelfLoopingFrame) {
  p.AddSymbols();
  p.SetPrevious(b_inner, b_inner);
  const Json doc = p.RunJson();
  const Json& thread = Threads(doc)[1];
  EXPECT_EQ(thread.at("frames"), Json::array({BFrames()[0]}));
  EXPECT_TRUE(thread.contains("truncated"));
}

TEST_F(WalkTest, CyclicThreadListStops) {
  p.AddSymbols();
  p.SetNext(a, b.tstate);  // b -> a -> b -> ...
  const Json doc = p.RunJson();
  const Json& threads = Threads(doc);
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0].at("frames"), AFrames());
  EXPECT_EQ(threads[1].at("frames"), BFrames());
  EXPECT_NE(doc.at("warnings").dump().find("thread list loops"), std::string::npos)
      << doc.at("warnings");
}

TEST_F(WalkTest, ThreadListWithABadPointer) {
  p.AddSymbols();
  p.SetNext(a, kUnmapped);  // aligned, unreadable
  Json doc = p.RunJson();
  EXPECT_GE(Threads(doc).size(), 2u);
  EXPECT_NE(doc.at("warnings").dump().find("thread"), std::string::npos) << doc.at("warnings");
  // The threads that could be read keep their stacks.
  bool saw_a = false;
  for (const Json& thread : Threads(doc)) {
    if (thread.at("native_id") == 1001) {
      saw_a = true;
      EXPECT_EQ(thread.at("frames"), AFrames());
    }
  }
  EXPECT_TRUE(saw_a);

  p.SetNext(a, kHeap + 3);  // misaligned
  doc = p.RunJson();
  EXPECT_EQ(Threads(doc).size(), 2u);
  EXPECT_NE(doc.at("warnings").dump().find("bad thread state pointer"), std::string::npos)
      << doc.at("warnings");
}

TEST_F(WalkTest, FramePointingToUnreadableMemory) {
  p.AddSymbols();
  p.SetPrevious(a_inner, kUnmapped);
  const Json doc = p.RunJson();
  const Json& thread = Threads(doc)[0];
  EXPECT_EQ(thread.at("frames"), Json::array({AFrames()[0]}));
  ASSERT_TRUE(thread.contains("truncated"));
  EXPECT_NE(thread.at("truncated").get<std::string>().find("cannot read the frame"),
            std::string::npos)
      << thread.at("truncated");
  EXPECT_EQ(Threads(doc)[1].at("frames"), BFrames());
}

TEST_F(WalkTest, MisalignedFramePointer) {
  p.AddSymbols();
  p.SetPrevious(a_middle, a_outer + 4);
  const Json doc = p.RunJson();
  const Json& thread = Threads(doc)[0];
  EXPECT_EQ(thread.at("frames").size(), 2u);
  EXPECT_TRUE(thread.contains("truncated"));
}

TEST_F(WalkTest, FrameWithUnreadableCodeObject) {
  p.AddSymbols();
  p.target.PutU64(a_middle + p.layout.frame.executable, kUnmapped);
  const Json doc = p.RunJson();
  const Json& thread = Threads(doc)[0];
  EXPECT_EQ(thread.at("frames"), Json::array({AFrames()[0]}));
  ASSERT_TRUE(thread.contains("truncated"));
  EXPECT_NE(thread.at("truncated").get<std::string>().find("code object"), std::string::npos)
      << thread.at("truncated");
}

TEST_F(WalkTest, CurrentFrameUnreadable) {
  p.AddSymbols();
  p.target.PutU64(b.tstate + p.layout.tstate.cframe, kUnmapped);
  const Json doc = p.RunJson();
  EXPECT_EQ(Threads(doc)[0].at("frames"), AFrames());
  EXPECT_EQ(Threads(doc)[1].at("frames"), Json::array());
  EXPECT_TRUE(Threads(doc)[1].contains("truncated"));
}

TEST_F(WalkTest, ThreadWithoutPythonFrames) {
  p.AddSymbols();
  p.SetCurrentFrame(b, 0);
  const Json doc = p.RunJson();
  EXPECT_EQ(Threads(doc)[1].at("frames"), Json::array());
  EXPECT_FALSE(Threads(doc)[1].contains("truncated"));
  const CommandOutput text = p.Run({}, 1002);
  EXPECT_NE(text.text.find("(no Python frames)"), std::string::npos) << text.text;
}

TEST_F(WalkTest, GilHolder) {
  p.AddSymbols();
  p.SetGil(true, a.tstate);
  Json threads = Threads(p.RunJson());
  EXPECT_EQ(threads[0].at("holds_gil"), true);
  EXPECT_EQ(threads[0].at("status"), Json::array({"main", "has_gil"}));
  EXPECT_EQ(threads[1].at("holds_gil"), false);

  // Released: last_holder still names a thread, but nobody holds it.
  p.SetGil(false, a.tstate);
  threads = Threads(p.RunJson());
  EXPECT_EQ(threads[0].at("holds_gil"), false);
  EXPECT_EQ(threads[1].at("holds_gil"), false);

  // The collector runs on the holder.
  p.SetGil(true, b.tstate);
  p.target.Put<int32_t>(p.interp + p.layout.interp.gc_collecting, 1);
  threads = Threads(p.RunJson());
  EXPECT_EQ(threads[1].at("status"), Json::array({"has_gil", "gc"}));
  EXPECT_EQ(threads[0].at("status"), Json::array({"main"}));
}

TEST_F(WalkTest, ShimIncompleteAndGeneratorFrames) {
  p.AddSymbols();
  // Between Worker.run and main: a frame the C stack owns (skipped), a frame
  // not yet past its first traceable instruction (skipped), and a generator
  // frame at the same point (kept: generators are created before they run).
  const uint64_t gen_code = p.Code("/app/gen.py", "produce", "produce", 3,
                                   LineTableBytes(3, {{2, 3}, {4, 4}}), 6, /*first_traceable=*/2);
  const uint64_t setup_code = p.Code("/app/gen.py", "setup", "setup", 9,
                                     LineTableBytes(9, {{2, 9}, {4, 10}}), 6, /*first_traceable=*/2);
  const uint64_t generator = p.Frame(gen_code, 1, a_middle, /*owner=*/1);
  const uint64_t incomplete = p.Frame(setup_code, 1, generator);
  const uint64_t shim = p.Frame(setup_code, 3, incomplete, /*owner=*/3);
  p.SetPrevious(a_inner, shim);
  const Json doc = p.RunJson();
  const Json& thread = Threads(doc)[0];
  Json want = AFrames();
  want.insert(want.begin() + 1, Frame("/app/gen.py", 3, "produce", "produce"));
  EXPECT_EQ(thread.at("frames"), want);
  EXPECT_FALSE(thread.contains("truncated"));
}

// 3.13+ (instr_ptr, not prev_instr): a frame before its first traceable
// instruction is left out too, as sys._current_frames() leaves it out.
TEST_F(WalkTest, IncompleteFrameSkippedWithInstrPtr) {
  p.AddSymbols();
  p.layout.frame.instr_is_previous = false;
  const uint64_t setup_code = p.Code("/app/gen.py", "setup", "setup", 9,
                                     LineTableBytes(9, {{2, 9}, {4, 10}}), 6, /*first_traceable=*/2);
  const uint64_t incomplete = p.Frame(setup_code, 1, a_middle);
  p.SetPrevious(a_inner, incomplete);
  EXPECT_EQ(Threads(p.RunJson())[0].at("frames"), AFrames());
}

// A frame whose f_code is not a code object stops the walk with that reason.
TEST_F(WalkTest, FrameWhoseCodeIsNotACodeObject) {
  p.AddSymbols();
  p.target.PutU64(a_middle + p.layout.frame.executable, p.objects.Str("not code"));
  const Json doc = p.RunJson();
  const Json& thread = Threads(doc)[0];
  EXPECT_EQ(thread.at("frames"), Json::array({AFrames()[0]}));
  ASSERT_TRUE(thread.contains("truncated"));
  EXPECT_NE(thread.at("truncated").get<std::string>().find("is not a code object"),
            std::string::npos)
      << thread.at("truncated");
}

TEST_F(WalkTest, InstructionWithoutALine) {
  p.AddSymbols();
  // Worker.run's last two code units have no location; so does a prev_instr
  // past the bytecode or before it (a frame about to run its first instruction).
  p.target.PutU64(a_inner + p.layout.frame.instr_ptr,
                  *p.Read(a_inner + p.layout.frame.executable) + p.layout.code.code_adaptive + 2 * 12);
  Json frames = Threads(p.RunJson())[0].at("frames");
  EXPECT_EQ(frames[0].at("line"), nullptr);
  EXPECT_EQ(frames[0].at("qualname"), "Worker.run");
  const CommandOutput text = p.Run({}, 1001);
  EXPECT_NE(text.text.find("/app/worker.py\", line ?, in Worker.run"), std::string::npos)
      << text.text;

  // prev_instr just before the bytecode: the frame has not started. CPython
  // leaves such a frame out (_PyFrame_IsIncomplete)...
  const uint64_t run_code = *p.Read(a_inner + p.layout.frame.executable);
  p.target.PutU64(a_inner + p.layout.frame.instr_ptr, run_code + p.layout.code.code_adaptive - 2);
  frames = Threads(p.RunJson())[0].at("frames");
  Json rest = AFrames();
  rest.erase(rest.begin());
  EXPECT_EQ(frames, rest);
  // ... unless a generator owns it (created, not yet started): then it is
  // on its first line, as PyCode_Addr2Line says for a negative offset.
  p.target.PutU8(a_inner + p.layout.frame.owner, 1);
  frames = Threads(p.RunJson())[0].at("frames");
  ASSERT_EQ(frames.size(), 3u);
  EXPECT_EQ(frames[0].at("line"), 10);
}

TEST_F(WalkTest, RuntimeWithoutInterpreters) {
  p.AddSymbols();
  p.target.PutU64(p.runtime + p.layout.runtime.interpreters_head, 0);
  ExpectOneErrorLine(p.Run({"--all"}));
}

TEST_F(WalkTest, StatsAreReported) {
  p.AddSymbols();
  const Json doc = p.RunJson({"--all", "--json", "--stats"});
  ASSERT_TRUE(doc.contains("stats"));
  EXPECT_EQ(doc.at("stats").at("frames"), 5);
  EXPECT_GT(doc.at("stats").at("target_reads").get<int>(), 0);
  // Page-sized reads: a handful, not one per field.
  EXPECT_LT(doc.at("stats").at("target_reads").get<int>(), 20);
  // The work budget spent: 5 frames of 131,072, the bytes copied out of the cache.
  const Json& work = doc.at("stats").at("work");
  EXPECT_EQ(work.at("frames_visited"), Json({{"spent", 5}, {"budget", kMaxWorkFrames}}));
  EXPECT_GT(work.at("bytes_read").at("spent").get<uint64_t>(), 0u);
  EXPECT_EQ(work.at("code_objects_decoded").at("spent"), 5);  // each frame runs its own
  const std::string text = p.Run({"--all", "--stats"}).text;
  EXPECT_NE(text.find("\nwork (spent/budget): "), std::string::npos) << text;
  EXPECT_NE(text.find(", 5/131072 frames visited, 5/1048576 code objects decoded, "), std::string::npos)
      << text;
}

TEST(NotPython, RandomMemoryIsOneErrorLine) {
  FakeTarget target;
  target.Map(0x400000, 0x20000, false, true, "/bin/true");
  target.FillRandom(0x400000, 1);
  target.Map(0x600000, 0x30000, true, true, "");
  target.FillRandom(0x600000, 2);
  target.Map(0x7ffff0000000, 0x21000, true, true, "[stack]");
  target.FillRandom(0x7ffff0000000, 3);
  CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
  for (const auto& args : std::vector<std::vector<std::string>>{{"--all"}, {"--all", "--json"}}) {
    const CommandOutput out = RunCommand("py-bt", args, context);
    EXPECT_TRUE(out.failed);
    EXPECT_EQ(out.text.rfind("pyunwind: ", 0), 0u) << out.text;
    EXPECT_EQ(out.text.find('\n'), out.text.size() - 1) << out.text;
    EXPECT_NE(out.text.find("not a Python process"), std::string::npos) << out.text;
  }
}

// What the GDB frame filter's has-Python answer rests on: the kind, not the words.
TEST(NotPython, RandomMemoryIsNoRuntime) {
  FakeTarget target;
  target.Map(0x600000, 0x30000, true, true, "");
  target.FillRandom(0x600000, 2);
  RemoteMemory memory(target);
  auto location = LocateRuntime(memory);
  ASSERT_FALSE(location.ok());
  EXPECT_EQ(location.error().kind, ErrorKind::kNoRuntime) << location.error().message;
  EXPECT_EQ(location.error().message.rfind("not a Python process: ", 0), 0u)
      << location.error().message;
}

// Writable memory with nothing in it, larger than the scan's bound: the scan reads
// what docs/limits.md and its message say (2 GiB), not less (it once stopped at the
// command's 512 MiB read budget while saying 2 GiB).
class EmptyMemoryTarget : public Target {
 public:
  static constexpr uint64_t kStart = 0x7f0000000000;
  bool ReadMemory(uint64_t, void* out, size_t size) override {
    std::memset(out, 0, size);
    bytes_read += size;
    return true;
  }
  std::optional<uint64_t> FindSymbol(std::string_view) override { return std::nullopt; }
  std::vector<MemoryRegion> MemoryRegions() override {
    return {{kStart, kStart + 3 * kMaxBytesScannedForRuntime / 2, true, true, "[heap]"}};
  }
  bool Interrupted() override { return interrupt_after_bytes && bytes_read > interrupt_after_bytes; }
  uint64_t bytes_read = 0;
  uint64_t interrupt_after_bytes = 0;  // Ctrl-C once this many are read; 0: never
};

TEST(NotPython, TheScanReadsAllOfItsBoundAndSaysSo) {
  EmptyMemoryTarget target;
  CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
  const CommandOutput out = RunCommand("py-bt", {"--all"}, context);
  EXPECT_TRUE(out.failed);
  EXPECT_EQ(out.text, "pyunwind: not a Python process: no Python runtime found in the first " +
                          std::to_string(kMaxBytesScannedForRuntime >> 20) +
                          " MiB of writable memory and there is no _PyRuntime symbol\n");
  EXPECT_GE(target.bytes_read, kMaxBytesScannedForRuntime);
  EXPECT_LT(target.bytes_read, kMaxBytesScannedForRuntime + (64 << 20));
}

// Ctrl-C during the scan (seconds for gigabytes through a debugger) stops it within a MiB.
TEST(NotPython, TheScanStopsAtCtrlC) {
  EmptyMemoryTarget target;
  target.interrupt_after_bytes = 64 << 20;
  CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
  const CommandOutput out = RunCommand("py-bt", {"--all"}, context);
  EXPECT_TRUE(out.failed);
  EXPECT_EQ(out.text, "pyunwind: interrupted\n");
  EXPECT_LE(target.bytes_read, (64u << 20) + (1u << 20));
}

TEST(NotPython, CtrlCDuringTheScanIsInterrupted) {
  EmptyMemoryTarget target;
  target.interrupt_after_bytes = 1 << 20;
  RemoteMemory memory(target);
  auto location = LocateRuntime(memory);
  ASSERT_FALSE(location.ok());
  EXPECT_EQ(location.error().kind, ErrorKind::kInterrupted) << location.error().message;
}

TEST(NotPython, OldPythonNamedByItsModule) {
  FakeTarget target;
  target.Map(0x600000, 0x1000, true, true, "");
  target.modules.push_back({"/usr/lib/x86_64-linux-gnu/libpython3.5m.so.1.0", 0});
  CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
  const CommandOutput out = RunCommand("py-bt", {"--all"}, context);
  EXPECT_TRUE(out.failed);
  EXPECT_EQ(out.text.find('\n'), out.text.size() - 1) << out.text;
  EXPECT_NE(out.text.find("Python 3.5 is not supported"), std::string::npos) << out.text;
}

// 2.6 and 3.0-3.5 are refused by name in one line; 2.7 (read) is not among them.
TEST(NotPython, UnreadVersionsNamedByTheirExecutable) {
  for (const auto& [path, version] : std::vector<std::pair<std::string, std::string>>{
           {"/usr/bin/python2.6", "2.6"},
           {"/opt/python/lib/libpython3.0.so.1.0", "3.0"},
           {"/usr/bin/python3.4m", "3.4"}}) {
    FakeTarget target;
    target.Map(0x600000, 0x1000, true, true, "");
    target.modules.push_back({path, 0});
    CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
    const CommandOutput out = RunCommand("py-bt", {"--all"}, context);
    EXPECT_TRUE(out.failed) << path;
    EXPECT_EQ(out.text.find('\n'), out.text.size() - 1) << out.text;
    EXPECT_NE(out.text.find("Python " + version + " is not supported: pyunwind reads 2.7 and 3.6 to 3.15"),
              std::string::npos)
        << out.text;
  }
  FakeTarget two_seven;
  two_seven.Map(0x600000, 0x1000, true, true, "");
  two_seven.modules.push_back({"/usr/bin/python2.7", 0});
  CommandContext context{two_seven, std::nullopt, false, std::nullopt, std::nullopt};
  const CommandOutput out = RunCommand("py-bt", {"--all"}, context);
  EXPECT_TRUE(out.failed);  // no interpreter in its memory
  EXPECT_EQ(out.text.find("is not supported"), std::string::npos) << out.text;
}

TEST(NotPython, OldPythonIsAnUnsupportedVersion) {
  FakeTarget target;
  target.Map(0x600000, 0x1000, true, true, "");
  target.modules.push_back({"/usr/lib/x86_64-linux-gnu/libpython3.5m.so.1.0", 0});
  RemoteMemory memory(target);
  auto location = LocateRuntime(memory);
  ASSERT_FALSE(location.ok());
  EXPECT_EQ(location.error().kind, ErrorKind::kUnsupportedVersion) << location.error().message;
}

// ------------------------------------------------------------ work amplification
// Small targets built to make cheap steps repeat: each finishes within
// 10 s and 200 MB, shows what it read, and says the work budget ran out.

// Peak and current resident memory of this process, in MB.
double PeakRssMb() {
  struct rusage usage;
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}
double CurrentRssMb() {
  std::ifstream statm("/proc/self/statm");
  double pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * ::sysconf(_SC_PAGESIZE) / (1024.0 * 1024.0);
}

struct Cost {
  CommandOutput out;
  double seconds = 0;
  double added_mb = 0;
};

Cost Measure(Fake311& p, std::vector<std::string> args) {
  // An upper bound of what the command adds: the peak after it over the memory before it.
  const double before = CurrentRssMb();
  const auto start = std::chrono::steady_clock::now();
  Cost cost;
  cost.out = p.Run(std::move(args));
  cost.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  cost.added_mb = PeakRssMb() - before;
  std::cout << "  " << cost.seconds << " s, +" << cost.added_mb << " MB peak, "
            << cost.out.text.size() << " bytes of output\n";
  return cost;
}

void ExpectBoundedAndSaid(const Cost& cost) {
  EXPECT_LT(cost.seconds, 10);
#if defined(__SANITIZE_ADDRESS__)
  // ASan keeps freed memory in quarantine (256 MB by default): resident size says
  // nothing about the command here; the plain build checks it.
  std::cout << "  (memory not checked under ASan: its quarantine holds freed blocks)\n";
#else
  EXPECT_LT(cost.added_mb, 200);
#endif
  EXPECT_FALSE(cost.out.failed) << cost.out.text.substr(0, 500);
  EXPECT_NE(cost.out.text.find("the work budget of one command ran out"), std::string::npos)
      << cost.out.text.substr(cost.out.text.size() - std::min<size_t>(cost.out.text.size(), 2000));
}

// 65,536 code objects, each with its own first line, share one 1 MiB location table whose
// entries each go a line down (no two neighbouring entries merge): ~500k entries, which a
// decoding per code object (as until 2026-12-06) multiplied past the work budget. The table is
// decoded once, whatever the first lines: every frame is shown, with its own line, and the
// command spends one table's entries.
TEST(WorkAmplification, CodeObjectsSharingOneHugeLineTable) {
  Fake311 p(64 << 20);
  p.AddSymbols();
  constexpr int kCodeObjects = 65536;
  constexpr int kFirstLineStep = 7;
  AddCodeObjectsSharingOneLineTable(p, kCodeObjects, kMaxLocationTableBytes, kFirstLineStep);
  const uint64_t entries = kMaxLocationTableBytes / 2;  // two bytes an entry
  for (const auto& args : {std::vector<std::string>{"--all", "--stats"}, {"--all", "--json", "--stats"}}) {
    SCOPED_TRACE(args[1]);
    const Cost cost = Measure(p, args);
    EXPECT_LT(cost.seconds, 10);
#if !defined(__SANITIZE_ADDRESS__)
    EXPECT_LT(cost.added_mb, 200);
#endif
    ASSERT_FALSE(cost.out.failed) << cost.out.text.substr(0, 500);
    EXPECT_EQ(cost.out.text.find("work budget"), std::string::npos)
        << cost.out.text.substr(cost.out.text.size() - std::min<size_t>(cost.out.text.size(), 2000));
    if (args[1] == "--json") {
      const Json doc = Json::parse(cost.out.text);
      const Json& work = doc.at("stats").at("work");
      EXPECT_EQ(work.at("line_table_entries_decoded").at("spent"), entries);
      EXPECT_EQ(work.at("code_objects_decoded").at("spent"), kCodeObjects);
      const Json& frames = doc.at("interpreters").at(0).at("threads").at(0).at("frames");
      ASSERT_EQ(frames.size(), static_cast<size_t>(kCodeObjects));
      // Innermost first: each frame runs the same instruction of the same table, each from its
      // code object's own first line, 7 lines apart.
      for (size_t depth : {size_t{0}, size_t{1}, size_t{kCodeObjects / 2}}) {
        const Json& inner = frames.at(depth).at("line");
        const Json& outer = frames.at(depth + 1).at("line");
        ASSERT_TRUE(inner.is_number() && outer.is_number()) << inner << " " << outer;
        EXPECT_EQ(inner.get<int>() - outer.get<int>(), kFirstLineStep) << "frame " << depth;
      }
    } else {
      EXPECT_NE(cost.out.text.find(fmt::format("{}/{} line-table entries decoded", entries,
                                               kMaxWorkLineTableEntries)),
                std::string::npos)
          << cost.out.text.substr(cost.out.text.size() - std::min<size_t>(cost.out.text.size(), 2000));
    }
  }
}

// 4,096 threads share one 65,536-frame chain: cycle detection is per thread.
TEST(WorkAmplification, ThreadsSharingOneLongFrameChain) {
  Fake311 p(16 << 20);
  p.AddSymbols();
  AddThreadsSharingOneFrameChain(p, kMaxThreadsPerInterpreter, 65536);
  for (const auto& args : {std::vector<std::string>{"--all"}, {"--all", "--json"}}) {
    SCOPED_TRACE(args.back());
    const Cost cost = Measure(p, args);
    ExpectBoundedAndSaid(cost);
    // What was read is shown: the first threads' whole stacks.
    EXPECT_GT(cost.out.text.size(), size_t{1} << 20);
  }
}

}  // namespace
}  // namespace pyunwind
