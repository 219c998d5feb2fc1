// Every input of the fuzz corpus (fuzz/corpus) and every input the fuzzer
// found a bug with (tests/data/fuzz_regressions, reduced) through the fuzz
// target's check (fuzz/command_check.h): the input is read, every command runs,
// and each returns data or one error line, its JSON parsing. Under `bazel test
// --config=asan` this is the fuzzer's check with ASan and UBSan. And the
// amplification seeds still are what they are for: past the work budget,
// stopped by it in time; the PYTHONHASHSEED=0 seed, its dicts searched by hash.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/commands/commands.h"
#include "core/target/elf_core_target.h"
#include "fuzz/command_check.h"
#include "fuzz/state_file.h"
#include "fuzz/zero_secret_target.h"

namespace {

namespace fs = std::filesystem;

using pyunwind::fuzz::CheckInput;
using pyunwind::fuzz::InputReport;
using pyunwind::fuzz::Invocation;
using pyunwind::fuzz::Invocations;
using pyunwind::fuzz::Violation;

std::vector<uint8_t> Contents(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::vector<fs::path> Inputs(const char* dir) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir)) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

// Checks every input of `dir` (at least `at_least` of them): read as a core, every command
// run, no finding; returns each input's path and report.
std::vector<std::pair<std::string, InputReport>> CheckEach(const char* dir, size_t at_least) {
  const std::vector<fs::path> paths = Inputs(dir);
  EXPECT_GE(paths.size(), at_least) << dir;
  std::vector<std::pair<std::string, InputReport>> reports;
  for (const fs::path& path : paths) {
    SCOPED_TRACE(path.string());
    const std::vector<uint8_t> bytes = Contents(path);
    EXPECT_FALSE(bytes.empty());
    InputReport report = CheckInput(bytes.data(), bytes.size());
    EXPECT_TRUE(report.target_read) << "not read as a core";
    EXPECT_EQ(report.succeeded.size() + report.failed.size() + report.findings.size(),
              report.target_read ? Invocations().size() : 0);
    for (const pyunwind::fuzz::Finding& finding : report.findings) {
      ADD_FAILURE() << finding.command_line << ": " << finding.violation << "\n--- output:\n"
                    << finding.output.substr(0, 2000);
    }
    // Each command within the check's output limit (and the warnings after its cut): the
    // frame chain seed printed up to 36 MB a command under the default limit, and the fuzz
    // target spent 16.7 s of CPU a run making and parsing it.
    EXPECT_LE(report.largest_output, pyunwind::fuzz::kCheckOutputLimit.bytes + (64 << 10));
    reports.emplace_back(path.string(), std::move(report));
  }
  return reports;
}

