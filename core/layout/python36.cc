// CPython 3.6: no _PyRuntime and no _Py_DebugOffsets; frames are
// PyFrameObjects. The interpreter list head is pystate.c's static
// `interp_head`, which the runtime locator finds (core/runtime): the layout's
// "runtime" is that pointer. Every offset is typed here, checked against the
// debug info of pyenv's 3.6.15 (tests/data/layouts/3.6.15.tsv,
// tests/legacy_layout_tables_test.cc).
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_36.inc"
}};

void AddFacts(Layout& l) {
  AddFactsOf36To310(l);
  l.line_format = LineTableFormat::kLnotab;
  l.runtime.interpreters_head = 0;  // interp_head itself
  l.gil.held_by_current_tstate = true;

  l.interp.size = 120;
  l.interp.modules = 16;
  l.interp.sysdict = 32;
  l.interp.builtins = 40;

  // PyThreadState keeps the exception being handled in exc_type, exc_value,
  // exc_traceback: laid out as a _PyErr_StackItem, with no stack of them.
  l.tstate.size = 2272;
  l.tstate.current_exception = 80;  // curexc_type
  l.tstate.exc_state = 104;
  l.tstate.dict = 128;
  l.tstate.thread_id = 152;

  l.frame.size = 384;
  l.frame.stacktop_pointer = 72;
  l.frame.gen = 112;
  l.frame.lasti = 120;
  l.frame.localsplus = 376;

  AddCodeFactsOf36And37(l);

  l.function.func_code = 16;
  l.function.func_qualname = 104;
  l.type.ht_cached_keys = 856;
  AddObjectFacts(l);
  // TaskObj opens with FutureObj's fields, which have no fut_callback0 (nor contexts: the
  // callbacks list holds the callbacks themselves); tasks have no names.
  l.task = Layout::Task{};
  l.task.loop = 16;
  l.task.callbacks = 24;
  l.task.state = 56;
  l.task.fut_waiter = 88;
  l.task.coro = 96;
  // _threadmodule.c: localobject { PyObject_HEAD; key; ... }, localdummyobject
  // { PyObject_HEAD; localdict; weakreflist; }.
  l.running_loop.local_key = 16;
  l.running_loop.local_dummy_dict = 16;
  // 3.6 has no CALL_METHOD: every call's callable is right below its arguments.
  l.calls = {&kOpcodes, 144, true, 2, 143, true};  // 143: SETUP_WITH
}

}  // namespace

const MinorVersion kCPython36 = {6, {}, AddFacts};

}  // namespace pyunwind
