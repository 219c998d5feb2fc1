#include "core/layout/facts.h"

namespace pyunwind {
namespace {

void SetIfAbsent(int32_t& field, int32_t value) {
  if (field == kAbsent) field = value;
}

}  // namespace

void AddHeapFacts(Layout& l) {
  const int32_t d = HeaderDelta(l);
  // PyTypeObject { PyVarObject; tp_name; tp_basicsize; tp_itemsize; ... }.
  SetIfAbsent(l.type.tp_itemsize, 40 + d);
  // PyListObject { PyVarObject; ob_item; allocated }.
  SetIfAbsent(l.list.allocated, 32 + d);
  // PySetObject { PyObject_HEAD; fill; used; mask; table; hash; finger; smalltable[8]; ... }.
  SetIfAbsent(l.set.used, 24 + d);
  SetIfAbsent(l.set.smalltable, 64 + d);
  // Py_TPFLAGS_MANAGED_DICT (1 << 4) since 3.11, Py_TPFLAGS_MANAGED_WEAKREF (1 << 3) since 3.12.
  l.gc.preheader_flags = l.version.minor() == 11 ? (1u << 4) : (1u << 4) | (1u << 3);
}

void AddGcListFacts(Layout& l, int32_t generations, int32_t permanent, int32_t generation0) {
  if (l.free_threaded) return;
  l.gc.generations = generations;
  l.gc.permanent = permanent;
  l.gc.generation0 = generation0;
}

void AddMimallocFacts(Layout& l, int32_t after_tstate) {
  if (!l.free_threaded || l.tstate.size <= 0) return;
  l.mimalloc.tstate_heaps = l.tstate.size + after_tstate;
  l.gc.head_size = 0;
}

void AddObjectFacts(Layout& l) {
  const int32_t d = HeaderDelta(l);
  // PyObject { [_ob_next; _ob_prev;] ob_refcnt; ob_type; } (free-threaded builds: no one count).
  l.object.ob_refcnt = l.object.ob_type - 8;
  // PyTypeObject (Include/cpython/object.h).
  SetIfAbsent(l.type.tp_basicsize, 32 + d);
  SetIfAbsent(l.type.tp_base, 256 + d);
  SetIfAbsent(l.type.tp_dict, 264 + d);
  SetIfAbsent(l.type.tp_dictoffset, 288 + d);
  SetIfAbsent(l.type.tp_mro, 344 + d);
  // PySetObject { PyObject_HEAD; fill; used; mask; table; ... }.
  SetIfAbsent(l.set.mask, 32 + d);
  SetIfAbsent(l.set.table, 40 + d);
  // PyWeakReference { PyObject_HEAD; wr_object; ... }.
  SetIfAbsent(l.weakref.wr_object, 16 + d);
  // PyMethodObject { PyObject_HEAD; im_func; im_self; ... }.
  SetIfAbsent(l.method.im_func, 16 + d);
  SetIfAbsent(l.method.im_self, 24 + d);
  // PyCFunctionObject { PyObject_HEAD; m_ml; m_self; ... };
  // PyDescr_COMMON { PyObject_HEAD; d_type; d_name; d_qualname; };
  // PyWrapperDescrObject { PyDescr_COMMON; struct wrapperbase *d_base; ... };
  // PyMemberDescrObject { PyDescr_COMMON; PyMemberDef *d_member; };
  // wrapperobject { PyObject_HEAD; PyWrapperDescrObject *descr; PyObject *self; }
  // (Objects/descrobject.c, 3.6 to 3.15).
  SetIfAbsent(l.cfunction.m_ml, 16 + d);
  SetIfAbsent(l.cfunction.m_self, 24 + d);
  SetIfAbsent(l.descriptor.d_type, 16 + d);
  SetIfAbsent(l.descriptor.d_name, 24 + d);
  SetIfAbsent(l.descriptor.d_base, 40 + d);
  SetIfAbsent(l.descriptor.d_member, 40 + d);
  SetIfAbsent(l.member_def.name, 0);
  SetIfAbsent(l.member_def.type, 8);
  SetIfAbsent(l.member_def.offset, 16);
  SetIfAbsent(l.method_wrapper.descr, 16 + d);
  SetIfAbsent(l.method_wrapper.self, 24 + d);
  // PyFunctionObject { PyObject_HEAD; globals; builtins; name; qualname; ... }.
  SetIfAbsent(l.function.func_qualname, 40 + d);
  // PyModuleObject { PyObject_HEAD; md_dict; ... }; PyCellObject { PyObject_HEAD; ob_ref; }.
  SetIfAbsent(l.module.md_dict, 16 + d);
  SetIfAbsent(l.cell.ob_ref, 16 + d);
  // PyBaseExceptionObject { PyObject_HEAD; dict; args; notes; ... }.
  SetIfAbsent(l.exception.args, 24 + d);
  // rlockobject: 3.6-3.13 { PyObject_HEAD; PyThread_type_lock rlock_lock; unsigned long
  // rlock_owner; unsigned long rlock_count; ... }; 3.14+ { PyObject_HEAD; _PyRecursiveMutex
  // { PyMutex; unsigned long long thread; size_t level } }: the same two words.
  SetIfAbsent(l.rlock.owner, 24 + d);
  SetIfAbsent(l.rlock.count, 32 + d);
  // simplequeueobject: 3.7-3.12 { PyObject_HEAD; PyThread_type_lock lock; int locked;
  // PyObject *lst; Py_ssize_t lst_pos; ... }; 3.13+ { PyObject_HEAD; bool has_threads_waiting;
  // RingBuf { put_idx; get_idx; PyObject **items; items_cap; num_items } }.
  if (l.version.major() == 3 && l.version.minor() >= 7 && l.version.minor() <= 12) {
    SetIfAbsent(l.simple_queue.list, 32 + d);
    SetIfAbsent(l.simple_queue.list_position, 40 + d);
  } else if (l.version.major() == 3 && l.version.minor() >= 13) {
    SetIfAbsent(l.simple_queue.ring_get_index, 32 + d);
    SetIfAbsent(l.simple_queue.ring_items, 40 + d);
    SetIfAbsent(l.simple_queue.ring_capacity, 48 + d);
    SetIfAbsent(l.simple_queue.ring_count, 56 + d);
  }
  // FutureObj (Modules/_asynciomodule.c): loop, callback0, context0, callbacks.
  SetIfAbsent(l.task.loop, 16 + d);
  SetIfAbsent(l.task.callback0, 24 + d);
  SetIfAbsent(l.task.callbacks, 40 + d);
  // futureiterobject { PyObject_HEAD; FutureObj *future; }, TaskWakeupMethWrapper
  // { PyObject_HEAD; TaskObj *ww_task; }; dequeobject { PyObject_VAR_HEAD; block *leftblock;
  // block *rightblock; Py_ssize_t leftindex; Py_ssize_t rightindex; ... }, block
  // { struct BLOCK *leftlink; PyObject *data[64]; struct BLOCK *rightlink; } (3.6 to 3.15).
  SetIfAbsent(l.future_holders.future_iter_future, 16 + d);
  SetIfAbsent(l.future_holders.wakeup_wrapper_task, 16 + d);
  SetIfAbsent(l.deque.leftblock, 24 + d);
  SetIfAbsent(l.deque.rightblock, 32 + d);
  SetIfAbsent(l.deque.leftindex, 40 + d);
  SetIfAbsent(l.deque.rightindex, 48 + d);
  SetIfAbsent(l.deque.block_data, 8);
  l.deque.block_slots = 64;
}

void AddFactsOf311And312(Layout& l) {
  l.runtime.interpreters_head = 40;
  l.runtime.interpreters_main = 48;

  l.tstate.prev = 0;
  l.tstate.next = 8;
  l.tstate.interp = 16;
  l.tstate.cframe = 56;
  // _asyncio's set_running_loop() keeps the loop in the thread's dict.
  l.running_loop.dict_key = "__asyncio_running_event_loop__";

  l.frame.instr_is_previous = true;
  l.frame.owner_generator = 1;
  l.frame.size = 80;
  l.frame.instr_ptr = 56;
  l.frame.stacktop = 64;
  l.frame.localsplus = 72;

  l.code.filename = 112;
  l.code.name = 120;
  l.code.qualname = 128;
  l.code.linetable = 136;
  l.code.localsplusnames = 96;
  l.code.localspluskinds = 104;

  l.object.ob_type = 8;
  l.object.ob_size = 16;
  l.type.tp_name = 24;
  l.type.tp_flags = 168;

  l.unicode.length = 16;
  l.unicode.state = 32;
  l.unicode.kind_shift = 2;
  l.unicode.compact_bit = 5;
  l.unicode.ascii_bit = 6;

  l.bytes.ob_size = 16;
  l.bytes.ob_sval = 32;
  l.tuple.ob_size = 16;
  l.tuple.ob_item = 24;
  l.list.ob_size = 16;
  l.list.ob_item = 24;
  l.dict.ma_used = 16;
  l.dict.ma_keys = 32;
  l.dict.ma_values = 40;
  l.long_object.ob_digit = 24;
  l.float_object.ob_fval = 16;

  l.gil.last_holder = 8;
  l.gil.locked = 16;
  l.err_stackitem.exc_value = 0;
  l.err_stackitem.previous_item = 8;

  l.frame_state = kFrameStates311;
  // TaskObj: task_state, then (after the other FutureObj fields and the
  // task's own) task_fut_waiter, task_coro, task_name.
  l.task.state = 88;
  l.task.fut_waiter = 128;
  l.task.coro = 136;
  l.task.name = 144;
  // The managed dict pointer is 3 words before the object.
  l.managed_dict.dict_before = 24;
}

void AddFrameObjectFactsOf27To310(Layout& l) {
  l.source = LayoutSource::kTable;
  l.frame_model = FrameModel::kFrameObjects;
  l.caret_rules = TracebackCaretRules::kPython311;  // unused: no columns before 3.11

  l.interp.next = 0;
  l.interp.threads_head = 8;
  l.tstate.current_exception_is_type = true;  // curexc_type
  // The exception being handled: exc_type, exc_value, exc_traceback.
  l.err_stackitem.exc_value = 8;

  // PyFrameObject { PyObject_VAR_HEAD; f_back; f_code; f_builtins; f_globals; f_locals; ... }.
  l.frame.previous = 24;
  l.frame.executable = 32;
  l.frame.builtins = 40;
  l.frame.globals = 48;
  l.frame.locals_dict = 56;
  l.frame.valuestack = 64;
  // PyGenObject / PyCoroObject { PyObject_HEAD; gi_frame; ... }.
  l.gen.frame_pointer = 16;

  l.object.ob_type = 8;
  l.object.ob_size = 16;
  l.type.tp_name = 24;
  l.type.tp_flags = 168;
  l.tuple.ob_size = 16;
  l.tuple.ob_item = 24;
  l.list.ob_size = 16;
  l.list.ob_item = 24;
  l.long_object.ob_size = 16;
  l.long_object.ob_digit = 24;
  l.float_object.ob_fval = 16;
}

void AddFactsOf36To310(Layout& l) {
  AddFrameObjectFactsOf27To310(l);
  l.tstate.prev = 0;
  l.tstate.next = 8;
  l.tstate.interp = 16;
  l.tstate.current_frame = 24;  // tstate->frame

  // PyASCIIObject { PyObject_HEAD; length; hash; state; wstr; }.
  l.unicode.length = 16;
  l.unicode.state = 32;
  l.unicode.ascii_data = 48;
  l.unicode.compact_data = 72;
  l.bytes.ob_size = 16;
  l.bytes.ob_sval = 32;
  // PyDictObject { PyObject_HEAD; ma_used; ma_version_tag; ma_keys; ma_values; };
  // PyDictKeysObject { dk_refcnt; dk_size; dk_lookup; dk_usable; dk_nentries; dk_indices; }.
  l.dict.ma_used = 16;
  l.dict.ma_keys = 32;
  l.dict.ma_values = 40;
  l.dict.keys_size = 8;
  l.dict.keys_nentries = 32;
  l.dict.keys_indices = 40;
}

void AddThreadFactsOf37To310(Layout& l) {
  // PyThreadState: ...; curexc_type at 88; exc_state at 112; exc_info; dict; ...; thread_id.
  l.tstate.size = 264;
  l.tstate.current_exception = 88;
  l.tstate.exc_state = 112;
  l.tstate.exc_info = 144;
  l.tstate.dict = 152;
  l.tstate.thread_id = 176;
  // _PyErr_StackItem { exc_type; exc_value; exc_traceback; previous_item; }.
  l.err_stackitem.previous_item = 24;
  // _asyncio keeps the running loop in the thread's dict, in a PyRunningLoopHolder
  // { PyObject_HEAD; rl_loop; rl_pid; }.
  l.running_loop.dict_key = "__asyncio_running_event_loop__";
  l.running_loop.holder_type = "_RunningLoopHolder";
  l.running_loop.holder_loop = 16;
  l.running_loop.holder_size = 32;
  // struct _gil_runtime_state { interval; last_holder; locked; ... } in _PyRuntime.
  l.gil.last_holder = 8;
  l.gil.locked = 16;
}

void AddFrameFactsOf37To39(Layout& l) {
  // ... f_valuestack; f_stacktop; f_trace; f_trace_lines; f_trace_opcodes; f_gen; f_lasti; ...
  l.frame.size = 368;
  l.frame.stacktop_pointer = 72;
  l.frame.gen = 96;
  l.frame.lasti = 104;
  l.frame.localsplus = 360;
  // PyFunctionObject { PyObject_HEAD; func_code; func_globals; ... func_qualname; ... }.
  l.function.func_code = 16;
  l.function.func_qualname = 104;
}

void AddStateFactsOf39And310(Layout& l) {
  l.runtime.interpreters_head = 32;
  l.runtime.interpreters_main = 40;
  l.runtime.main_thread = 72;
  l.runtime.gil = 352;  // ceval.gil
  l.interp.runtime = 16;
  l.interp.id = 24;
  l.interp.gc_collecting = 816;
  l.interp.modules = 856;
  l.interp.sysdict = 872;
  l.interp.builtins = 880;
}

void AddCodeFactsOf36And37(Layout& l) {
  l.code.size = 144;
  l.code.argcount = 16;
  l.code.nlocals = 24;
  l.code.stacksize = 28;
  l.code.firstlineno = 36;
  l.code.code = 40;
  l.code.varnames = 64;
  l.code.freevars = 72;
  l.code.cellvars = 80;
  l.code.filename = 96;
  l.code.name = 104;
  l.code.linetable = 112;  // co_lnotab
}

void AddCodeFactsOf38To310(Layout& l) {
  l.code.size = 176;
  l.code.argcount = 16;
  l.code.nlocals = 28;
  l.code.stacksize = 32;
  l.code.firstlineno = 40;
  l.code.code = 48;
  l.code.varnames = 72;
  l.code.freevars = 80;
  l.code.cellvars = 88;
  l.code.filename = 104;
  l.code.name = 112;
  l.code.linetable = 120;  // co_lnotab; 3.10's co_linetable
}

void AddFrameNamespaceFactsOf312On(Layout& l) {
  l.frame.globals = 24;
  l.frame.builtins = 32;
  l.frame.locals_dict = 40;
}

void AddDebugOffsetsCompanionFacts(Layout& l) {
  AddFrameNamespaceFactsOf312On(l);
  // struct pyinterpreters { PyMutex mutex; head; main; next_id; }.
  if (l.runtime.interpreters_head != kAbsent) {
    l.runtime.interpreters_main = l.runtime.interpreters_head + 8;
  }
  // PyDictObject { PyObject_HEAD; ma_used; _ma_watcher_tag; ma_keys; ma_values; }.
  if (l.dict.ma_keys >= 16) l.dict.ma_used = l.dict.ma_keys - 16;
  // `int _co_firsttraceable; void *co_extra;` precede co_tlbc (free-threaded
  // 3.14+) or else co_code_adaptive.
  const int32_t after_extra = l.code.tlbc != kAbsent ? l.code.tlbc : l.code.code_adaptive;
  if (after_extra >= 16) l.code.firsttraceable = after_extra - 16;
  // enum _frameowner: THREAD 0, GENERATOR 1, FRAME_OBJECT 2; owners from 3 on
  // (CSTACK in 3.13, INTERPRETER and CSTACK in 3.14) are entry shims.
  l.frame.owner_generator = 1;
  l.frame.owner_first_internal = 3;
  l.frame.instr_is_previous = false;  // instr_ptr: the instruction running or about to
  // PyCompactUnicodeObject { PyASCIIObject _base; utf8_length; utf8; }.
  if (l.unicode.compact_data == kAbsent && l.unicode.ascii_data != kAbsent) {
    l.unicode.compact_data = l.unicode.ascii_data + 16;
  }
  // A managed dict pointer 3 words before the object (1 in free-threaded
  // builds); inline values at tp_basicsize, PyDictValues { capacity, size,
  // embedded, valid; values[] } behind an 8-byte header.
  l.managed_dict.dict_before = l.free_threaded ? 8 : 24;
  l.managed_dict.values_inline = true;
  l.managed_dict.inline_valid = 3;
  l.dict.values_header = 8;
}

void AddThreadStateExceptionFacts313(Layout& l) {
  if (l.tstate.current_frame != kAbsent) {
    l.tstate.current_exception = l.tstate.current_frame + 40;
    l.tstate.exc_info = l.tstate.current_frame + 48;
  }
  l.err_stackitem.exc_value = 0;
  l.err_stackitem.previous_item = 8;
}

void AddTaskFactsAfterAsyncioDebug(Layout& l) {
  l.task.state_after_awaited_by = 8;
  l.task.fut_waiter_before_coro = 8;
}

void AddStackRefFacts(Layout& l) {
  // Py_TAG_BITS: the low bit in 3.14, the low two in 3.15; objects are
  // 8-byte aligned, so clearing both recovers every pointer. Py_INT_TAG 3.
  l.frame.stackref_tag_mask = 3;
  l.frame.stackref_ints = true;
  if (l.free_threaded) {  // `interned` a whole byte, for atomic access
    l.unicode.kind_shift = 8;
    l.unicode.compact_bit = 11;
    l.unicode.ascii_bit = 12;
  }
}

void AddCodeStackFacts313(Layout& l) {
  const int32_t d = HeaderDelta(l);
  l.code.exceptiontable = 40 + d;
  l.code.stacksize = 64 + d;
  l.code.nlocalsplus = 72 + d;
}

}  // namespace pyunwind
