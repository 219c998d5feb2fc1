// Checks of the harness itself, with no debugger and no pyunwind: JSON extraction from noisy
// debugger output, the truth comparison, the process handling, and that the shared
// fixtures are found.
#include "tests/e2e/harness.h"

#include <signal.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace pyunwind_e2e {
namespace {

json Truth() {
  return json::parse(R"({"pid": 1, "python": {"hexversion": 51053296}, "threads": [
    {"native_id": 10, "role": "main", "frames": [
      {"filename": "/a.py", "line": 3, "name": "f", "qualname": "C.f"},
      {"filename": "/a.py", "line": 9, "name": "<module>", "qualname": "<module>"}]},
    {"native_id": 11, "role": "w", "frames": [
      {"filename": "/b.py", "line": 1, "name": "g", "qualname": "g"}]}]})");
}

json Tool() {
  return json::parse(R"({"python": {"version": "3.11.2", "hexversion": 51053296},
    "interpreters": [{"id": 0, "threads": [
      {"native_id": 11, "frames": [
        {"filename": "/b.py", "line": 1, "name": "g", "qualname": "g", "kind": "python"}]},
      {"native_id": 10, "frames": [
        {"filename": "/a.py", "line": 3, "name": "f", "qualname": "C.f", "kind": "python"},
        {"kind": "native", "function": "_PyEval_EvalFrameDefault"},
        {"filename": "/a.py", "line": 9, "name": "<module>", "qualname": "<module>"}]}]}],
    "warnings": []})");
}

TEST(ExtractJson, FindsTheDocumentAmidLldbNoise) {
  std::string out =
      "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
      "ModuleNotFoundError: No module named 'lldb.embedded_interpreter'\n"
      "(lldb) plugin load /x/libpyunwind_lldb.so\n(lldb) py-bt --all --json\n"
      "{\"a\": \"} { \\\" \", \"b\": [1, {\"c\": 2}]}\n"
      "Process 123 stopped\n* thread #1, name = 'python3.11', stop reason = signal SIGSTOP\n"
      "    frame #0: 0x00007f in {}\n";
  std::string error;
  auto doc = ExtractJson(out, &error);
  ASSERT_TRUE(doc.has_value()) << error;
  EXPECT_EQ((*doc)["a"], "} { \" ");
  EXPECT_EQ((*doc)["b"][1]["c"], 2);
}

TEST(ExtractJson, MultiLineDocument) {
  std::string error;
  auto doc = ExtractJson("[New LWP 5]\n{\n \"x\": {\n  \"y\": 1\n }\n}\n", &error);
  ASSERT_TRUE(doc.has_value()) << error;
  EXPECT_EQ((*doc)["x"]["y"], 1);
}

TEST(ExtractJson, NoneOrTwoIsAnError) {
  std::string error;
  EXPECT_FALSE(ExtractJson("pyunwind: no Python here\n", &error).has_value());
  EXPECT_NE(error.find("no JSON"), std::string::npos);
  EXPECT_FALSE(ExtractJson("{\"a\": 1}\n{\"b\": 2}\n", &error).has_value());
  EXPECT_NE(error.find("2 JSON documents"), std::string::npos);
  EXPECT_FALSE(ExtractJson("{\"a\": 1\n", &error).has_value());
}

TEST(CompareWithTruth, SameFramesMatchIgnoringNonPythonFrames) {
  EXPECT_EQ(CompareWithTruth(Truth(), Tool()), "");
}

TEST(CompareWithTruth, ReportsEveryKindOfDifference) {
  json tool = Tool();
  auto& threads = tool["interpreters"][0]["threads"];
  threads[1]["frames"][0]["line"] = 4;                  // wrong line
  threads[0]["frames"].push_back(threads[0]["frames"][0]);  // extra frame
  threads.push_back({{"native_id", 99}, {"frames", json::array()}});  // extra thread
  std::string diff = CompareWithTruth(Truth(), tool);
  EXPECT_NE(diff.find("thread 10 role=main: frames differ"), std::string::npos) << diff;
  EXPECT_NE(diff.find("/a.py:4"), std::string::npos) << diff;
  EXPECT_NE(diff.find("thread 11 role=w: frames differ (truth 1, pyunwind 2"), std::string::npos)
      << diff;
  EXPECT_NE(diff.find("thread 99: shown by pyunwind"), std::string::npos) << diff;

  threads.erase(0);
  diff = CompareWithTruth(Truth(), tool);
  EXPECT_NE(diff.find("thread 11 role=w: missing"), std::string::npos) << diff;

  json wrong_name = Tool();
  wrong_name["interpreters"][0]["threads"][0]["frames"][0]["qualname"] = "h";
  EXPECT_NE(CompareWithTruth(Truth(), wrong_name), "");
  EXPECT_NE(CompareWithTruth(json::parse(R"({"threads": []})"), json::parse(R"({"interpreters": []})")),
            "");
  json null_line = Tool();
  null_line["interpreters"][0]["threads"][0]["frames"][0]["line"] = nullptr;
  EXPECT_NE(CompareWithTruth(Truth(), null_line), "");
}

TEST(Process, RunCapturesOutputAndStatus) {
  RunResult r = RunCommand({"sh", "-c", "echo out; echo err >&2; exit 3"}, 10, CleanEnv());
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "out\n");
  EXPECT_EQ(r.err, "err\n");
  r = RunCommand({"sh", "-c", "kill -SEGV $$"}, 10, CleanEnv());
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.term_signal, SIGSEGV);
}

TEST(Process, TimeoutKillsTheWholeGroup) {
  std::string pidfile = TempDir() + "/grandchild.pid";
  RunResult r =
      RunCommand({"sh", "-c", "sleep 300 & echo $! > " + pidfile + "; wait"}, 1, CleanEnv());
  EXPECT_TRUE(r.timed_out);
  pid_t grandchild = std::stoi(ReadFile(pidfile));
  // SIGKILL takes effect asynchronously: within 5 s the grandchild must be gone (reaped by
  // init or the sandbox's pid 1) or at least a zombie.
  auto gone = [&] {
    return kill(grandchild, 0) != 0 ||
           ReadFile("/proc/" + std::to_string(grandchild) + "/stat").find(") Z") !=
               std::string::npos;
  };
  for (int i = 0; i < 500 && !gone(); ++i) usleep(10000);
  EXPECT_TRUE(gone()) << "sleep " << grandchild << " survived";
}

TEST(Process, DestructorKillsAndReaps) {
  std::string error;
  pid_t pid;
  {
    ProcessOptions options;
    options.argv = {"sleep", "300"};
    auto p = Process::Spawn(options, &error);
    ASSERT_NE(p, nullptr) << error;
    pid = p->pid();
    EXPECT_TRUE(p->Running());
  }
  EXPECT_NE(kill(pid, 0), 0);  // reaped: no such process
}

TEST(Paths, ScenariosAreTheProjectsOwn) {
  for (const char* name : {"threads", "asyncio_tree", "locals", "scale", "scenario_truth"}) {
    const std::string script = ScenarioScript(name);
    EXPECT_EQ(script.rfind('/', 0), 0u) << script;
    EXPECT_TRUE(FileExists(script)) << script;
    EXPECT_EQ(script.find("/shared/"), std::string::npos) << script;
  }
}

TEST(Paths, SharedFixturesAreFound) {
  EXPECT_FALSE(WorkspaceRoot().empty());
  if (!SharedPresent()) GTEST_SKIP() << SharedMissing();
  EXPECT_TRUE(FileExists(SharedDir() + "/fixtures/cores")) << SharedDir();
}

}  // namespace
}  // namespace pyunwind_e2e
