// CPython 3.9: no _Py_DebugOffsets, and frames are PyFrameObjects. Every
// offset is typed here, checked against the debug info of pyenv's 3.9.18
// (tests/data/layouts/3.9.18.tsv, tests/legacy_layout_tables_test.cc).
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

void AddFacts(Layout& l) {
  AddFactsOf37To310(l);
  l.line_format = LineTableFormat::kLnotab;
  l.runtime.interpreters_head = 32;
  l.runtime.interpreters_main = 40;
  l.runtime.main_thread = 72;
  l.runtime.gil = 352;  // ceval.gil

  l.interp.size = 5656;
  l.interp.runtime = 16;
  l.interp.id = 24;
  l.interp.gc_collecting = 816;
  l.interp.modules = 856;
  l.interp.sysdict = 872;
  l.interp.builtins = 880;

  AddFrameFactsOf37To39(l);
  AddCodeFactsOf38And39(l);
  l.type.ht_cached_keys = 864;
  // TaskObj after the FutureObj fields.
  l.task.state = 80;
  l.task.fut_waiter = 144;
  l.task.coro = 152;
  l.task.name = 160;
  AddObjectFacts(l);
}

}  // namespace

const MinorVersion kCPython39 = {9, {}, AddFacts};

}  // namespace pyunwind
