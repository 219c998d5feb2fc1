// The core unwinder alone, no debugger: how fast it walks the `scale` fixture
// cores (main thread 1,500 frames deep + 24 threads x 60 frames + recorder).
//
//   bazel run //bench:core_walk_benchmark
//   bazel run //bench:core_walk_benchmark -- --fixtures=/path/to/shared/fixtures
//       --versions=3.11.2,3.14.7 --benchmark_filter=Walk
//
// Where the cores come from (first that is set):
//   --fixtures=DIR     or $PYUNWIND_FIXTURES: the shared fixtures folder (holds cores/)
//   otherwise          $BUILD_WORKSPACE_DIRECTORY/../shared/fixtures (set by `bazel run`),
//                      then ./../shared/fixtures
// Each cores/<ver>/scale/core.xz is decompressed once with `xz -dc` into a
// temporary directory ($TMPDIR or /tmp; --keep-cores keeps it) and opened with
// ElfCoreTarget (mmap of the file; after the first iteration it is all in the
// page cache, i.e. an in-memory image).
//
// Benchmarks, one per version (counters: items_processed = Python frames, so
// "items_per_second" is frames per second):
//   PyBtAllJson/<ver>  RunCommand("py-bt", {"--all", "--json"}): runtime location
//                      (the memory scan: the cores have no symbols), walk, JSON.
//   PyBtAllText/<ver>  the same with {"--all"}: the text the debuggers print.
//   WalkCold/<ver>     WalkRuntime with a fresh RemoteMemory + ObjectReader +
//                      CodeCache every iteration (LocateRuntime done once, outside).
//   WalkWarm/<ver>     WalkRuntime reusing one RemoteMemory + CodeCache (all pages
//                      and code objects cached): the walk's own CPU cost.
//   Locate/<ver>       LocateRuntime alone with a fresh RemoteMemory.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/walk/code_objects.h"
#include "core/commands/commands.h"
#include "core/target/elf_core_target.h"
#include "core/target/memory.h"
#include "core/objects/objects.h"
#include "core/runtime/runtime_locator.h"
#include "core/walk/threads.h"

namespace fs = std::filesystem;

namespace {

struct Fixture {
  std::string version;
  std::string core_path;
  std::unique_ptr<pyunwind::ElfCoreTarget> target;
  pyunwind::RuntimeLocation location;
  size_t frames = 0;
};

std::vector<std::unique_ptr<Fixture>>& Fixtures() {
  static std::vector<std::unique_ptr<Fixture>> fixtures;
  return fixtures;
}

size_t CountFrames(const pyunwind::Snapshot& snapshot) {
  size_t frames = 0;
  for (const auto& interp : snapshot.interpreters) {
    for (const auto& thread : interp.threads) frames += thread.frames.size();
  }
  return frames;
}

std::string DefaultFixturesDir() {
  if (const char* env = std::getenv("PYUNWIND_FIXTURES"); env && *env) return env;
  if (const char* ws = std::getenv("BUILD_WORKSPACE_DIRECTORY"); ws && *ws) {
    return std::string(ws) + "/../shared/fixtures";
  }
  return "../shared/fixtures";
}

std::vector<std::string> Split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, sep)) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "core_walk_benchmark: %s\n", message.c_str());
  return 1;
}

void PyBtAll(benchmark::State& state, Fixture* fixture, bool json) {
  pyunwind::CommandContext context{*fixture->target, std::nullopt, false, std::nullopt, std::nullopt};
  const std::vector<std::string> args =
      json ? std::vector<std::string>{"--all", "--json"} : std::vector<std::string>{"--all"};
  size_t bytes = 0;
  for (auto _ : state) {
    pyunwind::CommandOutput out = pyunwind::RunCommand("py-bt", args, context);
    if (out.failed) {
      state.SkipWithError(out.text.c_str());
      return;
    }
    bytes = out.text.size();
    benchmark::DoNotOptimize(out.text.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fixture->frames));
  state.counters["frames"] = static_cast<double>(fixture->frames);
  state.counters["output_bytes"] = static_cast<double>(bytes);
}

