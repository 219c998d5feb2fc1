// The two shapes of work amplification (a small image that makes cheap steps
// repeat) at any scale: tests/walk_test.cc builds them big enough to need the
// work budget; fuzz/make_amplification_seeds small enough to be fuzz seeds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "tests/fake_process311.h"

namespace pyunwind::testing::fake311 {

// One thread whose stack is `code_objects` frames, each of its own code object,
// all sharing one location table of about `table_bytes` whose one-unit entries
// each go one line down (no two neighbours merge): read naively, every code object
// decodes the whole table again. With `first_line_step` code object i starts at line
// 1 + i * first_line_step (a table is decoded once whatever the first lines).
inline void AddCodeObjectsSharingOneLineTable(Process& p, int code_objects, size_t table_bytes,
                                              int first_line_step = 0) {
  const auto thread = p.AddThread(1, 0x7f0000000001);
  p.SetMainThread(thread);
  std::string table;
  while (table.size() + 2 <= table_bytes) {
    table += static_cast<char>(0x80 | (13 << 3));  // one code unit, then its line delta:
    table += static_cast<char>(3);                 // -1 (zigzag)
  }
  const uint64_t shared_table = p.objects.Bytes(table);
  const uint64_t filename = p.objects.Str("/amplify.py");
  const uint64_t name = p.objects.Str("f");
  uint64_t previous = 0;
  for (int i = 0; i < code_objects; ++i) {
    const uint64_t code = p.heap.Alloc(p.layout.code.code_adaptive + 2);
    p.objects.Header(code, p.objects.code_type());
    p.target.PutU64(code + p.layout.code.filename, filename);
    p.target.PutU64(code + p.layout.code.name, name);
    p.target.PutU64(code + p.layout.code.qualname, name);
    p.target.PutU64(code + p.layout.code.linetable, shared_table);
    p.target.Put<int32_t>(code + p.layout.code.firstlineno, 1 + i * first_line_step);
    previous = p.Frame(code, 0, previous);
  }
  p.SetCurrentFrame(thread, previous);
}

// `threads` thread states whose stacks are one and the same chain of `frames`
// frames (cycle detection is per thread: no cycle here).
inline void AddThreadsSharingOneFrameChain(Process& p, uint64_t threads, int frames) {
  const uint64_t code = p.Code("/amplify.py", "f", "f", 1, LineTableBytes(1, {{2, 1}}), 2);
  uint64_t chain = 0;
  for (int i = 0; i < frames; ++i) chain = p.Frame(code, 1, chain);
  for (uint64_t i = 0; i < threads; ++i) {
    const auto thread = p.AddThread(1 + i, 0x7f0000000000 + i);
    p.SetCurrentFrame(thread, chain);
    if (i == 0) p.SetMainThread(thread);
  }
}

}  // namespace pyunwind::testing::fake311
