// Every input of the fuzz corpus (fuzz/corpus) and every input the fuzzer
// found a bug with (tests/data/fuzz_regressions, reduced) through the fuzz
// target's entry point: each command returns data or one error line, JSON
// parses (the entry point aborts otherwise). Under `bazel test --config=asan`
// this is the fuzzer's check with ASan and UBSan.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Inputs(const char* dir) {
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir)) paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  return paths;
}

void RunEach(const char* dir, size_t at_least) {
  const std::vector<fs::path> paths = Inputs(dir);
  EXPECT_GE(paths.size(), at_least) << dir;
  for (const fs::path& path : paths) {
    SCOPED_TRACE(path.string());
    std::ifstream in(path, std::ios::binary);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
    EXPECT_EQ(LLVMFuzzerTestOneInput(bytes.data(), bytes.size()), 0);
  }
}

TEST(FuzzCorpus, EverySeedRuns) { RunEach("fuzz/corpus", 5); }

TEST(FuzzCorpus, EveryFoundBugStaysFixed) { RunEach("tests/data/fuzz_regressions", 1); }

}  // namespace