bool Contains(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

// The check passes data and one error line, and refuses what the fuzz target aborts on.
TEST(FuzzCheck, RefusesWhatTheFuzzTargetAbortsOn) {
  const Invocation json{"py-bt", {"--all", "--json"}, true};
  const Invocation text{"py-list", {}, false};
  EXPECT_EQ(Violation(json, {"{\"interpreters\": []}\n", false}), "");
  EXPECT_EQ(Violation(text, {"pyunwind: no Python runtime found\n", true}), "");
  EXPECT_EQ(Violation(text, {"  1    x = 1\n  2    y = 2\n", false}), "");
  EXPECT_EQ(Violation(json, {"{\"interpreters\": [\n", false}), "JSON does not parse");
  EXPECT_EQ(Violation(json, {"", false}), "output does not end a line");
  EXPECT_EQ(Violation(text, {"pyunwind: no frame", true}), "output does not end a line");
  EXPECT_EQ(Violation(text, {"no frame\n", true}), "error without 'pyunwind: '");
  EXPECT_EQ(Violation(text, {"pyunwind: one\npyunwind: two\n", true}),
            "error of several lines");
}

// Every seed is a real interpreter state (or one shaped like the amplification tests): the
// whole stack is there to mutate, so py-bt --all --json returns data on each.
TEST(FuzzCorpus, EverySeedRuns) {
  for (const auto& [path, report] : CheckEach("fuzz/corpus", 18)) {
    EXPECT_TRUE(Contains(report.succeeded, "py-bt --all --json")) << path;
  }
}

TEST(FuzzCorpus, EveryFoundBugStaysFixed) { CheckEach("tests/data/fuzz_regressions", 1); }

// The seeds fuzz/make_amplification_seeds writes: found without symbols, shown, and stopped in
// well under the fuzz target's 20 s. The frame chain seed runs out of the work budget (a mutation
// starts at its edge) and says so. The line table seed ran out of it too while each of its 512
// code objects decoded the shared table again (16.8M entries, the budget 4.2M); the table is
// decoded once now (32,768 entries): all 512 frames are shown and nothing runs out.
TEST(FuzzCorpus, AmplificationSeedsRunOutOfTheWorkBudget) {
  size_t seeds = 0;
  for (const fs::path& path : Inputs("fuzz/corpus")) {
    const std::string name = path.filename().string();
    if (name.find("_amplify_") == std::string::npos) continue;
    SCOPED_TRACE(path.string());
    ++seeds;
    const bool shared_table = name.find("_line_table") != std::string::npos;
    const std::vector<uint8_t> state = Contents(path);
    const std::vector<uint8_t> core = pyunwind::fuzz::ExpandState(state.data(), state.size());
    auto target = pyunwind::ElfCoreTarget::FromBytes(core.data(), core.size());
    ASSERT_TRUE(target.ok()) << target.error().message;
    pyunwind::CommandContext context{**target};
    const auto start = std::chrono::steady_clock::now();
    const pyunwind::CommandOutput out = pyunwind::RunCommand("py-bt", {"--all", "--stats"}, context);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_FALSE(out.failed) << out.text;
    EXPECT_NE(out.text.find("File \"/amplify.py\""), std::string::npos) << out.text.substr(0, 300);
    const std::string tail = out.text.substr(out.text.size() - std::min<size_t>(out.text.size(), 500));
    if (shared_table) {
      EXPECT_EQ(out.text.find("the work budget of one command ran out"), std::string::npos) << tail;
      EXPECT_NE(out.text.find(" 32768/4194304 line-table entries decoded"), std::string::npos) << tail;
      EXPECT_NE(out.text.find(", 512/131072 frames visited"), std::string::npos) << tail;
    } else {
      EXPECT_NE(out.text.find("the work budget of one command ran out"), std::string::npos) << tail;
    }
    EXPECT_LT(seconds, 5);
  }
  EXPECT_EQ(seeds, 2u) << "fuzz/corpus should hold the two amplification seeds";
}

// A command about the selected thread walks that thread's frames alone. It walked every
// thread's: on the frame chain seed, each of the check's five such commands visited the 131,072
// frames the work budget allows, and its last thread, past them, had none (py-frame: "the
// selected thread (OS thread id 255) has no Python frames").
TEST(FuzzCorpus, CommandsAboutTheSelectedThreadWalkItsFramesAlone) {
  const std::vector<uint8_t> state = Contents("fuzz/corpus/state-3.11_amplify_shared_frame_chain");
  ASSERT_FALSE(state.empty());
  const std::vector<uint8_t> core = pyunwind::fuzz::ExpandState(state.data(), state.size());
  auto target = pyunwind::ElfCoreTarget::FromBytes(core.data(), core.size());
  ASSERT_TRUE(target.ok()) << target.error().message;
  const std::vector<uint64_t> tids = (*target)->ThreadIds();
  ASSERT_EQ(tids.size(), 255u);
  pyunwind::CommandContext context{**target};
  context.selected_thread_id = tids.back();
  const pyunwind::CommandOutput bt = pyunwind::RunCommand("py-bt", {"--stats"}, context);
  EXPECT_FALSE(bt.failed) << bt.text.substr(0, 300);
  const std::string tail = bt.text.substr(bt.text.size() - std::min<size_t>(bt.text.size(), 500));
  size_t frames = 0;
  for (size_t at = bt.text.find("File \"/amplify.py\""); at != std::string::npos;
       at = bt.text.find("File \"/amplify.py\"", at + 1)) {
    ++frames;
  }
  EXPECT_EQ(frames, 1024u) << tail;
  EXPECT_NE(bt.text.find(", 1024/131072 frames visited"), std::string::npos) << tail;
  EXPECT_EQ(bt.text.find("the work budget of one command ran out"), std::string::npos) << tail;
  EXPECT_EQ(pyunwind::RunCommand("py-frame", {}, context).text,
            "#0 File \"/amplify.py\", line 1, in f\n");
  for (const char* command : {"py-list", "py-locals", "py-up"}) {
    const pyunwind::CommandOutput out = pyunwind::RunCommand(command, {}, context);
    EXPECT_EQ(out.text.find("has no Python frames"), std::string::npos) << command << ": " << out.text;
    EXPECT_EQ(out.text.find("work budget"), std::string::npos) << command << ": " << out.text;
  }
  EXPECT_EQ(pyunwind::RunCommand("py-frame", {}, context).text,
            "#1 File \"/amplify.py\", line 1, in f\n");  // where py-up went
}

// The seed of a process started with PYTHONHASHSEED=0 (tests/data/threads.py), made with the
// zero secret the fuzz target supplies: its dicts are searched by their keys' hash (fewer entries
// read than key by key, the same thread names), so a mutation of it reaches the dicts' index
// tables and the probe.
TEST(FuzzCorpus, HashSeedZeroSeedIsSearchedByHash) {
  const std::vector<uint8_t> state = Contents("fuzz/corpus/state-3.11.2_hashseed0_threads");
  ASSERT_FALSE(state.empty()) << "fuzz/corpus/state-3.11.2_hashseed0_threads";
  const std::vector<uint8_t> core = pyunwind::fuzz::ExpandState(state.data(), state.size());
  auto target = pyunwind::ElfCoreTarget::FromBytes(core.data(), core.size());
  ASSERT_TRUE(target.ok()) << target.error().message;
  // The thread names and how many container entries the walk read.
  auto walk = [](pyunwind::Target& on) {
    pyunwind::CommandContext context{on};
    const pyunwind::CommandOutput out =
        pyunwind::RunCommand("py-bt", {"--all", "--json", "--stats"}, context);
    EXPECT_FALSE(out.failed) << out.text;
    const nlohmann::json json = nlohmann::json::parse(out.text);
    std::vector<std::string> names;
    for (const auto& interpreter : json.at("interpreters")) {
      for (const auto& thread : interpreter.at("threads")) {
        names.push_back(thread.value("name", std::string()));
      }
    }
    std::sort(names.begin(), names.end());
    const int64_t entries =
        json.at("stats").at("work").at("container_entries_read").at("spent").get<int64_t>();
    return std::make_pair(names, entries);
  };
  pyunwind::fuzz::ZeroHashSecretTarget with_secret(**target);
  const auto [by_hash, entries_by_hash] = walk(with_secret);
  const auto [key_by_key, entries_key_by_key] = walk(**target);
  EXPECT_EQ(by_hash, (std::vector<std::string>{"MainThread", "deep", "generator", "recorder",
                                               "reentry", "spinner", "unicode", "waiter"}));
  EXPECT_EQ(by_hash, key_by_key);
  EXPECT_LT(entries_by_hash * 2, entries_key_by_key);
}

}  // namespace
