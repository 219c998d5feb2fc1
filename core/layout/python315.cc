// CPython 3.15: the fields of its _Py_DebugOffsets block, and the facts of
// its headers the block does not state (no fixture has its debug info: they
// are checked on its cores only, tests/fixture_cores_core_test.cc ...).
#include "core/layout/debug_offsets_sections.h"
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_315.inc"
}};

void AddFacts(Layout& l) {
  l.caret_rules = TracebackCaretRules::kPython313;  // Lib/traceback.py of 3.13 (docs/commands.md)
  // enum _framestate, renumbered: CREATED 0, SUSPENDED 1,
  // SUSPENDED_YIELD_FROM 2, SUSPENDED_YIELD_FROM_LOCKED 3 (free-threaded),
  // EXECUTING 4, CLEARED 5.
  l.frame_state = {0, 2, 3, 5};
  // A frame awaiting keeps one more value above the awaited object: stackpointer[-2].
  l.frame.awaited_from_top = 2;
  // As in 3.14:
  AddObjectFacts(l);
  AddDebugOffsetsCompanionFacts(l);
  AddHeapFacts(l);
  // struct _gc_runtime_state opens with enabled, debug (trash_delete_* left); its block's
  // gc.collecting (112) and gc.size (176) on the 3.15.2 cores agree with this order.
  AddGcListFacts(l, 8, 80);
  AddStackRefFacts(l);
  // _PyThreadStateImpl's C stack bounds: top, soft and hard limits at 96, 104 and 112 past
  // the PyThreadState (888 bytes), as Debian unstable's 3.15.2 keeps them while it runs.
  l.tstate.c_stack_top = l.tstate.size + 96;
  l.tstate.c_stack_hard_limit = l.tstate.size + 112;
  AddTaskFactsAfterAsyncioDebug(l);
  AddCodeStackFacts313(l);
  // [callable, self or NULL, args]; CALL_FUNCTION_EX (oparg 0): [callable,
  // NULL, args, kwargs or NULL]. The frame's stackpointer gives the depth.
  l.calls = {&kOpcodes, 67, false, 4};
}

}  // namespace

// 3.15: Include/internal/pycore_debug_offsets.h of CPython 3.15 (888 bytes,
// the size Modules/_remote_debugging/debug_offsets_validation.h asserts).
// Checked against the blocks of the 3.15.2 fixture cores (no debug info).
// New against 3.14: thread_state gains base_frame, last_profiled_frame,
// last_profiled_frame_seq (after current_frame) and holds_gil, gil_requested,
// current_exception, exc_state (after status); a new err_stackitem section;
// type_object gains tp_basicsize, tp_dictoffset; a new heap_type_object
// section; unicode_object gains compactunicodeobject_size; gc gains frame,
// generation_stats_size, generation_stats.
const MinorVersion kCPython315 = {
    15,
    {
    PYU_RUNTIME_STATE,
    PYU_INTERPRETER_314,
    "thread_state.size", "thread_state.prev", "thread_state.next", "thread_state.interp",
    "thread_state.current_frame", "thread_state.base_frame", "thread_state.last_profiled_frame",
    "thread_state.last_profiled_frame_seq", "thread_state.thread_id",
    "thread_state.native_thread_id", "thread_state.datastack_chunk", "thread_state.status",
    "thread_state.holds_gil", "thread_state.gil_requested", "thread_state.current_exception",
    "thread_state.exc_state",
    "err_stackitem.exc_value",
    PYU_FRAME_314,
    PYU_CODE_OBJECT_COMMON, "code_object.co_tlbc",
    "pyobject.size", "pyobject.ob_type",
    "type_object.size", "type_object.tp_name", "type_object.tp_repr", "type_object.tp_flags",
    "type_object.tp_basicsize", "type_object.tp_dictoffset",
    "heap_type_object.size", "heap_type_object.ht_cached_keys",
    PYU_SEQUENCES,
    "set_object.size", "set_object.used", "set_object.table", "set_object.mask",
    PYU_SMALL_OBJECTS,
    "unicode_object.size", "unicode_object.state", "unicode_object.length",
    "unicode_object.asciiobject_size", "unicode_object.compactunicodeobject_size",
    "gc.size", "gc.collecting", "gc.frame", "gc.generation_stats_size", "gc.generation_stats",
    PYU_TAIL_314,
    },
    AddFacts,
};

}  // namespace pyunwind
