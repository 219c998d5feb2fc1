// CPython 3.14: the fields of its _Py_DebugOffsets block, and the facts of
// its headers the block does not state (checked against the debug info of
// 3.14.7 and 3.14.7t: tests/debug_offsets_test.cc, layout_facts_test.cc).
#include "core/layout/debug_offsets_sections.h"
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_314.inc"
}};

void AddFacts(Layout& l) {
  l.caret_rules = TracebackCaretRules::kPython313;  // Lib/traceback.py of 3.13 (docs/commands.md)
  AddObjectFacts(l);
  AddDebugOffsetsCompanionFacts(l);
  AddHeapFacts(l);
  // generation0 moved to the end: permanent_generation follows the three lists.
  AddGcListFacts(l, 24, 96);
  // _PyThreadStateImpl: refcount, the C stack limits, the asyncio fields, qsbr,
  // mem_free_queue, c_stack_refs, gc, then mimalloc's current_object_heap and heaps
  // (3.14.7t: the heaps at 944, the PyThreadState 832).
  AddMimallocFacts(l, 112);
  l.tstate.c_stack_top = l.tstate.size + 8;  // after refcount; then soft and hard limits
  l.tstate.c_stack_hard_limit = l.tstate.size + 24;
  AddThreadStateExceptionFacts313(l);
  AddStackRefFacts(l);
  l.type.ht_cached_keys = 880 + HeaderDelta(l);
  l.frame_state = kFrameStates313;
  AddTaskFactsAfterAsyncioDebug(l);
  AddCodeStackFacts313(l);
  // [callable, self or NULL, args]; CALL_FUNCTION_EX (oparg 0): [callable,
  // NULL, args, kwargs or NULL]. The frame's stackpointer gives the depth.
  l.calls = {&kOpcodes, 69, false, 4};
}

}  // namespace

// 3.14: Include/internal/pycore_debug_offsets.h (760 bytes). New against 3.13:
// threads_main, code_object_generation, tlbc_generation, stackpointer,
// tlbc_index, co_tlbc, set_object, gen_object, llist_node, debugger_support.
const MinorVersion kCPython314 = {
    14,
    {
    PYU_RUNTIME_STATE,
    PYU_INTERPRETER_314,
    "thread_state.size", "thread_state.prev", "thread_state.next", "thread_state.interp",
    "thread_state.current_frame", "thread_state.thread_id", "thread_state.native_thread_id",
    "thread_state.datastack_chunk", "thread_state.status",
    PYU_FRAME_314,
    PYU_CODE_OBJECT_COMMON, "code_object.co_tlbc",
    "pyobject.size", "pyobject.ob_type",
    "type_object.size", "type_object.tp_name", "type_object.tp_repr", "type_object.tp_flags",
    PYU_SEQUENCES,
    "set_object.size", "set_object.used", "set_object.table", "set_object.mask",
    PYU_SMALL_OBJECTS,
    "unicode_object.size", "unicode_object.state", "unicode_object.length",
    "unicode_object.asciiobject_size",
    "gc.size", "gc.collecting",
    PYU_TAIL_314,
    },
    AddFacts,
};

}  // namespace pyunwind
