// CPython 3.11: no _Py_DebugOffsets, so every offset is typed here, checked
// against the debug info of Debian's 3.11.2 (../shared/fixtures/layouts and
// tests/layout_tables_test.cc, tests/layout_facts_test.cc). The same table
// serves Debian's debug build python3.11d (Py_DEBUG, no Py_TRACE_REFS): its
// debug info puts every member of the fixture table at the same offset and
// size (tests/data/layouts/3.11.2d.tsv, checked by layout_tables_test), so no
// variant is needed.
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_311.inc"
}};

void AddFacts(Layout& l) {
  AddFactsOf311And312(l);
  l.source = LayoutSource::kTable;
  l.runtime.main_thread = 80;
  l.runtime.gil = 360;
  l.runtime.main_interpreter_embedded = 58936;

  l.interp.size = 107752;
  l.interp.next = 0;
  l.interp.threads_head = 16;
  l.interp.runtime = 40;
  l.interp.id = 48;
  l.interp.gc_collecting = 848;
  l.interp.gc = 648;
  l.interp.modules = 888;
  l.interp.sysdict = 904;
  l.interp.builtins = 912;

  l.tstate.size = 360;
  l.tstate.thread_id = 152;
  l.tstate.native_thread_id = 160;
  l.tstate.cframe_current_frame = 8;  // after `uint8_t use_tracing`
  l.tstate.cframe_previous = 16;
  l.tstate.root_cframe = 336;  // the last field: a _PyCFrame of 24 bytes
  l.tstate.current_exception = 96;    // curexc_type
  l.tstate.current_exception_is_type = true;
  l.tstate.exc_info = 120;
  l.tstate.exc_state = 320;
  l.tstate.dict = 128;
  // _asyncio's PyRunningLoopHolder: PyObject_HEAD, rl_loop, rl_pid.
  l.running_loop.holder_type = "_RunningLoopHolder";
  l.running_loop.holder_loop = 16;
  l.running_loop.holder_size = 32;

  l.frame.executable = 32;
  l.frame.previous = 48;
  l.frame.is_entry = 68;
  l.frame.owner = 69;
  l.frame.globals = 8;  // f_func, f_globals, f_builtins, f_locals, then f_code
  l.frame.builtins = 16;
  l.frame.locals_dict = 24;
  l.caret_rules = TracebackCaretRules::kPython311;
  // 3.11 marks C-stack entry frames with is_entry, not an owner: every frame is Python code.
  l.frame.owner_first_internal = 3;

  l.code.size = 192;
  l.code.argcount = 56;
  l.code.firstlineno = 72;
  l.code.firsttraceable = 168;
  l.code.exceptiontable = 40;
  l.code.stacksize = 68;
  l.code.nlocalsplus = 76;
  // [method or NULL, callable or self, args]; CALL_FUNCTION_EX: [NULL, callable, args, kwargs].
  l.calls = {&kOpcodes, 144, true, 2, 53};
  l.code.code_adaptive = 184;

  l.unicode.ascii_data = 48;  // PyASCIIObject still has wstr
  l.unicode.compact_data = 72;

  l.long_object.ob_size = 16;  // sign and digit count
  l.type.ht_cached_keys = 872;

  l.gen.frame_state = 75;
  l.gen.iframe = 80;
  // A split table's values have their own pointer, 4 words before the object.
  l.managed_dict.values_before = 32;
  AddObjectFacts(l);
  AddHeapFacts(l);
  // struct _gc_runtime_state: trash_delete_later, trash_delete_nesting, enabled, debug,
  // generations[3], generation0, permanent_generation.
  AddGcListFacts(l, 24, 104, 96);
}

}  // namespace

const MinorVersion kCPython311 = {11, {}, AddFacts};

}  // namespace pyunwind
