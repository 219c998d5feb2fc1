// libFuzzer target: the whole pipeline (runtime location, threads, frames,
// code objects, location tables, locals reprs, asyncio tasks, formatting) over
// a memory image made from the input. See README.md.
//
// Inputs:
//   "\x7fELF..."  an ELF core image, read by ElfCoreTarget::FromBytes
//                 (seeds: real fixture cores shrunk by make_seed).
//   "PYUS..."     a compact interpreter state (fuzz/state_file.h), expanded
//                 into an ELF core.
//   anything else the bytes as one writable mapping at 0x10000000 (the
//                 runtime scan over arbitrary memory).
// Each command must return data or one error line; JSON output must parse
// (command_check.h); the target aborts otherwise, which libFuzzer reports.
// Time and memory are bounded by libFuzzer's -timeout and -rss_limit_mb
// (run.sh).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "fuzz/command_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const pyunwind::fuzz::InputReport report = pyunwind::fuzz::CheckInput(data, size);
  if (report.findings.empty()) return 0;
  for (const pyunwind::fuzz::Finding& finding : report.findings) {
    std::fprintf(stderr, "core_fuzzer: %s: %s\n--- output:\n%.2000s\n",
                 finding.command_line.c_str(), finding.violation.c_str(),
                 finding.output.c_str());
  }
  std::abort();
}