void WalkCold(benchmark::State& state, Fixture* fixture) {
  uint64_t reads = 0, read_bytes = 0;
  for (auto _ : state) {
    pyunwind::RemoteMemory memory(*fixture->target);
    pyunwind::ObjectReader objects(memory, fixture->location.layout);
    pyunwind::CodeCache codes(objects);
    auto snapshot = pyunwind::WalkRuntime(objects, codes, fixture->location.address,
                                          pyunwind::WalkOptions{});
    if (!snapshot.ok()) {
      state.SkipWithError(snapshot.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(snapshot->interpreters.data());
    reads = memory.stats().target_reads;
    read_bytes = memory.stats().target_bytes;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fixture->frames));
  state.counters["frames"] = static_cast<double>(fixture->frames);
  state.counters["reads"] = static_cast<double>(reads);
  state.counters["reads_per_frame"] = static_cast<double>(reads) / fixture->frames;
  state.counters["bytes_per_frame"] = static_cast<double>(read_bytes) / fixture->frames;
}

void WalkWarm(benchmark::State& state, Fixture* fixture) {
  pyunwind::RemoteMemory memory(*fixture->target);
  pyunwind::ObjectReader objects(memory, fixture->location.layout);
  pyunwind::CodeCache codes(objects);
  for (auto _ : state) {
    memory.StartCommand();  // each walk is a command: its budgets start over, the pages stay
    auto snapshot = pyunwind::WalkRuntime(objects, codes, fixture->location.address,
                                          pyunwind::WalkOptions{});
    if (!snapshot.ok()) {
      state.SkipWithError(snapshot.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(snapshot->interpreters.data());
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * fixture->frames));
  state.counters["frames"] = static_cast<double>(fixture->frames);
}

void Locate(benchmark::State& state, Fixture* fixture) {
  uint64_t reads = 0, read_bytes = 0;
  for (auto _ : state) {
    pyunwind::RemoteMemory memory(*fixture->target);
    auto location = pyunwind::LocateRuntime(memory);
    if (!location.ok()) {
      state.SkipWithError(location.error().message.c_str());
      return;
    }
    benchmark::DoNotOptimize(location->address);
    reads = memory.stats().target_reads;
    read_bytes = memory.stats().target_bytes;
  }
  state.counters["reads"] = static_cast<double>(reads);
  state.counters["read_MB"] = static_cast<double>(read_bytes) / (1 << 20);
}

}  // namespace

int main(int argc, char** argv) {
#ifndef __OPTIMIZE__
  std::fprintf(stderr, "core_walk_benchmark: built without optimization; figures are not "
                       "representative\n");
#endif
  benchmark::Initialize(&argc, argv);  // takes out the --benchmark_* flags

  std::string fixtures_dir = DefaultFixturesDir();
  std::vector<std::string> versions = {"3.11.2", "3.12.6", "3.13.15", "3.14.7"};
  std::string scenario = "scale";
  bool keep_cores = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--fixtures=", 0) == 0) {
      fixtures_dir = arg.substr(11);
    } else if (arg.rfind("--versions=", 0) == 0) {
      versions = Split(arg.substr(11), ',');
    } else if (arg.rfind("--scenario=", 0) == 0) {
      scenario = arg.substr(11);
    } else if (arg == "--keep-cores") {
      keep_cores = true;
    } else if (arg == "--help" || arg == "-h") {
      std::printf(
          "usage: core_walk_benchmark [--fixtures=DIR] [--versions=V,V,...] [--scenario=NAME]\n"
          "                           [--keep-cores] [--benchmark_* flags]\n"
          "DIR defaults to $PYUNWIND_FIXTURES, else $BUILD_WORKSPACE_DIRECTORY/../shared/fixtures\n");
      return 0;
    } else {
      return Fail("unknown argument '" + arg + "' (see --help)");
    }
  }

  const char* tmp_root = std::getenv("TMPDIR");
  std::string tmp_template = std::string(tmp_root && *tmp_root ? tmp_root : "/tmp") +
                             "/pyunwind-bench-XXXXXX";
  std::vector<char> tmp_buf(tmp_template.begin(), tmp_template.end());
  tmp_buf.push_back('\0');
  if (!::mkdtemp(tmp_buf.data())) return Fail("cannot create a temporary directory");
  const fs::path tmp_dir(tmp_buf.data());

  for (const std::string& version : versions) {
    const fs::path xz = fs::path(fixtures_dir) / "cores" / version / scenario / "core.xz";
    if (!fs::exists(xz)) return Fail("no core at " + xz.string() + " (set --fixtures=DIR)");
    auto fixture = std::make_unique<Fixture>();
    fixture->version = version;
    fixture->core_path = (tmp_dir / (version + "-" + scenario + ".core")).string();
    const std::string cmd = "xz -dc '" + xz.string() + "' > '" + fixture->core_path + "'";
    if (std::system(cmd.c_str()) != 0) return Fail("failed: " + cmd);
    auto target = pyunwind::ElfCoreTarget::Open(fixture->core_path);
    if (!target.ok()) return Fail(target.error().message);
    fixture->target = std::move(*target);

    pyunwind::RemoteMemory memory(*fixture->target);
    auto location = pyunwind::LocateRuntime(memory);
    if (!location.ok()) return Fail(version + ": " + location.error().message);
    fixture->location = std::move(*location);
    pyunwind::ObjectReader objects(memory, fixture->location.layout);
    pyunwind::CodeCache codes(objects);
    auto snapshot = pyunwind::WalkRuntime(objects, codes, fixture->location.address,
                                          pyunwind::WalkOptions{});
    if (!snapshot.ok()) return Fail(version + ": " + snapshot.error().message);
    fixture->frames = CountFrames(*snapshot);
    if (fixture->frames == 0) return Fail(version + ": the walk found no frames");
    Fixtures().push_back(std::move(fixture));
  }

  for (auto& f : Fixtures()) {
    Fixture* fixture = f.get();
    benchmark::RegisterBenchmark(("PyBtAllJson/" + fixture->version).c_str(), PyBtAll, fixture,
                                 true)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("PyBtAllText/" + fixture->version).c_str(), PyBtAll, fixture,
                                 false)
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("WalkCold/" + fixture->version).c_str(), WalkCold, fixture)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("WalkWarm/" + fixture->version).c_str(), WalkWarm, fixture)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark(("Locate/" + fixture->version).c_str(), Locate, fixture)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();

  Fixtures().clear();
  if (!keep_cores) {
    std::error_code ignored;
    fs::remove_all(tmp_dir, ignored);
  } else {
    std::fprintf(stderr, "cores kept in %s\n", tmp_dir.c_str());
  }
  return 0;
}
