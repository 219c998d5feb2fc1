// Facts of CPython's headers that hold for several minor versions, each
// written once here; each per-minor file (python3XX.cc) says which hold for it.
// All are x86-64 offsets of the default build; the longer free-threaded
// object header moves every field after it (HeaderDelta).
#pragma once

#include "core/layout/layout.h"

namespace pyunwind {

// Bytes the free-threaded object header adds (0 or 16).
inline int32_t HeaderDelta(const Layout& l) { return l.object.ob_type - 8; }

// Objects whose declarations have not changed since 3.11: type objects
// (tp_basicsize, tp_base, tp_dictoffset), sets, weak references, bound
// methods, functions, modules, cells, exceptions' args, and the FutureObj fields that open a
// TaskObj. Fields a _Py_DebugOffsets block already gave are kept.
void AddObjectFacts(Layout& l);

// 3.11+: what py-heap reads besides the collector's lists (each minor's file gives those):
// tp_itemsize after tp_basicsize, PyListObject's allocated after ob_item, PySetObject's used
// after fill and smalltable after hash and finger, and the pre-header flags sys.getsizeof counts. Default
// builds only take the lists; the sizes hold for both.
void AddHeapFacts(Layout& l);
// The collector's lists at `generations` and `permanent` inside struct _gc_runtime_state,
// on default builds (free-threaded ones keep tracked objects in mimalloc heaps instead).
// `generation0`: where 3.11-3.13 point at the first list (kAbsent where there is no such field).
void AddGcListFacts(Layout& l, int32_t generations, int32_t permanent,
                    int32_t generation0 = kAbsent);
// Free-threaded builds: where _PyThreadStateImpl keeps its mimalloc heaps, `after_tstate`
// bytes past the PyThreadState that _Py_DebugOffsets sizes (layout.h, Layout::Mimalloc), and
// no PyGC_Head before an object (sys.getsizeof adds only the pre-header). No-op on default
// builds.
void AddMimallocFacts(Layout& l, int32_t after_tstate);

// 3.11 and 3.12, which have no _Py_DebugOffsets: the fields both declare
// alike, and the tstate->dict key under which _asyncio keeps the running loop
// (their files add the rest).
void AddFactsOf311And312(Layout& l);

// 2.7 and 3.6 through 3.10, which keep PyFrameObjects: what they declare
// alike. The interpreter list, _PyErr_StackItem's (2.7, 3.6: the thread
// state's) exc_value after exc_type, PyFrameObject's f_back, f_code,
// f_builtins, f_globals, f_locals and f_valuestack, gi_frame, and the object
// headers of types, tuples, lists, longs and floats.
void AddFrameObjectFactsOf27To310(Layout& l);

// 3.6 through 3.10: the above, PyThreadState { prev; next; interp; frame; ... },
// PEP 393 strings, bytes, and the compact dict (PyDictKeysObject with dk_size).
// Their files then add AddObjectFacts.
void AddFactsOf36To310(Layout& l);

// 3.7 through 3.10: the rest of PyThreadState (exc_info, a stack of
// _PyErr_StackItem, dict, thread_id), the running loop's holder, and the GIL
// of _PyRuntime.
void AddThreadFactsOf37To310(Layout& l);

// 3.7 through 3.9: PyFrameObject's f_lasti (bytes) and f_localsplus, and
// PyFunctionObject's func_qualname after eleven other fields.
void AddFrameFactsOf37To39(Layout& l);

// 3.9 and 3.10: where _PyRuntime lists interpreters and keeps the GIL, and
// the interpreter's runtime, id, collector, modules, sys and builtins.
void AddStateFactsOf39And310(Layout& l);

// 3.6 and 3.7: PyCodeObject without co_posonlyargcount.
void AddCodeFactsOf36And37(Layout& l);

// 3.8 to 3.10: PyCodeObject with co_posonlyargcount; co_lnotab, in 3.10
// co_linetable at the same place.
void AddCodeFactsOf38To310(Layout& l);

// 3.13 through 3.15: what completes a _Py_DebugOffsets block. The struct
// around interpreters.head, PyDictObject before ma_keys, _co_firsttraceable
// before co_extra, enum _frameowner, PyCompactUnicodeObject, managed dicts
// with inline values.
void AddDebugOffsetsCompanionFacts(Layout& l);

// 3.12+: _PyInterpreterFrame opens with f_executable (f_code), previous,
// f_funcobj, then f_globals, f_builtins and f_locals.
void AddFrameNamespaceFactsOf312On(Layout& l);

// enum _framestate (Include/internal/pycore_frame.h) as 3.11 and 3.12
// number it: CREATED -2, SUSPENDED -1 (also while awaiting), EXECUTING 0,
// COMPLETED 1, CLEARED 4.
inline constexpr Layout::FrameStates kFrameStates311 = {-2, -1, -1, 1};
// ... and 3.13, 3.14: CREATED -3, SUSPENDED -2, SUSPENDED_YIELD_FROM -1,
// EXECUTING 0, COMPLETED 1, CLEARED 4.
inline constexpr Layout::FrameStates kFrameStates313 = {-3, -1, -1, 1};

// 3.14+: TaskObj declares `int task_state` right after task_awaited_by and
// task_fut_waiter right before task_coro, which _AsyncioDebug gives.
void AddTaskFactsAfterAsyncioDebug(Layout& l);

// 3.13 and 3.14, whose blocks state no exception field: PyThreadState
// declares current_frame, then c_profilefunc, c_tracefunc, c_profileobj,
// c_traceobj, current_exception, exc_info (the innermost item being
// handled). _PyErr_StackItem is { exc_value; previous_item; }.
void AddThreadStateExceptionFacts313(Layout& l);

// 3.14+: _PyStackRef tags, and the free-threaded PyASCIIObject.state whose
// `interned` became a whole byte.
void AddStackRefFacts(Layout& l);

// 3.13 through 3.15 (3.14.10 and 3.15.2 read live): PyCodeObject's
// co_exceptiontable, co_stacksize and co_nlocalsplus, what finding the value
// stack of a frame and a call's operands needs.
void AddCodeStackFacts313(Layout& l);

}  // namespace pyunwind
