// CPython 3.9: no _Py_DebugOffsets, and frames are PyFrameObjects. Every
// offset is typed here, checked against the debug info of pyenv's 3.9.18
// (tests/data/layouts/3.9.18.tsv, tests/legacy_layout_tables_test.cc).
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_39.inc"
}};

void AddFacts(Layout& l) {
  AddFactsOf36To310(l);
  AddThreadFactsOf37To310(l);
  l.line_format = LineTableFormat::kLnotab;
  AddStateFactsOf39And310(l);

  l.interp.size = 5656;

  AddFrameFactsOf37To39(l);
  AddCodeFactsOf38To310(l);
  l.type.ht_cached_keys = 864;
  // TaskObj after the FutureObj fields.
  l.task.state = 80;
  l.task.fut_waiter = 144;
  l.task.coro = 152;
  l.task.name = 160;
  AddObjectFacts(l);
  // CALL_METHOD lays out [method or NULL, callable or self, args], as 3.11's CALL does.
  l.calls = {&kOpcodes, 144, true, 2, 143, true};  // 143: SETUP_WITH
}

}  // namespace

const MinorVersion kCPython39 = {9, {}, AddFacts};

}  // namespace pyunwind
