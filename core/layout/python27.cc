// CPython 2.7: no _PyRuntime, PyFrameObjects as in 3.6, and the object model
// of Python 2: names are PyStringObjects (bytes), text is PyUnicodeObject
// (a pointer to UCS4 units in pyenv's and Debian's builds, UCS2 in others), int is
// PyIntObject beside long, and dicts are open-addressing tables of
// {hash, key, value}. The interpreter list head is pystate.c's static
// `interp_head` (core/runtime). Every offset is checked against the debug
// info of pyenv's 2.7.18 (tests/data/layouts/2.7.18.tsv,
// tests/legacy_layout_tables_test.cc).
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_27.inc"
}};

void AddFacts(Layout& l) {
  AddFrameObjectFactsOf27To310(l);
  // co_lnotab's line increments are unsigned, and bytecode is not wordcode:
  // code units (f_lasti, line ranges) are bytes.
  l.line_format = LineTableFormat::kLnotab27;
  l.code.bytes_per_unit = 1;
  l.runtime.interpreters_head = 0;  // interp_head itself
  l.gil.held_by_current_tstate = true;
  // PyDescr_COMMON has no d_qualname before 3.3: PyWrapperDescrObject's d_base follows d_name.
  l.descriptor.d_base = 32;

  // PyInterpreterState { next; tstate_head; modules; sysdict; builtins; ... }.
  l.interp.size = 80;
  l.interp.modules = 16;
  l.interp.sysdict = 24;
  l.interp.builtins = 32;

  // PyThreadState { next; interp; frame; ...; curexc_type; ...; exc_type;
  // exc_value; exc_traceback; dict; ...; thread_id; ... }: no prev.
  l.tstate.size = 168;
  l.tstate.next = 0;
  l.tstate.interp = 8;
  l.tstate.current_frame = 16;
  l.tstate.current_exception = 72;
  l.tstate.exc_state = 96;
  l.tstate.dict = 120;
  l.tstate.thread_id = 144;

  // PyFrameObject: as 3.6's, without f_gen.
  l.frame.size = 384;
  l.frame.stacktop_pointer = 72;
  l.frame.lasti = 120;
  l.frame.localsplus = 376;

  l.code.size = 128;
  l.code.argcount = 16;
  l.code.nlocals = 20;
  l.code.stacksize = 24;
  l.code.code = 32;
  l.code.varnames = 56;
  l.code.freevars = 64;
  l.code.cellvars = 72;
  l.code.filename = 80;
  l.code.name = 88;
  l.code.firstlineno = 96;
  l.code.linetable = 104;  // co_lnotab

  // PyStringObject { PyObject_VAR_HEAD; ob_shash; ob_sstate; char ob_sval[1]; }.
  l.bytes.ob_size = 16;
  l.bytes.ob_sval = 36;
  // PyUnicodeObject { PyObject_HEAD; length; str; hash; defenc; }.
  l.unicode.length = 16;
  l.unicode.legacy_str = 24;
  l.unicode.legacy_unit_bytes = 4;  // UCS4, unless sys.maxunicode says UCS2 (core/runtime)
  // PyIntObject { PyObject_HEAD; long ob_ival; }.
  l.int_object.ob_ival = 16;
  // PyDictObject { PyObject_HEAD; ma_fill; ma_used; ma_mask; ma_table; ... }.
  l.dict.ma_used = 24;
  l.dict.ma_mask = 32;
  l.dict.ma_table = 40;
  // setentry { long hash; PyObject *key; }.
  l.set.entry_hash = 0;
  l.set.entry_key = 8;

  // A function has func_name only (no __qualname__ before 3.3).
  l.function.func_qualname = 56;
  l.function.func_code = 16;
  AddObjectFacts(l);
  l.task = Layout::Task{};  // no asyncio
  // Bytecode of 1- and 3-byte instructions (HAVE_ARGUMENT 90); EXTENDED_ARG 145 gives the
  // upper 16 bits; SETUP_WITH (143) calls __enter__ with the manager's bound __exit__ on top.
  l.calls = {&kOpcodes, 145, false, 0, 143, false, 90};

  // threading.Thread keeps __name and __ident, mangled; the main thread is
  // the _MainThread whose _exitfunc is threading._shutdown.
  l.threading.name_attribute = "_Thread__name";
  l.threading.ident_attribute = "_Thread__ident";
  l.threading.main_thread = "_shutdown";
  l.threading.main_thread_is_bound_method = true;
  l.threading.lock_type = "thread.lock";
  l.threading.rlock_owner_attribute = "_RLock__owner";
  l.classic.in_class = 16;
  l.classic.cl_bases = 16;
  l.classic.cl_dict = 24;
  l.classic.cl_name = 32;
}

}  // namespace

const MinorVersion kCPython27 = {7, {}, AddFacts, 2};

}  // namespace pyunwind
