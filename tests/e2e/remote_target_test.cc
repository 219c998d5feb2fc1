// A remote process whose PID names another process on this host: pyunwind must read the
// process the debugger debugs (LLDB: SBProcess::ReadMemory; GDB: Inferior.read_memory), never
// /proc/PID/mem of the local namesake.
//
// A decoy, the asyncio_tree scenario, runs here with PID H. In a new PID namespace
// (`unshare -fp --mount-proc`) the threads scenario is made to get PID H too (ns_last_pid), and
// a debug server (lldb-server, or gdbserver) serves it on 127.0.0.1. The debugger connects
// (LLDB `gdb-remote`; GDB `target remote`, or `target extended-remote` and `attach H`) and sees
// process H; `py-bt --all --json` must match the threads truth (the decoy's frames are
// asyncio_tree's). Skipped, saying why, where unshare or the server cannot be used.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/harness.h"

namespace pyunwind_e2e {
namespace {

constexpr const char* kLldbServer = "/usr/lib/llvm-14/bin/lldb-server";
constexpr const char* kGdbServer = "/usr/bin/gdbserver";

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The decoy here, and the threads scenario with the decoy's PID in its own PID namespace,
// served on 127.0.0.1:port by the server `serve` starts. `serve` is the last line of the
// namespace's shell: $child is the scenario's PID there, $port the port, $server the server.
struct NamespacedScenario {
  std::unique_ptr<Scenario> decoy;
  std::unique_ptr<Process> server;
  json truth;
  pid_t pid = 0;
  int port = 0;
  std::string skip;  // why it cannot run here (then nothing else is set)
};

std::unique_ptr<NamespacedScenario> StartNamespaced(const std::string& server,
                                                   const std::string& serve, int port_offset) {
  auto s = std::make_unique<NamespacedScenario>();
  if (!FileExists("/usr/bin/unshare")) {
    s->skip = "no /usr/bin/unshare (util-linux)";
    return s;
  }
  if (!FileExists(server)) {
    s->skip = "no " + server;
    return s;
  }
  RunResult probe = RunCommand({"unshare", "-fp", "--mount-proc", "true"}, 30);
  if (!probe.exited || probe.exit_code != 0) {
    s->skip = "cannot make a PID namespace here (unshare -fp --mount-proc: " +
              Trimmed(probe.err) + ")";
    return s;
  }
  std::string error;
  s->decoy = Scenario::Start(kDebianPython, "asyncio_tree", &error);
  if (!s->decoy) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  s->pid = s->decoy->pid();
  const std::string tag = std::to_string(port_offset);
  const std::string truth_path = TempDir() + "/remote-threads-truth-" + tag + ".json";
  const std::string pid_path = TempDir() + "/remote-threads-pid-" + tag;
  s->port = 42000 + static_cast<int>((getpid() * 3 + port_offset) % 20000);
  // PID 1 of the namespace is this shell (then the server): when it exits, the kernel kills
  // the namespace's scenario.
  const std::string script =
      "echo $(( $1 - 1 )) > /proc/sys/kernel/ns_last_pid || exit 3\n"
      "\"$2\" \"$3\" \"$4\" > /dev/null 2>&1 &\n"
      "child=$!\n"
      "echo $child > \"$5\"\n"
      "for i in $(seq 600); do [ -s \"$4\" ] && break; sleep 0.1; done\n"
      "server=\"$6\"; port=\"$7\"\n" +
      serve + "\n";
  ProcessOptions options;
  options.argv = {"unshare", "-fp", "--mount-proc", "sh", "-c", script, "sh",
                  std::to_string(s->pid), kDebianPython, ScenarioScript("threads"), truth_path,
                  pid_path, server, std::to_string(s->port)};
  options.env = CleanEnv();
  options.stderr_path = TempDir() + "/remote-server-" + tag + ".err";
  s->server = Process::Spawn(options, &error);
  if (!s->server) {
    ADD_FAILURE() << error;
    return nullptr;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!(FileExists(truth_path) && !ReadFile(truth_path).empty()) && s->server->Running() &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (!FileExists(truth_path)) {
    ADD_FAILURE() << "the namespaced scenario wrote no truth: " << ReadFile(options.stderr_path);
    return nullptr;
  }
  const std::string namespaced_pid = Trimmed(ReadFile(pid_path));
  if (namespaced_pid != std::to_string(s->pid)) {
    s->skip = "the namespaced scenario got PID " + namespaced_pid + ", not the decoy's " +
              std::to_string(s->pid) + " (ns_last_pid)";
    return s;
  }
  try {
    s->truth = json::parse(ReadFile(truth_path));
  } catch (const std::exception& e) {
    ADD_FAILURE() << "truth: " << e.what();
    return nullptr;
  }
  return s;
}

// Runs the debugger until it reaches the server: the server listens once attached; connecting
// before that is refused, so retry on a refused connection only.
RunResult RunConnected(const std::vector<std::string>& argv) {
  RunResult r;
  for (int attempt = 0; attempt < 40; ++attempt) {
    r = RunCommand(argv, 120, DebuggerEnv());
    const std::string all = r.out + r.err;
    if (LinesContaining(all, "onnection refused").empty() &&
        LinesContaining(all, "failed to connect").empty()) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  return r;
}

void ExpectTheRemoteProcessStacks(const NamespacedScenario& s, const RunResult& r) {
  ASSERT_TRUE(r.exited) << r.Describe();
  std::string error;
  auto doc = ExtractJson(r.out, &error);
  ASSERT_TRUE(doc) << error << "\n" << r.Describe();
  const std::string diff = CompareWithTruth(s.truth, *doc);
  EXPECT_EQ(diff, "") << "py-bt read another process than the remote one (the local PID "
                      << s.pid << " is the decoy, asyncio_tree)\n" << r.command;
}

TEST(RemoteTarget, GdbRemoteProcessIsReadThroughLldbNotLocalPid) {
  auto s = StartNamespaced(kLldbServer,
                           "exec \"$server\" gdbserver --attach $child \"127.0.0.1:$port\"", 0);
  ASSERT_NE(s, nullptr);
  if (!s->skip.empty()) GTEST_SKIP() << s->skip;
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;

  RunResult r = RunConnected({"lldb", "--batch", "--no-lldbinit", "-o",
                              "gdb-remote 127.0.0.1:" + std::to_string(s->port), "-o",
                              "plugin load " + install->lldb_plugin, "-o", "py-bt --all --json"});
  ASSERT_FALSE(LinesContaining(r.out, "Process " + std::to_string(s->pid)).empty())
      << "LLDB did not see the remote process as PID " << s->pid << "\n" << r.Describe();
  ExpectTheRemoteProcessStacks(*s, r);
}

// GDB: pyunwind-gdb.py opens /proc/PID/mem only for a "native" connection; `target remote`
// and `target extended-remote` are read through Inferior.read_memory.
struct GdbCase {
  const char* name;
  const char* serve;                  // the namespace's last line
  std::vector<std::string> connect;   // GDB commands; PORT and PID replaced
};

void PrintTo(const GdbCase& c, std::ostream* os) { *os << c.name; }

class GdbRemote : public ::testing::TestWithParam<GdbCase> {};

TEST_P(GdbRemote, ReadsTheRemoteProcessNotTheLocalPid) {
  const GdbCase& c = GetParam();
  auto s = StartNamespaced(kGdbServer, c.serve, 1 + static_cast<int>(c.connect.size()));
  ASSERT_NE(s, nullptr);
  if (!s->skip.empty()) GTEST_SKIP() << s->skip;
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;

  std::vector<std::string> argv = {"gdb", "-batch", "-nx", "-ex",
                                   "source " + install->gdb_script};
  for (std::string command : c.connect) {
    for (const auto& [from, to] : {std::pair<std::string, std::string>{"PORT",
                                                                       std::to_string(s->port)},
                                   {"PID", std::to_string(s->pid)}}) {
      if (auto at = command.find(from); at != std::string::npos) command.replace(at, from.size(), to);
    }
    argv.insert(argv.end(), {"-ex", command});
  }
  argv.insert(argv.end(), {"-ex", "python print('connection:', gdb.selected_inferior().pid, "
                                  "gdb.selected_inferior().connection.type)",
                           "-ex", "py-bt --all --json"});
  RunResult r = RunConnected(argv);
  ASSERT_FALSE(LinesContaining(r.out, "connection: " + std::to_string(s->pid) + " ").empty())
      << "GDB did not see the remote process as PID " << s->pid << "\n" << r.Describe();
  ExpectTheRemoteProcessStacks(*s, r);
}

INSTANTIATE_TEST_SUITE_P(
    Connections, GdbRemote,
    ::testing::Values(
        GdbCase{"target_remote",
                "exec \"$server\" --attach \"127.0.0.1:$port\" $child",
                {"target remote 127.0.0.1:PORT"}},
        GdbCase{"target_extended_remote", "exec \"$server\" --multi \"127.0.0.1:$port\"",
                {"target extended-remote 127.0.0.1:PORT", "attach PID"}}),
    [](const ::testing::TestParamInfo<GdbCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace pyunwind_e2e
