// CPython 3.13: the fields of its _Py_DebugOffsets block, and the facts of
// its headers the block does not state (checked against the debug info of
// 3.13.15 and 3.13.15t: tests/debug_offsets_test.cc, layout_facts_test.cc).
#include "core/layout/debug_offsets_sections.h"
#include "core/layout/facts.h"
#include "core/layout/minor_versions.h"

namespace pyunwind {
namespace {

const OpcodeTable kOpcodes = {{
#include "core/layout/opcodes_313.inc"
}};

void AddFacts(Layout& l) {
  l.caret_rules = TracebackCaretRules::kPython313;  // Lib/traceback.py of 3.13 (docs/commands.md)
  AddObjectFacts(l);
  AddDebugOffsetsCompanionFacts(l);
  AddHeapFacts(l);
  AddGcListFacts(l, 24, 104, 96);  // as 3.11
  // _PyThreadStateImpl: asyncio_running_loop, qsbr, mem_free_queue, gc, then mimalloc's
  // current_object_heap and heaps (3.13.15t: the heaps at 360, the PyThreadState 312).
  AddMimallocFacts(l, 48);
  AddThreadStateExceptionFacts313(l);
  const int32_t d = HeaderDelta(l);
  l.frame.stacktop = 64;  // int: slots in use above localsplus
  l.type.ht_cached_keys = 880 + d;
  AddCodeStackFacts313(l);
  // [callable, self or NULL, args]; CALL_FUNCTION_EX: [callable, NULL, args, kwargs].
  l.calls = {&kOpcodes, 71, false, 3, 2};
  // PyCoroObject: the frame state byte, then the embedded frame.
  l.gen.frame_state = 67 + d;
  l.gen.iframe = 72 + d;
  l.frame_state = kFrameStates313;
  // TaskObj: task_state, then task_fut_waiter, task_coro, task_name.
  l.task.state = 96 + d;
  l.task.fut_waiter = 112 + d;
  l.task.coro = 120 + d;
  l.task.name = 128 + d;
  // Not in its block: the thread running __main__ and the runtime's main
  // thread id (the same in 3.13.0 and 3.13.15, default and free-threaded),
  // used only where the target shows they agree (core/walk/main_thread.cc).
  l.interp.threads_main = 7352;
  l.interp.threads_main_from_table = true;
  l.runtime.main_thread = 656;
  // _PyThreadStateImpl opens with the PyThreadState the block sizes, then
  // asyncio_running_loop (3.13.0: 304, 3.13.15: 312).
  l.running_loop.tstate_offset = l.tstate.size;
}

}  // namespace

// 3.13: struct _Py_DebugOffsets in Include/internal/pycore_runtime.h (584 bytes).
const MinorVersion kCPython313 = {
    13,
    {
    PYU_RUNTIME_STATE,
    "interpreter_state.size", "interpreter_state.id", "interpreter_state.next",
    "interpreter_state.threads_head", "interpreter_state.gc", "interpreter_state.imports_modules",
    "interpreter_state.sysdict", "interpreter_state.builtins", "interpreter_state.ceval_gil",
    "interpreter_state.gil_runtime_state", "interpreter_state.gil_runtime_state_enabled",
    "interpreter_state.gil_runtime_state_locked", "interpreter_state.gil_runtime_state_holder",
    "thread_state.size", "thread_state.prev", "thread_state.next", "thread_state.interp",
    "thread_state.current_frame", "thread_state.thread_id", "thread_state.native_thread_id",
    "thread_state.datastack_chunk", "thread_state.status",
    "interpreter_frame.size", "interpreter_frame.previous", "interpreter_frame.executable",
    "interpreter_frame.instr_ptr", "interpreter_frame.localsplus", "interpreter_frame.owner",
    PYU_CODE_OBJECT_COMMON,
    "pyobject.size", "pyobject.ob_type",
    "type_object.size", "type_object.tp_name", "type_object.tp_repr", "type_object.tp_flags",
    PYU_SEQUENCES,
    PYU_SMALL_OBJECTS,
    "unicode_object.size", "unicode_object.state", "unicode_object.length",
    "unicode_object.asciiobject_size",
    "gc.size", "gc.collecting",
    },
    AddFacts,
};

}  // namespace pyunwind
