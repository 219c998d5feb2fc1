// CPython 3.7: no _Py_DebugOffsets, and frames are PyFrameObjects. Every
// offset is typed here, checked against the debug info of pyenv's 3.7.16
// (tests/data/layouts/3.7.16.tsv, tests/legacy_layout_tables_test.cc).
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_37.inc"
}};

void AddFacts(Layout& l) {
  AddFactsOf36To310(l);
  AddThreadFactsOf37To310(l);
  l.line_format = LineTableFormat::kLnotab;
  l.tstate.size = 280;
  l.runtime.interpreters_head = 24;
  l.runtime.interpreters_main = 32;
  l.runtime.gc_collecting = 632;  // gc.collecting
  l.runtime.main_thread = 720;    // ceval.pending.main_thread
  l.runtime.gil = 1264;           // ceval.gil

  l.interp.size = 2568;
  l.interp.id = 16;
  l.interp.modules = 40;
  l.interp.sysdict = 56;
  l.interp.builtins = 64;

  AddFrameFactsOf37To39(l);
  AddCodeFactsOf36And37(l);
  l.type.ht_cached_keys = 856;
  // TaskObj after the FutureObj fields.
  l.task.state = 72;
  l.task.fut_waiter = 104;
  l.task.coro = 112;
  // 3.7 tasks have no name.
  AddObjectFacts(l);
  // CALL_METHOD lays out [method or NULL, callable or self, args], as 3.11's CALL does.
  l.calls = {&kOpcodes, 144, true, 2, 143, true};  // 143: SETUP_WITH
}

}  // namespace

const MinorVersion kCPython37 = {7, {}, AddFacts};

}  // namespace pyunwind
