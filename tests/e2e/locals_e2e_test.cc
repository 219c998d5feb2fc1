// A debugging session's Python view (locals and frame selection), end to end in LLDB and GDB, batch mode:
//
//   * Locals. `py-bt --all --locals --json` against the `locals` truth, live on Debian's
//     /usr/bin/python3.11 and pyenv's 3.11.7 running tests/data/locals.py, and from every `locals`
//     fixture core (<shared>/fixtures/cores/VERSION/locals, read without an executable).
//     The rules are those of tests/locals_core_test.cc (the same check without a debugger):
//     the truth's worker thread (truth.locals.role) has the truth's frames (same count, same
//     qualnames, innermost first), no locals_error, the same local names in each frame, the
//     same type name for every local, and for None, bool, int, float, str, bytes, tuple,
//     list, dict and set the same repr as Python's repr() (the truth cuts reprs at 120
//     characters: pyunwind's is cut there before comparing); at least the 16 simple values
//     of innermost, middle and outer are compared; no warnings. Every thread's stack is also
//     checked against the truth (CompareWithTruth).
//   * The GIL. `holds_gil` in `py-bt --all --json` against the `threads` truth's
//     gil_holder_role: true exactly for the holder's thread and false for every other
//     thread on each default (GIL) build's `threads` fixture core and on live Debian 3.11
//     threads.py; null on every thread of a free-threaded core. (tests/fixture_cores_core_test.cc
//     checks the same without a debugger; tests/e2e/fixture_cores_test.cc checks only the
//     stacks, not holds_gil.)
//   * py-locals in the debugger. py-up / py-down / py-frame / py-list in batch mode on a live
//     process are in native_test.cc (PyUpDownFrameList, both debuggers); py-locals is run in
//     no debugger by any other test: here, live Debian 3.11 locals.py, the worker thread
//     selected with the debugger's own command (py-bt then names it), `py-up 2` and `py-up`,
//     `py-locals` prints middle()'s header line and locals, and `py-locals --frame 1`
//     innermost()'s (exact text).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_sources.h"
#include "tests/locals_truth.h"

