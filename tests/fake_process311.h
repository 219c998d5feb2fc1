// A CPython 3.11 process built in a FakeTarget, following
// core/layout/python311.cc: a runtime whose embedded main interpreter
// points back at it, thread states with cframes, frames and code objects with
// real location tables (objects from tests/fake_python.h). The walk tests
// build programs in it; fuzz/make_amplification_seeds writes some as seeds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/layout/layout.h"
#include "tests/fake_python.h"
#include "tests/fake_target.h"

namespace pyunwind::testing {
namespace fake311 {

inline constexpr uint64_t kData = 0x555555a00000;  // python's data segment: _PyRuntime lives here
inline constexpr uint64_t kDataSize = 0x40000;
inline constexpr uint64_t kHeap = 0x7f1000000000;
inline constexpr uint32_t kHexversion = 0x030b02f0;

// A location table of "no columns" entries (code 13): `runs` of
// (code units, line), line -1 for "no location" (code 15).
inline std::string LineTableBytes(int first_line, const std::vector<std::pair<int, int>>& runs) {
  std::string table;
  int line = first_line;
  for (auto [units, run_line] : runs) {
    while (units > 0) {
      const int length = std::min(units, 8);
      units -= length;
      if (run_line < 0) {
        table += static_cast<char>(0x80 | (15 << 3) | (length - 1));
        continue;
      }
      table += static_cast<char>(0x80 | (13 << 3) | (length - 1));
      const int delta = run_line - line;
      line = run_line;
      uint32_t zigzag = delta < 0 ? (static_cast<uint32_t>(-delta) << 1) | 1 : delta << 1;
      do {
        uint8_t byte = zigzag & 63;
        zigzag >>= 6;
        if (zigzag) byte |= 64;
        table += static_cast<char>(byte);
      } while (zigzag);
    }
  }
  return table;
}

struct Thread311 {
  uint64_t tstate = 0;
  uint64_t cframe = 0;
  uint64_t native_id = 0;
  uint64_t pthread_id = 0;
};

// The image: the runtime and its main interpreter in python's data segment,
// everything else on the heap.
class Process {
 public:
  explicit Process(uint64_t heap_size = 4 << 20)
      : layout(*LayoutFromTable(kHexversion)),
        heap(target, kHeap, heap_size),
        objects(target, heap, layout) {
    target.Map(kData, kDataSize, /*writable=*/true, /*readable=*/true, "/usr/bin/python3.11");
    runtime = kData + 0x100;
    interp = runtime + layout.runtime.main_interpreter_embedded;
    target.PutU64(runtime + layout.runtime.interpreters_head, interp);
    target.PutU64(runtime + layout.runtime.interpreters_main, interp);
    target.PutU64(interp + layout.interp.runtime, runtime);
    target.PutU64(interp + layout.interp.next, 0);
    target.Put<int64_t>(interp + layout.interp.id, 0);
    py_version = kData + 0x20;  // the Py_Version constant
    target.PutU64(py_version, kHexversion);
  }

  // The symbols a debugger with python's symbol table would give.
  void AddSymbols() {
    target.symbols["_PyRuntime"] = runtime;
    target.symbols["Py_Version"] = py_version;
  }
  // sys.hexversion in the interpreter's sys dict, for the scan to find the exact version.
  void AddSysDict() {
    const uint64_t sysdict = objects.Dict({{objects.Str("version"), objects.Str("3.11.2 (fake)")},
                                           {objects.Str("hexversion"), objects.Int(kHexversion)}});
    target.PutU64(interp + layout.interp.sysdict, sysdict);
  }

  // A new thread state, linked in front as PyThreadState_New does.
  Thread311 AddThread(uint64_t native_id, uint64_t pthread_id) {
    Thread311 t;
    t.native_id = native_id;
    t.pthread_id = pthread_id;
    t.tstate = heap.Alloc(layout.tstate.size);
    t.cframe = heap.Alloc(24);
    const uint64_t head = *Read(interp + layout.interp.threads_head);
    target.PutU64(t.tstate + layout.tstate.next, head);
    target.PutU64(t.tstate + layout.tstate.prev, 0);
    if (head) target.PutU64(head + layout.tstate.prev, t.tstate);
    target.PutU64(interp + layout.interp.threads_head, t.tstate);
    target.PutU64(t.tstate + layout.tstate.interp, interp);
    target.PutU64(t.tstate + layout.tstate.thread_id, pthread_id);
    target.PutU64(t.tstate + layout.tstate.native_thread_id, native_id);
    target.PutU64(t.tstate + layout.tstate.cframe, t.cframe);
    target.PutU64(t.cframe + layout.tstate.cframe_current_frame, 0);
    return t;
  }
  void SetMainThread(const Thread311& t) {
    target.PutU64(runtime + layout.runtime.main_thread, t.pthread_id);
  }
  void SetGil(bool locked, uint64_t holder_tstate) {
    const uint64_t gil = runtime + layout.runtime.gil;
    target.Put<int32_t>(gil + layout.gil.locked, locked ? 1 : 0);
    target.PutU64(gil + layout.gil.last_holder, holder_tstate);
  }

  // A code object whose bytecode is `units` code units long.
  uint64_t Code(const std::string& filename, const std::string& name, const std::string& qualname,
                int first_line, const std::string& linetable, int units, int first_traceable = 0) {
    const uint64_t code = heap.Alloc(layout.code.code_adaptive + 2 * units);
    objects.Header(code, objects.code_type());
    target.PutU64(code + layout.code.filename, objects.Str(filename));
    target.PutU64(code + layout.code.name, objects.Str(name));
    target.PutU64(code + layout.code.qualname, objects.Str(qualname));
    target.PutU64(code + layout.code.linetable, objects.Bytes(linetable));
    target.Put<int32_t>(code + layout.code.firstlineno, first_line);
    target.Put<int32_t>(code + layout.code.firsttraceable, first_traceable);
    return code;
  }
  // A _PyInterpreterFrame running code unit `index` of `code` (prev_instr points at it).
  uint64_t Frame(uint64_t code, int index, uint64_t previous, uint8_t owner = 0) {
    const uint64_t frame = heap.Alloc(layout.frame.size);
    target.PutU64(frame + layout.frame.executable, code);
    target.PutU64(frame + layout.frame.previous, previous);
    target.PutU64(frame + layout.frame.instr_ptr, code + layout.code.code_adaptive + 2 * index);
    target.PutU8(frame + layout.frame.owner, owner);
    return frame;
  }
  void SetCurrentFrame(const Thread311& t, uint64_t frame) {
    target.PutU64(t.cframe + layout.tstate.cframe_current_frame, frame);
  }
  void SetPrevious(uint64_t frame, uint64_t previous) {
    target.PutU64(frame + layout.frame.previous, previous);
  }
  void SetNext(const Thread311& t, uint64_t next) {
    target.PutU64(t.tstate + layout.tstate.next, next);
  }
  std::optional<uint64_t> Read(uint64_t address) {
    uint64_t value;
    if (!target.ReadMemory(address, &value, 8)) return std::nullopt;
    return value;
  }

  FakeTarget target;
  Layout layout;
  FakeHeap heap;
  FakeObjects objects;
  uint64_t runtime = 0;
  uint64_t interp = 0;
  uint64_t py_version = 0;
};

}  // namespace fake311
}  // namespace pyunwind::testing
