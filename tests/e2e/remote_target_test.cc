// A gdb-remote process whose PID names another process on this host: pyunwind must read the
// process LLDB debugs (SBProcess::ReadMemory), never /proc/PID/mem of the local namesake.
//
// A decoy, the asyncio_tree scenario, runs here with PID H. In a new PID namespace
// (`unshare -fp --mount-proc`) the threads scenario is made to get PID H too (ns_last_pid), and
// lldb-server attaches to it and listens on 127.0.0.1. LLDB connects (`gdb-remote`) and sees
// process H; `py-bt --all --json` must match the threads truth (the decoy's frames are
// asyncio_tree's). Skipped, saying why, where unshare or lldb-server cannot be used.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

constexpr const char* kLldbServer = "/usr/lib/llvm-14/bin/lldb-server";

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

TEST(RemoteTarget, GdbRemoteProcessIsReadThroughLldbNotLocalPid) {
  if (!FileExists("/usr/bin/unshare")) GTEST_SKIP() << "no /usr/bin/unshare (util-linux)";
  if (!FileExists(kLldbServer)) GTEST_SKIP() << "no " << kLldbServer;
  {
    RunResult probe = RunCommand({"unshare", "-fp", "--mount-proc", "true"}, 30);
    if (!probe.exited || probe.exit_code != 0) {
      GTEST_SKIP() << "cannot make a PID namespace here (unshare -fp --mount-proc: "
                   << Trimmed(probe.err) << ")";
    }
  }
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;

  std::unique_ptr<Scenario> decoy = Scenario::Start(kDebianPython, "asyncio_tree", &error);
  if (!decoy) PYU_SKIP_OR_FAIL(error);
  const pid_t pid = decoy->pid();

  const std::string truth_path = TempDir() + "/remote-threads-truth.json";
  const std::string pid_path = TempDir() + "/remote-threads-pid";
  const int port = 42000 + static_cast<int>(getpid() % 20000);
  // PID 1 of the namespace is this shell (then lldb-server): when it exits, the kernel kills
  // the namespace's scenario.
  const std::string script =
      "echo $(( $1 - 1 )) > /proc/sys/kernel/ns_last_pid || exit 3\n"
      "\"$2\" \"$3\" \"$4\" > /dev/null 2>&1 &\n"
      "child=$!\n"
      "echo $child > \"$5\"\n"
      "for i in $(seq 600); do [ -s \"$4\" ] && break; sleep 0.1; done\n"
      "exec \"$6\" gdbserver --attach $child \"127.0.0.1:$7\"\n";
  ProcessOptions options;
  options.argv = {"unshare", "-fp", "--mount-proc", "sh", "-c", script, "sh",
                  std::to_string(pid), kDebianPython, ScenarioScript("threads"), truth_path,
                  pid_path, kLldbServer, std::to_string(port)};
  options.env = CleanEnv();
  options.stderr_path = TempDir() + "/remote-lldb-server.err";
  std::unique_ptr<Process> server = Process::Spawn(options, &error);
  ASSERT_NE(server, nullptr) << error;

  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!(FileExists(truth_path) && !ReadFile(truth_path).empty()) && server->Running() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(FileExists(truth_path)) << "the namespaced scenario wrote no truth: "
                                      << ReadFile(options.stderr_path);
  const std::string namespaced_pid = Trimmed(ReadFile(pid_path));
  if (namespaced_pid != std::to_string(pid)) {
    GTEST_SKIP() << "the namespaced scenario got PID " << namespaced_pid << ", not the decoy's "
                 << pid << " (ns_last_pid)";
  }
  json truth;
  ASSERT_NO_THROW(truth = json::parse(ReadFile(truth_path)));

  // lldb-server listens once attached; connecting before that is refused (it then keeps
  // waiting), so retry on a refused connection only.
  RunResult r;
  for (int attempt = 0; attempt < 40; ++attempt) {
    r = RunCommand({"lldb", "--batch", "--no-lldbinit", "-o",
                    "gdb-remote 127.0.0.1:" + std::to_string(port), "-o",
                    "plugin load " + install->lldb_plugin, "-o", "py-bt --all --json"},
                   120, DebuggerEnv());
    if (LinesContaining(r.out + r.err, "onnection refused").empty() &&
        LinesContaining(r.out + r.err, "failed to connect").empty()) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  ASSERT_TRUE(r.exited) << r.Describe();
  ASSERT_FALSE(LinesContaining(r.out, "Process " + std::to_string(pid)).empty())
      << "LLDB did not see the remote process as PID " << pid << "\n" << r.Describe();
  auto doc = ExtractJson(r.out, &error);
  ASSERT_TRUE(doc) << error << "\n" << r.Describe();
  const std::string diff = CompareWithTruth(truth, *doc);
  EXPECT_EQ(diff, "") << "py-bt read another process than the remote one (the local PID " << pid
                      << " is the decoy, asyncio_tree)\n" << r.command;
}

}  // namespace
}  // namespace pyunwind_e2e
