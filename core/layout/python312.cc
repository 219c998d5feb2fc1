// CPython 3.12: no _Py_DebugOffsets, so every offset is typed here, checked
// against the debug info of upstream 3.12.6 (../shared/fixtures/layouts and
// tests/layout_tables_test.cc, tests/layout_facts_test.cc).
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_312.inc"
}};

void AddFacts(Layout& l) {
  AddFactsOf311And312(l);
  l.source = LayoutSource::kTable;
  AddFrameNamespaceFactsOf312On(l);
  l.runtime.main_thread = 64;
  l.runtime.main_interpreter_embedded = 76440;

  l.interp.size = 383552;
  l.interp.next = 0;
  l.interp.id = 8;
  l.interp.threads_head = 72;
  l.interp.runtime = 96;
  l.interp.gc_collecting = 312;
  l.interp.gc = 112;
  l.interp.sysdict = 352;
  l.interp.builtins = 360;
  l.interp.ceval_gil = 384;
  l.interp.modules = 944;

  l.tstate.size = 288;
  l.tstate.thread_id = 136;
  l.tstate.native_thread_id = 144;
  l.tstate.cframe_current_frame = 0;
  l.tstate.current_exception = 96;
  l.tstate.exc_info = 104;
  l.tstate.exc_state = 256;
  l.tstate.dict = 112;  // the running loop is its value itself (no holder object)

  l.frame.executable = 0;
  l.frame.previous = 8;
  l.frame.owner = 70;
  l.frame.owner_first_internal = 3;  // FRAME_OWNED_BY_CSTACK

  l.code.size = 200;
  l.code.argcount = 52;
  l.code.firstlineno = 68;
  l.code.firsttraceable = 176;
  l.code.exceptiontable = 40;
  l.code.stacksize = 64;
  l.code.nlocalsplus = 72;
  // [method or NULL, callable or self, args]; CALL_FUNCTION_EX: [NULL, callable, args, kwargs].
  l.calls = {&kOpcodes, 144, true, 2, 53};
  l.code.code_adaptive = 192;

  l.unicode.ascii_data = 40;
  l.unicode.compact_data = 56;

  l.long_object.lv_tag = 16;  // digit count << 3 | sign bits
  l.type.ht_cached_keys = 880;

  l.gen.frame_state = 67;
  l.gen.iframe = 72;
  // An odd managed dict pointer is a split table's values, stored as address - 1.
  l.managed_dict.values_tagged = true;
  AddObjectFacts(l);
  AddHeapFacts(l);
  AddGcListFacts(l, 24, 104, 96);  // as 3.11
}

}  // namespace

const MinorVersion kCPython312 = {12, {}, AddFacts};

}  // namespace pyunwind
