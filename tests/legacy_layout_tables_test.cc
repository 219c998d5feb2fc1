// The 2.7 and 3.6-3.10 tables (core/layout/python27.cc, python36.cc ... python310.cc, with
// the facts of core/layout/facts.cc they share) against the debug info of pyenv's builds
// 2.7.18, 3.6.15, 3.7.16, 3.8.18, 3.9.18 and 3.10.13 (tests/data/layouts/VERSION.tsv, made by make_layout_tsv.py; their
// `sizeof` rows give each struct's size, their `NAME:bits` rows each bit-field's bit offset
// and width): every int32 field a table sets must equal the fact, or be listed in kNoFact
// with the reason no debug-info row can state it.
#include <gtest/gtest.h>

#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/layout/layout.h"
#include "tests/fixture_facts.h"

namespace pyunwind {
namespace {

using testing::LayoutFacts;

struct Check {
  std::string field;
  int64_t actual;
  int64_t expected;
};

// Every int32 field of the Layout, by name, for the coverage check.
std::vector<std::pair<std::string, int32_t>> AllFields(const Layout& l) {
  return {
      {"runtime.size", l.runtime.size},
      {"runtime.interpreters_head", l.runtime.interpreters_head},
      {"runtime.interpreters_main", l.runtime.interpreters_main},
      {"runtime.main_thread", l.runtime.main_thread},
      {"runtime.gil", l.runtime.gil},
      {"runtime.main_interpreter_embedded", l.runtime.main_interpreter_embedded},
      {"runtime.gc_collecting", l.runtime.gc_collecting},
      {"interp.size", l.interp.size},
      {"interp.next", l.interp.next},
      {"interp.id", l.interp.id},
      {"interp.runtime", l.interp.runtime},
      {"interp.threads_head", l.interp.threads_head},
      {"interp.threads_main", l.interp.threads_main},
      {"interp.sysdict", l.interp.sysdict},
      {"interp.modules", l.interp.modules},
      {"interp.gc_collecting", l.interp.gc_collecting},
      {"interp.ceval_gil", l.interp.ceval_gil},
      {"interp.gil_enabled", l.interp.gil_enabled},
      {"interp.builtins", l.interp.builtins},
      {"gil.locked", l.gil.locked},
      {"gil.last_holder", l.gil.last_holder},
      {"tstate.size", l.tstate.size},
      {"tstate.prev", l.tstate.prev},
      {"tstate.next", l.tstate.next},
      {"tstate.interp", l.tstate.interp},
      {"tstate.thread_id", l.tstate.thread_id},
      {"tstate.native_thread_id", l.tstate.native_thread_id},
      {"tstate.current_frame", l.tstate.current_frame},
      {"tstate.cframe", l.tstate.cframe},
      {"tstate.cframe_current_frame", l.tstate.cframe_current_frame},
      {"tstate.current_exception", l.tstate.current_exception},
      {"tstate.exc_info", l.tstate.exc_info},
      {"tstate.exc_state", l.tstate.exc_state},
      {"tstate.gil_requested", l.tstate.gil_requested},
      {"tstate.dict", l.tstate.dict},
      {"running_loop.holder_loop", l.running_loop.holder_loop},
      {"running_loop.holder_size", l.running_loop.holder_size},
      {"running_loop.tstate_offset", l.running_loop.tstate_offset},
      {"err_stackitem.exc_value", l.err_stackitem.exc_value},
      {"err_stackitem.previous_item", l.err_stackitem.previous_item},
      {"frame.size", l.frame.size},
      {"frame.previous", l.frame.previous},
      {"frame.executable", l.frame.executable},
      {"frame.instr_ptr", l.frame.instr_ptr},
      {"frame.owner", l.frame.owner},
      {"frame.localsplus", l.frame.localsplus},
      {"frame.globals", l.frame.globals},
      {"frame.builtins", l.frame.builtins},
      {"frame.locals_dict", l.frame.locals_dict},
      {"frame.stacktop", l.frame.stacktop},
      {"frame.stackpointer", l.frame.stackpointer},
      {"frame.tlbc_index", l.frame.tlbc_index},
      {"frame.is_entry", l.frame.is_entry},
      {"frame.lasti", l.frame.lasti},
      {"frame.gen", l.frame.gen},
      {"frame.valuestack", l.frame.valuestack},
      {"frame.stacktop_pointer", l.frame.stacktop_pointer},
      {"frame.stackdepth", l.frame.stackdepth},
      {"frame.state", l.frame.state},
      {"frame.owner_first_internal", l.frame.owner_first_internal},
      {"frame.owner_generator", l.frame.owner_generator},
      {"frame.awaited_from_top", l.frame.awaited_from_top},
      {"gen.frame_state", l.gen.frame_state},
      {"gen.iframe", l.gen.iframe},
      {"gen.frame_pointer", l.gen.frame_pointer},
      {"code.size", l.code.size},
      {"code.filename", l.code.filename},
      {"code.name", l.code.name},
      {"code.qualname", l.code.qualname},
      {"code.linetable", l.code.linetable},
      {"code.firstlineno", l.code.firstlineno},
      {"code.argcount", l.code.argcount},
      {"code.localsplusnames", l.code.localsplusnames},
      {"code.localspluskinds", l.code.localspluskinds},
      {"code.code_adaptive", l.code.code_adaptive},
      {"code.firsttraceable", l.code.firsttraceable},
      {"code.tlbc", l.code.tlbc},
      {"code.nlocalsplus", l.code.nlocalsplus},
      {"code.stacksize", l.code.stacksize},
      {"code.exceptiontable", l.code.exceptiontable},
      {"code.code", l.code.code},
      {"code.nlocals", l.code.nlocals},
      {"code.varnames", l.code.varnames},
      {"code.cellvars", l.code.cellvars},
      {"code.freevars", l.code.freevars},
      {"calls.call_ex_callable_from_top", l.calls.call_ex_callable_from_top},
      {"object.ob_type", l.object.ob_type},
      {"object.ob_size", l.object.ob_size},
      {"type.size", l.type.size},
      {"type.heap_size", l.type.heap_size},
      {"type.tp_name", l.type.tp_name},
      {"type.tp_base", l.type.tp_base},
      {"type.tp_flags", l.type.tp_flags},
      {"type.tp_basicsize", l.type.tp_basicsize},
      {"type.tp_dictoffset", l.type.tp_dictoffset},
      {"type.tp_mro", l.type.tp_mro},
      {"type.ht_cached_keys", l.type.ht_cached_keys},
      {"unicode.size", l.unicode.size},
      {"unicode.length", l.unicode.length},
      {"unicode.state", l.unicode.state},
      {"unicode.ascii_data", l.unicode.ascii_data},
      {"unicode.compact_data", l.unicode.compact_data},
      {"unicode.legacy_str", l.unicode.legacy_str},
      {"bytes.ob_size", l.bytes.ob_size},
      {"bytes.ob_sval", l.bytes.ob_sval},
      {"tuple.ob_size", l.tuple.ob_size},
      {"tuple.ob_item", l.tuple.ob_item},
      {"list.ob_size", l.list.ob_size},
      {"list.ob_item", l.list.ob_item},
      {"dict.ma_keys", l.dict.ma_keys},
      {"dict.ma_values", l.dict.ma_values},
      {"dict.ma_used", l.dict.ma_used},
      {"dict.values_header", l.dict.values_header},
      {"dict.keys_size", l.dict.keys_size},
      {"dict.keys_nentries", l.dict.keys_nentries},
      {"dict.keys_indices", l.dict.keys_indices},
      {"dict.ma_mask", l.dict.ma_mask},
      {"dict.ma_table", l.dict.ma_table},
      {"managed_dict.dict_before", l.managed_dict.dict_before},
      {"managed_dict.values_before", l.managed_dict.values_before},
      {"managed_dict.inline_valid", l.managed_dict.inline_valid},
      {"set.mask", l.set.mask},
      {"set.table", l.set.table},
      {"set.entry_key", l.set.entry_key},
      {"set.entry_hash", l.set.entry_hash},
      {"weakref.wr_object", l.weakref.wr_object},
      {"method.im_func", l.method.im_func},
      {"method.im_self", l.method.im_self},
      {"cfunction.m_ml", l.cfunction.m_ml},
      {"cfunction.m_self", l.cfunction.m_self},
      {"descriptor.d_type", l.descriptor.d_type},
      {"descriptor.d_name", l.descriptor.d_name},
      {"descriptor.d_base", l.descriptor.d_base},
      {"method_wrapper.descr", l.method_wrapper.descr},
      {"method_wrapper.self", l.method_wrapper.self},
      {"function.func_qualname", l.function.func_qualname},
      {"function.func_code", l.function.func_code},
      {"module.md_dict", l.module.md_dict},
      {"exception.args", l.exception.args},
      {"cell.ob_ref", l.cell.ob_ref},
      {"task.loop", l.task.loop},
      {"task.callback0", l.task.callback0},
      {"task.callbacks", l.task.callbacks},
      {"task.state", l.task.state},
      {"task.fut_waiter", l.task.fut_waiter},
      {"task.coro", l.task.coro},
      {"task.name", l.task.name},
      {"task.state_after_awaited_by", l.task.state_after_awaited_by},
      {"task.fut_waiter_before_coro", l.task.fut_waiter_before_coro},
      {"long.ob_size", l.long_object.ob_size},
      {"long.lv_tag", l.long_object.lv_tag},
      {"long.ob_digit", l.long_object.ob_digit},
      {"float.ob_fval", l.float_object.ob_fval},
      {"int.ob_ival", l.int_object.ob_ival},
      {"classic.in_class", l.classic.in_class},
      {"classic.cl_bases", l.classic.cl_bases},
      {"classic.cl_dict", l.classic.cl_dict},
      {"classic.cl_name", l.classic.cl_name},
  };
}

// Fields whose value says "not stated" rather than kAbsent: sizes and counts
// that default to 0.
const std::set<std::string> kZeroIsUnset = {
    "runtime.size",   "interp.size",       "tstate.size",      "frame.size",
    "code.size",      "type.size",         "type.heap_size",   "unicode.size",
    "dict.values_header", "running_loop.holder_size", "calls.call_ex_callable_from_top",
};

// Set fields the debug-info tables cannot state, and why.
const std::set<std::string> kNoFact = {
    // Defaults of Layout::Frame that describe 3.11+ _PyInterpreterFrames (the
    // enum _frameowner values) and the value-stack slot of an awaited object
    // (the top one, here too): not offsets.
    "frame.owner_first_internal",
    "frame.owner_generator",
    "frame.awaited_from_top",
    // _asyncio's PyRunningLoopHolder has no rows in the tables (a struct of that
    // module's own); tests/e2e/older_versions_test.cc checks the loop threads it gives.
    "running_loop.holder_loop",
    "running_loop.holder_size",
    // wrapperobject (a method-wrapper) is Objects/descrobject.c's own: no rows;
    // tests/e2e/stopped_in_c_test.cc checks the reprs they give.
    "method_wrapper.descr",
    "method_wrapper.self",
    // A count of value-stack slots (CALL_FUNCTION_EX's callable below its arguments), not an
    // offset: tests/e2e/calls_test.cc checks the callee it finds (its `star` thread).
    "calls.call_ex_callable_from_top",
};

int32_t SizeOf(const LayoutFacts& f, const std::string& type) {
  auto m = f.Get(type, "sizeof");
  return m ? m->size : -2;
}

// `minor` of Python 3, or 27 for 2.7.
std::vector<Check> ChecksFor(const Layout& l, const LayoutFacts& f, int minor) {
  const bool py27 = minor == 27;
  // 2.7 and 3.6 list interpreters from interp_head, and keep the handled exception's
  // type, value and traceback in the thread state.
  const bool interp_head = py27 || minor == 6;
  // PyObject_VAR_HEAD: 2.7 spells its members out, 3.x embeds a PyVarObject ob_base.
  const std::string var_size = py27 ? "ob_size" : "ob_base.ob_size";
  const std::string rt = "struct pyruntimestate", is = "struct _is", ts = "struct _ts",
                    fr = "PyFrameObject", co = "PyCodeObject", gil = "struct _gil_runtime_state",
                    err = "struct _err_stackitem", keys = "struct _dictkeysobject";
  // A member only some of these versions have: the table leaves it absent where the
  // debug info has none.
  auto where_declared = [&](const std::string& type, const std::string& member) {
    const int32_t offset = f.Offset(type, member);
    return offset == -2 ? kAbsent : offset;
  };
  // 2.7 has no tasks (no TaskObj in its debug info): its table leaves them absent; 3.6's
  // FutureObj has no fut_callback0, its tasks no names.
  auto task_fact = where_declared;
  std::vector<Check> c = {
      {"interp.size", l.interp.size, SizeOf(f, is)},
      {"interp.next", l.interp.next, where_declared(is, "next")},
      {"interp.id", l.interp.id, where_declared(is, "id")},
      {"interp.threads_head", l.interp.threads_head, where_declared(is, "tstate_head")},
      {"interp.sysdict", l.interp.sysdict, where_declared(is, "sysdict")},
      {"interp.modules", l.interp.modules, where_declared(is, "modules")},
      {"interp.builtins", l.interp.builtins, where_declared(is, "builtins")},
      {"gil.locked", l.gil.locked, where_declared(gil, "locked")},
      {"gil.last_holder", l.gil.last_holder, where_declared(gil, "last_holder")},
      {"tstate.size", l.tstate.size, SizeOf(f, ts)},
      {"tstate.prev", l.tstate.prev, where_declared(ts, "prev")},
      {"tstate.next", l.tstate.next, where_declared(ts, "next")},
      {"tstate.interp", l.tstate.interp, where_declared(ts, "interp")},
      {"tstate.thread_id", l.tstate.thread_id, where_declared(ts, "thread_id")},
      {"tstate.current_frame", l.tstate.current_frame, where_declared(ts, "frame")},
      {"tstate.current_exception", l.tstate.current_exception, where_declared(ts, "curexc_type")},
      // 3.6 keeps the handled exception's type, value and traceback in the thread state.
      {"tstate.exc_state", l.tstate.exc_state,
       where_declared(ts, interp_head ? "exc_type" : "exc_state")},
      {"tstate.exc_info", l.tstate.exc_info, where_declared(ts, "exc_info")},
      {"tstate.dict", l.tstate.dict, where_declared(ts, "dict")},
      // 3.6 has no _PyErr_StackItem: the thread state's exc_value follows its exc_type.
      {"err_stackitem.exc_value", l.err_stackitem.exc_value,
       interp_head ? where_declared(ts, "exc_value") - where_declared(ts, "exc_type")
                  : where_declared(err, "exc_value")},
      {"err_stackitem.previous_item", l.err_stackitem.previous_item,
       where_declared(err, "previous_item")},
      // The thread's own item (exc_state) is a _PyErr_StackItem laid out alike.
      {"tstate.exc_state + err_stackitem.exc_value",
       int64_t{l.tstate.exc_state} + l.err_stackitem.exc_value,
       interp_head ? where_declared(ts, "exc_value") : where_declared(ts, "exc_state.exc_value")},
      {"frame.size", l.frame.size, SizeOf(f, fr)},
      {"frame.previous", l.frame.previous, where_declared(fr, "f_back")},
      {"frame.executable", l.frame.executable, where_declared(fr, "f_code")},
      {"frame.builtins", l.frame.builtins, where_declared(fr, "f_builtins")},
      {"frame.globals", l.frame.globals, where_declared(fr, "f_globals")},
      {"frame.locals_dict", l.frame.locals_dict, where_declared(fr, "f_locals")},
      {"frame.lasti", l.frame.lasti, where_declared(fr, "f_lasti")},
      {"frame.localsplus", l.frame.localsplus, where_declared(fr, "f_localsplus")},
      {"frame.gen", l.frame.gen, where_declared(fr, "f_gen")},
      {"frame.valuestack", l.frame.valuestack, where_declared(fr, "f_valuestack")},
      {"frame.stacktop_pointer", l.frame.stacktop_pointer, where_declared(fr, "f_stacktop")},
      {"frame.stackdepth", l.frame.stackdepth, where_declared(fr, "f_stackdepth")},
      {"frame.state", l.frame.state, where_declared(fr, "f_state")},
      {"gen.frame_pointer", l.gen.frame_pointer, where_declared("PyGenObject", "gi_frame")},
      {"code.size", l.code.size, SizeOf(f, co)},
      {"code.argcount", l.code.argcount, where_declared(co, "co_argcount")},
      {"code.nlocals", l.code.nlocals, where_declared(co, "co_nlocals")},
      {"code.stacksize", l.code.stacksize, where_declared(co, "co_stacksize")},
      {"code.firstlineno", l.code.firstlineno, where_declared(co, "co_firstlineno")},
      {"code.code", l.code.code, where_declared(co, "co_code")},
      {"code.varnames", l.code.varnames, where_declared(co, "co_varnames")},
      {"code.freevars", l.code.freevars, where_declared(co, "co_freevars")},
      {"code.cellvars", l.code.cellvars, where_declared(co, "co_cellvars")},
      {"code.filename", l.code.filename, where_declared(co, "co_filename")},
      {"code.name", l.code.name, where_declared(co, "co_name")},
      {"code.linetable", l.code.linetable,
       where_declared(co, minor == 10 ? "co_linetable" : "co_lnotab")},
      {"object.ob_type", l.object.ob_type, where_declared("PyObject", "ob_type")},
      {"object.ob_size", l.object.ob_size, where_declared("PyVarObject", "ob_size")},
      {"type.tp_name", l.type.tp_name, where_declared("PyTypeObject", "tp_name")},
      {"type.tp_basicsize", l.type.tp_basicsize, where_declared("PyTypeObject", "tp_basicsize")},
      {"type.tp_flags", l.type.tp_flags, where_declared("PyTypeObject", "tp_flags")},
      {"type.tp_base", l.type.tp_base, where_declared("PyTypeObject", "tp_base")},
      {"type.tp_dictoffset", l.type.tp_dictoffset, where_declared("PyTypeObject", "tp_dictoffset")},
      {"type.tp_mro", l.type.tp_mro, where_declared("PyTypeObject", "tp_mro")},
      {"type.ht_cached_keys", l.type.ht_cached_keys, where_declared("PyHeapTypeObject", "ht_cached_keys")},
      {"unicode.state", l.unicode.state, where_declared("PyASCIIObject", "state")},
      // 2.7's str is PyStringObject, 3's bytes PyBytesObject.
      {"bytes.ob_size", l.bytes.ob_size,
       where_declared(py27 ? "PyStringObject" : "PyBytesObject", var_size)},
      {"bytes.ob_sval", l.bytes.ob_sval,
       where_declared(py27 ? "PyStringObject" : "PyBytesObject", "ob_sval")},
      {"tuple.ob_size", l.tuple.ob_size, where_declared("PyTupleObject", var_size)},
      {"tuple.ob_item", l.tuple.ob_item, where_declared("PyTupleObject", "ob_item")},
      {"list.ob_size", l.list.ob_size, where_declared("PyListObject", var_size)},
      {"list.ob_item", l.list.ob_item, where_declared("PyListObject", "ob_item")},
      {"dict.ma_used", l.dict.ma_used, where_declared("PyDictObject", "ma_used")},
      {"dict.ma_keys", l.dict.ma_keys, where_declared("PyDictObject", "ma_keys")},
      {"dict.ma_values", l.dict.ma_values, where_declared("PyDictObject", "ma_values")},
      {"dict.keys_size", l.dict.keys_size, where_declared(keys, "dk_size")},
      {"dict.keys_nentries", l.dict.keys_nentries, where_declared(keys, "dk_nentries")},
      {"dict.keys_indices", l.dict.keys_indices, where_declared(keys, "dk_indices")},
      {"dict.ma_mask", l.dict.ma_mask, where_declared("PyDictObject", "ma_mask")},
      {"dict.ma_table", l.dict.ma_table, where_declared("PyDictObject", "ma_table")},
      {"int.ob_ival", l.int_object.ob_ival, where_declared("PyIntObject", "ob_ival")},
      // 2.7's classic classes (3.x has none: no such types).
      {"classic.in_class", l.classic.in_class, where_declared("PyInstanceObject", "in_class")},
      {"classic.cl_bases", l.classic.cl_bases, where_declared("PyClassObject", "cl_bases")},
      {"classic.cl_dict", l.classic.cl_dict, where_declared("PyClassObject", "cl_dict")},
      {"classic.cl_name", l.classic.cl_name, where_declared("PyClassObject", "cl_name")},
      {"long.ob_size", l.long_object.ob_size, where_declared("struct _longobject", var_size)},
      {"long.ob_digit", l.long_object.ob_digit, where_declared("struct _longobject", "ob_digit")},
      {"float.ob_fval", l.float_object.ob_fval, where_declared("PyFloatObject", "ob_fval")},
      {"set.mask", l.set.mask, where_declared("PySetObject", "mask")},
      {"set.table", l.set.table, where_declared("PySetObject", "table")},
      {"set.entry_key", l.set.entry_key, where_declared("setentry", "key")},
      {"set.entry_hash", l.set.entry_hash, where_declared("setentry", "hash")},
      {"weakref.wr_object", l.weakref.wr_object, where_declared("PyWeakReference", "wr_object")},
      {"method.im_func", l.method.im_func, where_declared("PyMethodObject", "im_func")},
      {"method.im_self", l.method.im_self, where_declared("PyMethodObject", "im_self")},
      {"cfunction.m_ml", l.cfunction.m_ml, where_declared("PyCFunctionObject", "m_ml")},
      {"cfunction.m_self", l.cfunction.m_self, where_declared("PyCFunctionObject", "m_self")},
      {"descriptor.d_type", l.descriptor.d_type, where_declared("PyDescrObject", "d_type")},
      {"descriptor.d_name", l.descriptor.d_name, where_declared("PyDescrObject", "d_name")},
      {"descriptor.d_base", l.descriptor.d_base, where_declared("PyWrapperDescrObject", "d_base")},
      // The method descriptors pyunwind meets open with the same PyDescr_COMMON.
      {"descriptor.d_type (PyMethodDescrObject)", l.descriptor.d_type,
       where_declared("PyMethodDescrObject", py27 ? "d_type" : "d_common.d_type")},
      {"descriptor.d_name (PyMethodDescrObject)", l.descriptor.d_name,
       where_declared("PyMethodDescrObject", py27 ? "d_name" : "d_common.d_name")},
      // 2.7 has no __qualname__: its functions are named by func_name.
      {"function.func_qualname", l.function.func_qualname,
       where_declared("PyFunctionObject", py27 ? "func_name" : "func_qualname")},
      {"function.func_code", l.function.func_code, where_declared("PyFunctionObject", "func_code")},
      {"module.md_dict", l.module.md_dict, where_declared("PyModuleObject", "md_dict")},
      {"exception.args", l.exception.args, where_declared("PyBaseExceptionObject", "args")},
      {"cell.ob_ref", l.cell.ob_ref, where_declared("PyCellObject", "ob_ref")},
      // TaskObj opens with FutureObj's fields (the _asyncio module's DWARF).
      {"task.loop", l.task.loop, task_fact("TaskObj", "task_loop")},
      {"task.callback0", l.task.callback0, task_fact("TaskObj", "task_callback0")},
      {"task.state", l.task.state, task_fact("TaskObj", "task_state")},
      {"task.fut_waiter", l.task.fut_waiter, task_fact("TaskObj", "task_fut_waiter")},
      {"task.coro", l.task.coro, task_fact("TaskObj", "task_coro")},
      {"task.name", l.task.name, task_fact("TaskObj", "task_name")},
      {"task.callbacks", l.task.callbacks, task_fact("TaskObj", "task_callbacks")},
      {"task.loop (FutureObj)", l.task.loop, task_fact("FutureObj", "fut_loop")},
      {"task.callback0 (FutureObj)", l.task.callback0, task_fact("FutureObj", "fut_callback0")},
      {"task.callbacks (FutureObj)", l.task.callbacks, task_fact("FutureObj", "fut_callbacks")},
  };
  if (py27) {
    // PyUnicodeObject { PyObject_HEAD; length; str; ... }.
    c.push_back({"unicode.length", l.unicode.length, where_declared("PyUnicodeObject", "length")});
    c.push_back({"unicode.legacy_str", l.unicode.legacy_str, where_declared("PyUnicodeObject", "str")});
  } else {
    c.insert(c.end(), {
        {"unicode.length", l.unicode.length, where_declared("PyASCIIObject", "length")},
        // Compact text starts right after the struct: sizeof(PyASCIIObject) for
        // ASCII, sizeof(PyCompactUnicodeObject) for the other kinds.
        {"unicode.ascii_data", l.unicode.ascii_data, SizeOf(f, "PyASCIIObject")},
        {"unicode.compact_data", l.unicode.compact_data, SizeOf(f, "PyCompactUnicodeObject")},
        // The bit-fields of `state`, as the NAME:bits rows give them (bit offset, width).
        {"unicode.kind_shift", l.unicode.kind_shift,
         where_declared("PyASCIIObject", "state.kind:bits")},
        {"unicode.compact_bit", l.unicode.compact_bit,
         where_declared("PyASCIIObject", "state.compact:bits")},
        {"unicode.ascii_bit", l.unicode.ascii_bit,
         where_declared("PyASCIIObject", "state.ascii:bits")},
        {"unicode.legacy_str (absent)", l.unicode.legacy_str, kAbsent},
    });
  }
  if (interp_head) {
    // No _PyRuntime: the "runtime" is interp_head, the list's head itself; the GIL is statics.
    c.push_back({"runtime.interpreters_head", l.runtime.interpreters_head, 0});
    c.push_back({"runtime.interpreters_main (absent)", l.runtime.interpreters_main, kAbsent});
    c.push_back({"gil.locked (absent: statics of ceval_gil.h)", l.gil.locked, kAbsent});
    c.push_back({"gil.last_holder (absent)", l.gil.last_holder, kAbsent});
    return c;
  }
  c.insert(c.end(), {
      {"runtime.interpreters_head", l.runtime.interpreters_head, f.Offset(rt, "interpreters.head")},
      {"runtime.interpreters_main", l.runtime.interpreters_main, f.Offset(rt, "interpreters.main")},
      // 3.7 keeps the main thread's id in the pending-calls state of the eval loop.
      {"runtime.main_thread", l.runtime.main_thread,
       f.Offset(rt, minor == 7 ? "ceval.pending.main_thread" : "main_thread")},
      {"runtime.gil", l.runtime.gil, f.Offset(rt, "ceval.gil")},
      {"runtime.gil + gil.locked", int64_t{l.runtime.gil} + l.gil.locked,
       f.Offset(rt, "ceval.gil.locked")},
      {"runtime.gil + gil.last_holder", int64_t{l.runtime.gil} + l.gil.last_holder,
       f.Offset(rt, "ceval.gil.last_holder")},
  });
  // The collector's state: the runtime's in 3.7 and 3.8, each interpreter's from 3.9.
  if (minor <= 8) {
    c.push_back({"runtime.gc_collecting", l.runtime.gc_collecting, where_declared(rt, "gc.collecting")});
    c.push_back({"interp.gc_collecting (absent: no gc in struct _is)", l.interp.gc_collecting,
                 f.Get(is, "gc.collecting") ? 0 : kAbsent});
  } else {
    c.push_back({"interp.gc_collecting", l.interp.gc_collecting, where_declared(is, "gc.collecting")});
    c.push_back({"runtime.gc_collecting (absent: no gc in the runtime)", l.runtime.gc_collecting,
                 f.Get(rt, "gc.collecting") ? 0 : kAbsent});
  }
  // The interpreter's back-pointer to the runtime, from 3.9.
  if (minor >= 9) {
    c.push_back({"interp.runtime", l.interp.runtime, where_declared(is, "runtime")});
  } else {
    c.push_back({"interp.runtime (absent)", l.interp.runtime, f.Get(is, "runtime") ? 0 : kAbsent});
  }
  return c;
}

struct Build {
  uint32_t hexversion;
  std::string name;  // tests/data/layouts/<name>.tsv
  int minor;  // of Python 3; 27 for 2.7
};

void PrintTo(const Build& b, std::ostream* os) { *os << b.name; }

class LegacyLayoutTablesTest : public ::testing::TestWithParam<Build> {};

TEST_P(LegacyLayoutTablesTest, TableAgreesWithDebugInfo) {
  const Build& build = GetParam();
  const std::string path = testing::RunfilePath("tests/data/layouts/" + build.name + ".tsv");
  auto facts = LayoutFacts::Load(path);
  ASSERT_TRUE(facts.has_value()) << "cannot read " << path;

  auto layout = LayoutFromTable(build.hexversion);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  ASSERT_TRUE(ValidateLayout(*layout).ok());
  const bool py27 = build.minor == 27;
  ASSERT_EQ(layout->version.major() * 10 + layout->version.minor(), py27 ? 27 : 30 + build.minor);
  EXPECT_EQ(layout->frame_model, FrameModel::kFrameObjects);
  EXPECT_EQ(layout->line_format, build.minor == 10 ? LineTableFormat::kLineTable
                                 : py27            ? LineTableFormat::kLnotab27
                                                   : LineTableFormat::kLnotab);
  // f_lasti counts bytes before 3.10, code units in 3.10; 2.7's code units are bytes.
  EXPECT_EQ(layout->frame.lasti_in_code_units, build.minor == 10);
  EXPECT_EQ(layout->code.bytes_per_unit, py27 ? 1 : 2);
  EXPECT_TRUE(layout->tstate.current_exception_is_type);  // curexc_type

  std::set<std::string> checked;
  for (const Check& check : ChecksFor(*layout, *facts, build.minor)) {
    EXPECT_EQ(check.actual, check.expected) << "Python " << build.name << ": " << check.field;
    checked.insert(check.field);
  }
  // Every field the table sets is checked (or has no fact to check against).
  for (const auto& [name, value] : AllFields(*layout)) {
    if (value == kAbsent || (value == 0 && kZeroIsUnset.count(name))) continue;
    EXPECT_TRUE(checked.count(name) || kNoFact.count(name))
        << "Python " << build.name << ": the table sets " << name << " = " << value
        << " but nothing checks it";
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, LegacyLayoutTablesTest,
                         ::testing::Values(Build{0x020712f0u, "2.7.18", 27},
                                           Build{0x03060ff0u, "3.6.15", 6},
                                           Build{0x030710f0u, "3.7.16", 7},
                                           Build{0x030812f0u, "3.8.18", 8},
                                           Build{0x030912f0u, "3.9.18", 9},
                                           Build{0x030a0df0u, "3.10.13", 10}),
                         [](const auto& info) {
                           std::string name = info.param.name;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return "Python" + name;
                         });

}  // namespace
}  // namespace pyunwind
