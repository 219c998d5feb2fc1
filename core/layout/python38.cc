// CPython 3.8: no _Py_DebugOffsets, and frames are PyFrameObjects. Every
// offset is typed here, checked against the debug info of pyenv's 3.8.18
// (tests/data/layouts/3.8.18.tsv, tests/legacy_layout_tables_test.cc).
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_38.inc"
}};

void AddFacts(Layout& l) {
  AddFactsOf36To310(l);
  AddThreadFactsOf37To310(l);
  l.line_format = LineTableFormat::kLnotab;
  l.runtime.interpreters_head = 32;
  l.runtime.interpreters_main = 40;
  l.runtime.main_thread = 72;
  l.runtime.gc_collecting = 544;  // gc.collecting
  l.runtime.gil = 1152;           // ceval.gil

  l.interp.size = 2720;
  l.interp.id = 16;
  l.interp.modules = 56;
  l.interp.sysdict = 72;
  l.interp.builtins = 80;

  AddFrameFactsOf37To39(l);
  AddCodeFactsOf38To310(l);
  l.type.ht_cached_keys = 872;
  // TaskObj after the FutureObj fields.
  l.task.state = 72;
  l.task.fut_waiter = 104;
  l.task.coro = 112;
  l.task.name = 120;
  AddObjectFacts(l);
  // CALL_METHOD lays out [method or NULL, callable or self, args], as 3.11's CALL does.
  l.calls = {&kOpcodes, 144, true, 2, 143, true};  // 143: SETUP_WITH
}

}  // namespace

const MinorVersion kCPython38 = {8, {}, AddFacts};

}  // namespace pyunwind
