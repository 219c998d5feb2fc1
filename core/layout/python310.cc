// CPython 3.10: no _Py_DebugOffsets, and frames are PyFrameObjects. Every
// offset is typed here, checked against the debug info of pyenv's 3.10.13
// (tests/data/layouts/3.10.13.tsv, tests/legacy_layout_tables_test.cc).
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_310.inc"
}};

void AddFacts(Layout& l) {
  AddFactsOf36To310(l);
  AddThreadFactsOf37To310(l);
  l.line_format = LineTableFormat::kLineTable;
  l.tstate.size = 280;  // root_cframe at the end
  AddStateFactsOf39And310(l);

  l.interp.size = 113528;

  // f_valuestack, f_trace, f_stackdepth, ..., f_gen, f_lasti (code units), f_lineno.
  l.frame.size = 360;
  l.frame.stackdepth = 80;
  l.frame.gen = 88;
  l.frame.state = 108;
  l.frame.lasti = 96;
  l.frame.lasti_in_code_units = true;
  l.frame.localsplus = 352;

  AddCodeFactsOf38To310(l);

  // PyFunctionObject opens with func_globals, func_builtins, func_name, func_qualname,
  // func_code.
  l.function.func_qualname = 40;
  l.function.func_code = 48;
  l.type.ht_cached_keys = 872;
  // TaskObj after the FutureObj fields.
  l.task.state = 88;
  l.task.fut_waiter = 152;
  l.task.coro = 160;
  l.task.name = 168;
  AddObjectFacts(l);
  // CALL_METHOD lays out [method or NULL, callable or self, args], as 3.11's CALL does.
  l.calls = {&kOpcodes, 144, true, 2, 143, false};  // 143: SETUP_WITH
}

}  // namespace

const MinorVersion kCPython310 = {10, {}, AddFacts};

}  // namespace pyunwind
