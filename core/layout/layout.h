// Where the fields the unwinder reads sit in one CPython build. The walk
// reads fields by these names only; every difference between versions lives
// here, as data, chosen once per target: from per-version tables for 3.11
// and 3.12, from the target's own _Py_DebugOffsets for 3.13 and newer.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/result.h"
#include "core/layout/version.h"

namespace pyunwind {

inline constexpr int32_t kAbsent = -1;  // the build has no such field

struct Layout {
  PythonVersion version;
  bool free_threaded = false;
  std::string source;  // "table 3.11", "_Py_DebugOffsets 3.14", ...
  std::string warning;  // e.g. a version newer than the newest known table

  struct Runtime {
    int32_t interpreters_head = kAbsent;
    int32_t interpreters_main = kAbsent;
    int32_t main_thread = kAbsent;  // pthread id of the main thread (3.11, 3.12)
    int32_t gil = kAbsent;          // 3.11: the one GIL is embedded in the runtime
    // Offset of the embedded main interpreter in the release the table was
    // read from; patch releases move it a little (3.12.1: 76392, 3.12.6: 76440).
    int32_t main_interpreter_embedded = kAbsent;
  } runtime;

  struct Interpreter {
    int32_t size = 0;
    int32_t next = kAbsent;
    int32_t id = kAbsent;
    int32_t runtime = kAbsent;  // back-pointer to _PyRuntime (3.11, 3.12)
    int32_t threads_head = kAbsent;
    int32_t threads_main = kAbsent;  // 3.14+
    int32_t sysdict = kAbsent;
    int32_t modules = kAbsent;
    int32_t gc_collecting = kAbsent;
    int32_t ceval_gil = kAbsent;  // 3.12+: pointer to the GIL this interpreter uses
    int32_t gil_enabled = kAbsent;  // free-threaded 3.13+, inside the GIL struct
    int32_t builtins = kAbsent;     // the builtins module dict (names the builtin types)
  } interp;

  struct Gil {  // struct _gil_runtime_state
    int32_t locked = kAbsent;
    int32_t last_holder = kAbsent;
  } gil;

  struct ThreadState {
    int32_t size = 0;
    int32_t prev = kAbsent;
    int32_t next = kAbsent;
    int32_t interp = kAbsent;
    int32_t thread_id = kAbsent;
    int32_t native_thread_id = kAbsent;
    // 3.13+: the innermost frame is a field of the thread state. 3.11 and 3.12
    // reach it through tstate->cframe->current_frame.
    int32_t current_frame = kAbsent;
    int32_t cframe = kAbsent;
    int32_t cframe_current_frame = kAbsent;
    // Exceptions: the one being raised (curexc_type in 3.11, current_exception
    // 3.12+), the innermost _PyErr_StackItem being handled (exc_info) and the
    // thread's own one (exc_state). From the tables (3.11, 3.12) and the 3.15
    // debug offsets; 3.13 and 3.14 export none of them.
    int32_t current_exception = kAbsent;
    int32_t exc_info = kAbsent;
    int32_t exc_state = kAbsent;
    int32_t gil_requested = kAbsent;  // 3.15: int, set while the thread waits for the GIL
  } tstate;

  struct ErrStackItem {  // _PyErr_StackItem
    int32_t exc_value = kAbsent;
    int32_t previous_item = kAbsent;  // 3.11-3.14 tables; absent where not exported
  } err_stackitem;

  struct Frame {
    int32_t size = 0;
    int32_t previous = kAbsent;
    int32_t executable = kAbsent;  // f_code (3.11, 3.12), f_executable (3.13+)
    int32_t instr_ptr = kAbsent;   // prev_instr (3.11, 3.12), instr_ptr (3.13+)
    bool instr_is_previous = false;  // prev_instr points at the instruction running
    int32_t owner = kAbsent;
    int32_t localsplus = kAbsent;
    int32_t stacktop = kAbsent;      // 3.11-3.13: int, slots in use above localsplus
    int32_t stackpointer = kAbsent;  // 3.14+: pointer past the top of the value stack
    int32_t tlbc_index = kAbsent;  // free-threaded 3.14+
    int32_t is_entry = kAbsent;    // 3.11: bool, set on the frame an eval-loop call started with
    // Frames whose owner is at least this are the interpreter's own
    // bookkeeping (C-stack entry shims), not Python code.
    int32_t owner_first_internal = 256;
    int32_t owner_generator = 1;
    // 3.14+ keeps tagged references (_PyStackRef) in f_executable.
    uint64_t stackref_tag_mask = 0;
  } frame;

  // PyGenObject / PyCoroObject (3.14+ debug offsets: gen_object): the state
  // byte of the embedded frame, and the frame itself.
  struct Generator {
    int32_t frame_state = kAbsent;
    int32_t iframe = kAbsent;
  } gen;

  struct Code {
    int32_t size = 0;
    int32_t filename = kAbsent;
    int32_t name = kAbsent;
    int32_t qualname = kAbsent;
    int32_t linetable = kAbsent;
    int32_t firstlineno = kAbsent;
    int32_t argcount = kAbsent;
    int32_t localsplusnames = kAbsent;
    int32_t localspluskinds = kAbsent;
    int32_t code_adaptive = kAbsent;
    int32_t firsttraceable = kAbsent;  // 3.11, 3.12: frames before it are incomplete
    int32_t tlbc = kAbsent;            // free-threaded 3.14+: per-thread bytecode copies
  } code;

  struct Object {
    int32_t ob_type = 8;
    int32_t ob_size = 16;  // PyVarObject.ob_size
  } object;

  struct Type {
    int32_t tp_name = kAbsent;
    int32_t tp_flags = kAbsent;
    int32_t tp_basicsize = kAbsent;
    int32_t tp_dictoffset = kAbsent;
    int32_t ht_cached_keys = kAbsent;  // PyHeapTypeObject: the shared keys of its instances
  } type;

  struct Unicode {
    int32_t length = kAbsent;
    int32_t state = kAbsent;
    int32_t ascii_data = kAbsent;    // sizeof(PyASCIIObject): where compact ASCII text starts
    int32_t compact_data = kAbsent;  // sizeof(PyCompactUnicodeObject): other compact kinds
    uint32_t kind_shift = 2;         // bit position of `kind` in `state`
    uint32_t compact_bit = 5;
    uint32_t ascii_bit = 6;
  } unicode;

  struct Bytes {
    int32_t ob_size = kAbsent;
    int32_t ob_sval = kAbsent;
  } bytes;

  struct Tuple {
    int32_t ob_size = kAbsent;
    int32_t ob_item = kAbsent;
  } tuple;

  struct List {
    int32_t ob_size = kAbsent;
    int32_t ob_item = kAbsent;
  } list;

  struct Dict {
    int32_t ma_keys = kAbsent;
    int32_t ma_values = kAbsent;
    int32_t ma_used = kAbsent;
  } dict;

  struct Long {
    int32_t ob_size = kAbsent;  // 3.11: sign and digit count
    int32_t lv_tag = kAbsent;   // 3.12+: digit count << 3 | sign bits
    int32_t ob_digit = kAbsent;
  } long_object;

  struct Float {
    int32_t ob_fval = kAbsent;
  } float_object;
};

// Per-version tables for the versions without _Py_DebugOffsets (3.11, 3.12).
// `hexversion` picks the table by its minor version.
Result<Layout> LayoutFromTable(uint32_t hexversion, bool free_threaded = false);

// Checks that offsets lie inside their structs and the sizes are sane, so a
// garbage block is refused with one sentence instead of steering reads.
Status ValidateLayout(const Layout& layout);

}  // namespace pyunwind
