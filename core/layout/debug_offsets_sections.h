// The runs of _Py_DebugOffsets field names that several minor versions'
// blocks share, in block order; for python313.cc ... python315.cc only.
// Sources: CPython's Include/internal/pycore_runtime.h (3.13) and
// Include/internal/pycore_debug_offsets.h (3.14, 3.15).
#pragma once

// Sections every minor version has, in the order they open the block.
#define PYU_RUNTIME_STATE "runtime_state.size", "runtime_state.finalizing", \
                          "runtime_state.interpreters_head"
#define PYU_CODE_OBJECT_COMMON                                                              \
  "code_object.size", "code_object.filename", "code_object.name", "code_object.qualname",   \
      "code_object.linetable", "code_object.firstlineno", "code_object.argcount",           \
      "code_object.localsplusnames", "code_object.localspluskinds", "code_object.co_code_adaptive"
#define PYU_SMALL_OBJECTS                                                                   \
  "dict_object.size", "dict_object.ma_keys", "dict_object.ma_values", "float_object.size",  \
      "float_object.ob_fval", "long_object.size", "long_object.lv_tag", "long_object.ob_digit", \
      "bytes_object.size", "bytes_object.ob_size", "bytes_object.ob_sval"
#define PYU_SEQUENCES                                                                       \
  "tuple_object.size", "tuple_object.ob_item", "tuple_object.ob_size", "list_object.size",  \
      "list_object.ob_item", "list_object.ob_size"
#define PYU_TAIL_314                                                                        \
  "gen_object.size", "gen_object.gi_name", "gen_object.gi_iframe", "gen_object.gi_frame_state", \
      "llist_node.next", "llist_node.prev", "debugger_support.eval_breaker",                \
      "debugger_support.remote_debugger_support", "debugger_support.remote_debugging_enabled", \
      "debugger_support.debugger_pending_call", "debugger_support.debugger_script_path",    \
      "debugger_support.debugger_script_path_size"
#define PYU_INTERPRETER_314                                                                 \
  "interpreter_state.size", "interpreter_state.id", "interpreter_state.next",               \
      "interpreter_state.threads_head", "interpreter_state.threads_main",                   \
      "interpreter_state.gc", "interpreter_state.imports_modules", "interpreter_state.sysdict", \
      "interpreter_state.builtins", "interpreter_state.ceval_gil",                          \
      "interpreter_state.gil_runtime_state", "interpreter_state.gil_runtime_state_enabled", \
      "interpreter_state.gil_runtime_state_locked", "interpreter_state.gil_runtime_state_holder", \
      "interpreter_state.code_object_generation", "interpreter_state.tlbc_generation"
#define PYU_FRAME_314                                                                       \
  "interpreter_frame.size", "interpreter_frame.previous", "interpreter_frame.executable",   \
      "interpreter_frame.instr_ptr", "interpreter_frame.localsplus", "interpreter_frame.owner", \
      "interpreter_frame.stackpointer", "interpreter_frame.tlbc_index"
