// Writes the fuzz seeds shaped like the work-amplification inputs of
// tests/amplification.h, small enough to be seeds (run.sh's -max_len, 1 MiB)
// and still past the work budget of one command, so that mutations start at
// the budget's edge:
//   bazel run //fuzz:make_amplification_seeds -- "$PWD/fuzz/corpus"
// Like the fuzz target's other inputs they carry no symbols: the runtime is
// found by the memory scan (the image's sys dict gives the exact version).
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/state_file.h"
#include "tests/amplification.h"
#include "tests/fake_process311.h"

namespace {

using pyunwind::fuzz::kStatePage;
using pyunwind::fuzz::StatePage;
using pyunwind::testing::fake311::Process;

// Every page of every mapping up to its last byte that is not zero.
std::vector<StatePage> PagesOf(Process& p) {
  std::vector<StatePage> pages;
  for (const pyunwind::MemoryRegion& region : p.target.MemoryRegions()) {
    std::vector<StatePage> of_region;
    size_t last_used = 0;
    for (uint64_t page = region.start; page < region.end; page += kStatePage) {
      StatePage state{page, region.writable, std::vector<uint8_t>(kStatePage)};
      p.target.ReadMemory(page, state.bytes.data(), kStatePage);
      of_region.push_back(std::move(state));
      for (uint8_t byte : of_region.back().bytes) {
        if (byte != 0) {
          last_used = of_region.size();
          break;
        }
      }
    }
    pages.insert(pages.end(), of_region.begin(), of_region.begin() + last_used);
  }
  return pages;
}

bool Write(Process& p, const std::string& path) {
  std::vector<uint64_t> thread_ids;
  for (uint64_t i = 1; i <= 255; ++i) thread_ids.push_back(i);
  const std::vector<uint8_t> state = pyunwind::fuzz::EncodeState(thread_ids, PagesOf(p));
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(state.data(), 1, state.size(), f) != state.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::printf("%s: %zu bytes\n", path.c_str(), state.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_amplification_seeds DIR\n");
    return 2;
  }
  const std::string dir = argv[1];
  // 512 code objects sharing one table of 32,768 entries: 16.8M line-table entries (the budget:
  // 4.2M) when each decoded it again; one decoding (32,768) since the table is decoded once.
  Process shared_table;
  shared_table.AddSysDict();
  AddCodeObjectsSharingOneLineTable(shared_table, 512, 64 << 10);
  // 255 threads x 1,024 frames = 261,120 frames visited (the budget: 131,072).
  Process shared_chain;
  shared_chain.AddSysDict();
  AddThreadsSharingOneFrameChain(shared_chain, 255, 1024);
  const bool ok = Write(shared_table, dir + "/state-3.11_amplify_shared_line_table") &&
                  Write(shared_chain, dir + "/state-3.11_amplify_shared_frame_chain");
  return ok ? 0 : 1;
}
