// py-bt --all --greenlets against tests/data/greenlets.py on Debian's 3.11 with Debian's
// python3-greenlet 2.0.2 and python3-gevent 22.10.2, on Debian 13's 3.13 (greenlet 3.1.0, gevent
// 24.11.1: threads told by the memory region of their stack pointer) and on Debian unstable's
// 3.14 (greenlet 3.3.2, gevent 25.9.1) and 3.15 (greenlet 3.3.2, no gevent built for it) where
// .ci/fetch-pythons unpacked them: threads with suspended greenlets (one of a subclass), a thread whose main
// greenlet is suspended while another runs, and gevent's greenlets and main greenlet in the
// main thread while the hub runs. Live, and from a gcore core opened alone and with its
// executable, in LLDB and GDB:
//   * JSON: every thread's "greenlets" are exactly the truth's (address, type's last dotted
//     name, is_main, and frames: file, line, function, innermost first), under the thread
//     the truth recorded them in; no greenlet that is not suspended (never started, finished,
//     running) is listed;
//   * text: each greenlet's header line names it and its thread, once;
//   * without --greenlets, no thread has the field, and the text says the option would show
//     more.
#include <gtest/gtest.h>

#include <optional>
#include <map>
#include <string>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

constexpr char kScript[] = "tests/data/greenlets.py";

std::string LastDotted(const std::string& name) {
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// A greenlet as the test compares it: "address type is_main" and its frames, one per line.
std::string Describe(const json& greenlet, bool tool) {
  std::string out = greenlet.at("address").get<std::string>() + " " +
                    (tool ? LastDotted(greenlet.at("type")) : greenlet.at("type").get<std::string>()) +
                    (greenlet.at("is_main").get<bool>() ? " main" : "") + "\n";
  for (const json& frame : greenlet.at("frames")) {
    out += "  " + frame.at("filename").get<std::string>() + ":" +
           std::to_string(frame.at("line").get<int>()) + " " + frame.at("name").get<std::string>() +
           "\n";
  }
  return out;
}

// Each greenlet by its address.
std::map<std::string, std::string> ByAddress(const json& greenlets, bool tool) {
  std::map<std::string, std::string> out;
  for (const json& g : greenlets) out[g.at("address")] = Describe(g, tool);
  return out;
}

class Greenlets : public ScenarioMatrixTest {
 protected:
  void SetUp() override {
    // Debian 12's are packages (.ci/packages.txt); Debian 13's and unstable's are unpacked
    // beside it.
    const std::optional<std::string> python = InterpreterPath(GetParam().interp);
    const bool stable = GetParam().interp == "debian_3.11" || GetParam().interp == kTrixieInterp;
    const char* needed = stable ? "gevent" : "greenlet";
    if (python && !Imports(*python, needed)) {
      GTEST_SKIP() << *python << " cannot import " << needed
                   << " (.ci/packages.txt installs Debian 12's, .ci/fetch-pythons trixie 3.14 "
                      "3.15 unpacks Debian 13's and unstable's)";
    }
    Start(kScript);
  }

  static bool Imports(const std::string& python, const std::string& module) {
    RunResult r = RunCommand({python, "-c", "import greenlet, " + module}, 60);
    return r.exited && r.exit_code == 0;
  }
};

TEST_P(Greenlets, SuspendedGreenletsMatchTheTruth) {
  const json& truth = scenario_->truth();
  // gevent's greenlets in the main thread, where gevent is built for this Python.
  const bool gevent = !truth.at("gevent_version").is_null();
  ASSERT_EQ(truth.at("threads").size(), gevent ? 4u : 3u) << truth.dump(1);
  size_t expected = 0;
  for (const auto& [id, thread] : truth.at("threads").items()) expected += thread.at("greenlets").size();
  ASSERT_EQ(expected, 4u + 4u + 3u + (gevent ? 6u : 0u)) << truth.dump(1);

  RunResult run = RunDebugger(GetParam().debugger, *install_, target_,
                              {"py-bt --all --greenlets --json", "py-bt --all --greenlets",
                               "py-bt --all --json", "py-bt --all --no-source"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  // The first JSON document: ExtractJson wants one, so the output is cut at the text's start.
  const size_t text_start = run.out.find("\nThread ");
  ASSERT_NE(text_start, std::string::npos) << run.Describe();
  std::string error;
  auto got = ExtractJson(run.out.substr(0, text_start), &error);
  ASSERT_TRUE(got) << error << "\n" << run.Describe();

  size_t listed = 0;
  for (const auto& [native_id, thread] : ThreadsByNativeId(*got)) {
    ASSERT_TRUE(thread.contains("greenlets")) << thread.dump(1);
    const std::string id = std::to_string(native_id);
    const json none = json::array();
    const json& want = truth.at("threads").contains(id) ? truth.at("threads").at(id).at("greenlets")
                                                        : none;
    EXPECT_EQ(ByAddress(thread.at("greenlets"), true), ByAddress(want, false))
        << "thread " << id << "\n" << got->dump(1);
    listed += thread.at("greenlets").size();
  }
  EXPECT_EQ(listed, expected) << got->dump(1);

  // The text: one header per greenlet, naming its thread.
  for (const auto& [id, thread] : truth.at("threads").items()) {
    for (const json& g : thread.at("greenlets")) {
      const std::string header = "Greenlet " + g.at("address").get<std::string>() + " (";
      const auto lines = LinesContaining(run.out, header);
      ASSERT_EQ(lines.size(), 1u) << header << "\n" << run.out;
      EXPECT_NE(lines[0].find("suspended in thread " + id), std::string::npos) << lines[0];
    }
  }
  // Without --greenlets: no greenlet read, no field.
  const size_t plain_start = run.out.find("\n{", text_start);
  ASSERT_NE(plain_start, std::string::npos) << run.Describe();
  const size_t plain_end = run.out.find("\nThread ", plain_start);
  ASSERT_NE(plain_end, std::string::npos) << run.Describe();
  auto without = ExtractJson(run.out.substr(plain_start, plain_end - plain_start), &error);
  ASSERT_TRUE(without) << error;
  for (const auto& [native_id, thread] : ThreadsByNativeId(*without)) {
    EXPECT_FALSE(thread.contains("greenlets")) << thread.dump(1);
  }
  // The text without --greenlets shows no greenlet, and says the option would.
  const std::string plain_text = run.out.substr(plain_end);
  EXPECT_EQ(plain_text.find("Greenlet 0x"), std::string::npos) << plain_text;
  EXPECT_EQ(LinesContaining(plain_text, "warning: greenlet is imported: py-bt --all --greenlets "
                                        "also shows each thread's suspended greenlets")
                .size(),
            1u)
      << plain_text;
}

INSTANTIATE_TEST_SUITE_P(Interpreters, Greenlets,
                         ::testing::ValuesIn(MatrixCells({"debian_3.11", kTrixieInterp, "sid_3.14", "sid_3.15"},
                                                             Cores::kBoth)),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e