namespace pyunwind_e2e {
namespace {

// pyunwind's thread with this OS thread id, or nullptr.
const json* ThreadOf(const json& doc, uint64_t native_id) {
  for (const json& interp : doc.at("interpreters")) {
    for (const json& t : interp.at("threads")) {
      if (t.at("native_id").is_number() && t.at("native_id").get<uint64_t>() == native_id) return &t;
    }
  }
  return nullptr;
}

// Runs `command` in the debugger; the one JSON document of its output, or a failure.
::testing::AssertionResult RunJson(const SourceCase& c, const Install& install,
                                   const Target& target, const std::string& command, json* doc,
                                   RunResult* run) {
  *run = RunDebugger(c.debugger, install, target, {command});
  if (!run->exited || run->exit_code != 0) return ::testing::AssertionFailure() << run->Describe();
  std::string error;
  auto found = ExtractJson(run->out, &error);
  if (!found) return ::testing::AssertionFailure() << error << "\n" << run->Describe();
  *doc = std::move(*found);
  return ::testing::AssertionSuccess();
}

// ---------------------------------------------------------------- locals

class LocalsE2e : public SourceTest {};

TEST_P(LocalsE2e, PyBtAllLocalsJsonMatchesTruth) {
  const SourceCase& c = GetParam();
  const json& truth = this->truth();
  ASSERT_TRUE(truth.contains("locals")) << "the truth has no \"locals\"";

  json got;
  RunResult run;
  ASSERT_TRUE(RunJson(c, install(), target(), "py-bt --all --locals --json", &got, &run));
  EXPECT_EQ(got.at("python").at("version"), truth.at("python").at("version"));
  EXPECT_EQ(CompareWithTruth(truth, got), "") << run.command;

  uint64_t worker = 0;
  for (const json& thread : truth.at("threads")) {
    if (thread.at("role") == truth.at("locals").at("role")) worker = thread.at("native_id");
  }
  ASSERT_NE(worker, 0u) << "no thread of role " << truth.at("locals").at("role");
  const json* thread = ThreadOf(got, worker);
  ASSERT_NE(thread, nullptr) << "no thread " << worker << " in pyunwind's output\n" << run.Describe();
  const size_t compared = pyunwind::testing::ExpectLocalsMatchTruth(thread->at("frames"), truth.at("locals"));
  EXPECT_GE(compared, 16u);  // every simple value of innermost, middle and outer
  EXPECT_TRUE(got.at("warnings").empty()) << got.at("warnings").dump();
}

INSTANTIATE_TEST_SUITE_P(Locals, LocalsE2e,
                         ::testing::ValuesIn(SourceCases("locals", {"debian_3_11", "pyenv_3_11_7"})),
                         SourceCaseName);

// ---------------------------------------------------------------- the GIL

class GilE2e : public SourceTest {};

TEST_P(GilE2e, HoldsGilMatchesTruth) {
  const SourceCase& c = GetParam();
  const json& truth = this->truth();
  const bool free_threaded = truth.at("python").at("free_threaded");
  ASSERT_TRUE(free_threaded || truth.contains("gil_holder_role")) << "the truth has no gil_holder_role";

  json got;
  RunResult run;
  ASSERT_TRUE(RunJson(c, install(), target(), "py-bt --all --json", &got, &run));
  EXPECT_EQ(got.at("python").at("free_threaded"), free_threaded);

  size_t holders = 0;
  for (const json& want : truth.at("threads")) {
    const uint64_t native_id = want.at("native_id");
    const std::string role = want.at("role");
    SCOPED_TRACE("thread " + std::to_string(native_id) + " (" + role + ")");
    const json* thread = ThreadOf(got, native_id);
    if (!thread) {
      ADD_FAILURE() << "missing from pyunwind's output\n" << run.Describe();
      continue;
    }
    if (free_threaded) {
      EXPECT_TRUE(thread->at("holds_gil").is_null()) << thread->at("holds_gil");
    } else {
      const bool holder = role == truth.at("gil_holder_role").get<std::string>();
      holders += holder;
      EXPECT_EQ(thread->at("holds_gil"), holder);
    }
  }
  if (!free_threaded) {
    EXPECT_EQ(holders, 1u) << "the truth's gil_holder_role names no thread";
    // Threads the truth does not list (none expected) must not hold the GIL either.
    for (const json& interp : got.at("interpreters")) {
      for (const json& thread : interp.at("threads")) {
        bool listed = false;
        for (const json& want : truth.at("threads")) listed |= want.at("native_id") == thread.at("native_id");
        if (!listed) {
          EXPECT_NE(thread.at("holds_gil"), true) << "unlisted thread " << thread.dump();
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Threads, GilE2e, ::testing::ValuesIn(SourceCases("threads", {"debian_3_11"})),
                         SourceCaseName);

// ---------------------------------------------------------------- py-locals in the debugger

class PyLocalsLive : public ::testing::TestWithParam<Debugger> {
 public:
  static void TearDownTestSuite() { Sources::ForgetAll(); }
};

TEST_P(PyLocalsLive, SelectedFrameAndFrameOption) {
  const Debugger d = GetParam();
  std::string error;
  const Install* install = Installed(&error);
  ASSERT_NE(install, nullptr) << error;
  const SourceCase c{"locals", "debian_3_11", true, d};
  const Source* source = Sources::Of(c, &error);
  if (!source) PYU_SKIP_OR_FAIL(error);
  const json* worker = nullptr;
  for (const json& thread : source->truth.at("threads")) {
    if (thread.at("role") == "worker") worker = &thread;
  }
  ASSERT_NE(worker, nullptr);
  const std::string id = std::to_string(worker->at("native_id").get<uint64_t>());
  // Threads in order of their OS ids: main, worker, recorder; the worker is thread 2 in both
  // debuggers (checked below with py-bt's header, which names the selected thread).
  const std::string select = d == Debugger::kLldb ? "thread select 2" : "thread 2";
  RunResult run = RunDebugger(d, *install, TargetOf(c, *source),
                              {select, "py-bt", "py-up 2", "py-up", "py-locals", "py-locals --frame 1"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  const std::string& o = run.out;
  // "Thread ID:" or "Thread ID "name" (flags):", the header py-bt starts the thread with.
  ASSERT_TRUE(o.find("\nThread " + id + ":\n") != std::string::npos ||
              o.find("\nThread " + id + " \"") != std::string::npos)
      << "py-bt does not show the worker thread " << id << "\n" << run.Describe();
  // "#N File "<file>", line L, in <name>" of the worker's frame N (the truth's).
  auto header = [&](size_t n) {
    const json& f = worker->at("frames").at(n);
    return "#" + std::to_string(n) + " File \"" + f.at("filename").get<std::string>() +
           "\", line " + std::to_string(f.at("line").get<int>()) + ", in " +
           f.at("name").get<std::string>() + "\n";
  };
  // py-locals after py-up 2 and py-up (from the sleep's C code: frames 0, 1, 2): middle().
  const std::string middle = header(2) +
                             "  account = 1234\n"
                             "  tags = ['red', 'green']\n"
                             "  count = 6\n"
                             "  motto = 'naïve café ☕'\n";
  const size_t at = o.find(middle);
  EXPECT_NE(at, std::string::npos) << "py-locals should print:\n" << middle << run.Describe();
  // py-locals --frame 1: innermost(), whatever the selection.
  const std::string innermost = header(1) +
                                "  number = -7\n"
                                "  word = 'wörd'\n"
                                "  ratio = 0.125\n"
                                "  yes = False\n"
                                "  nothing = None\n"
                                "  raw = b'\\x01\\xferaw'\n"
                                "  pair = ('x', 2)\n"
                                "  items = [4, 5, 6]\n"
                                "  table = {'k': [1], 'z': None}\n"
                                "  huge = 2503155504993241601315571986085849\n"
                                "  doubled = 'naïve café ☕naïve café ☕'\n"
                                "  single = {'solo'}\n";
  EXPECT_NE(o.find(innermost, at == std::string::npos ? 0 : at), std::string::npos)
      << "py-locals --frame 1 should print:\n" << innermost << run.Describe();
}

INSTANTIATE_TEST_SUITE_P(Locals311, PyLocalsLive, ::testing::Values(Debugger::kLldb, Debugger::kGdb),
                         [](const ::testing::TestParamInfo<Debugger>& info) {
                           return std::string(DebuggerName(info.param));
                         });

// With no fixture cores found, the core cases above would be missing and pass silently.
TEST(LocalsE2eFixtures, SharedFixturesAreThere) {
  if (!SharedPresent()) GTEST_SKIP() << SharedMissing();
  EXPECT_FALSE(FixtureVersions("locals").empty())
      << "no locals fixture cores under " << SharedDir() << "/fixtures/cores";
  EXPECT_FALSE(FixtureVersions("threads").empty())
      << "no threads fixture cores under " << SharedDir() << "/fixtures/cores";
}

}  // namespace
}  // namespace pyunwind_e2e
