// Where the fields the unwinder reads sit in one CPython build. The walk
// reads fields by these names only; every difference between versions lives
// here, as data, chosen once per target: from the target's own
// _Py_DebugOffsets (3.13+) and the one file per minor version
// (python311.cc ... python315.cc) for what the target does not state.
// core/layout/README.md says how to add a version.
#pragma once

#include <cstdint>
#include <string>

#include "core/base/result.h"
#include "core/layout/opcodes.h"
#include "core/layout/version.h"

namespace pyunwind {

inline constexpr int32_t kAbsent = -1;  // the build has no such field

// How the version's traceback module draws carets under a source line
// (Lib/traceback.py, StackSummary.format_frame_summary): 3.11's; 3.12's,
// which skips ')' and spaces before a binary operator and '[' / ']' around a
// subscript, and ends a multi-line span at the end of its first line's text;
// 3.13's, which shows every line of a multi-line span with carets under each,
// anchors calls, and hides the carets of `x = f(...)` and `return f(...)`.
enum class TracebackCaretRules { kPython311, kPython312, kPython313 };

// Where a layout's offsets come from.
enum class LayoutSource {
  kTable,         // the minor version's file (python311.cc, python312.cc): the build states none
  kDebugOffsets,  // the target's own _Py_DebugOffsets block (3.13+)
};

// How a version keeps a thread's Python frames.
enum class FrameModel {
  kInterpreterFrames,  // 3.11+: _PyInterpreterFrame records, linked through `previous`
  kFrameObjects,       // 3.10 and older: PyFrameObjects, linked through f_back
};

// How a code object maps its bytecode to source lines.
enum class LineTableFormat {
  kLocations,  // 3.11+: co_linetable, the location table of PEP 657
  kLineTable,  // 3.10: co_linetable, (bytes, line delta) pairs of PEP 626
  kLnotab,     // 3.6-3.9: co_lnotab, (bytes, signed line delta) pairs
  kLnotab27,   // 2.7: co_lnotab, (bytes, unsigned line delta) pairs, over bytecode of 1-3 bytes
};

struct Layout {
  PythonVersion version;
  FrameModel frame_model = FrameModel::kInterpreterFrames;
  LineTableFormat line_format = LineTableFormat::kLocations;
  bool free_threaded = false;
  LayoutSource source = LayoutSource::kTable;
  std::string warning;  // e.g. a version newer than the newest known table
  TracebackCaretRules caret_rules = TracebackCaretRules::kPython312;

  struct Runtime {
    int32_t size = 0;  // 0: not stated (3.11, 3.12)
    int32_t interpreters_head = kAbsent;
    int32_t interpreters_main = kAbsent;
    int32_t main_thread = kAbsent;  // pthread id of the main thread (3.11-3.13 tables)
    int32_t gil = kAbsent;          // 3.11: the one GIL is embedded in the runtime
    // Offset of the embedded main interpreter in the release the table was
    // read from; patch releases move it a little (3.12.1: 76392, 3.12.6: 76440).
    int32_t main_interpreter_embedded = kAbsent;
    int32_t gc_collecting = kAbsent;  // 3.7, 3.8: the collector's state is the runtime's
  } runtime;

  struct Interpreter {
    int32_t size = 0;
    int32_t next = kAbsent;
    int32_t id = kAbsent;
    int32_t runtime = kAbsent;  // back-pointer to _PyRuntime (3.11, 3.12)
    int32_t threads_head = kAbsent;
    // The thread running __main__ (3.13: a table fact, checked against
    // _PyRuntime.main_thread before use; 3.14+: stated by _Py_DebugOffsets).
    int32_t threads_main = kAbsent;
    bool threads_main_from_table = false;
    int32_t sysdict = kAbsent;
    int32_t modules = kAbsent;
    int32_t gc_collecting = kAbsent;
    int32_t gc = kAbsent;  // struct _gc_runtime_state (3.13+: stated by _Py_DebugOffsets)
    int32_t ceval_gil = kAbsent;  // 3.12+: pointer to the GIL this interpreter uses
    int32_t gil_enabled = kAbsent;  // free-threaded 3.13+, inside the GIL struct
    int32_t builtins = kAbsent;     // the builtins module dict (names the builtin types)
  } interp;

  struct Gil {  // struct _gil_runtime_state
    int32_t locked = kAbsent;
    int32_t last_holder = kAbsent;
    // 2.7 and 3.6 keep their GIL in statics of ceval.c that only debug info names; the
    // exported _PyThreadState_Current is the thread state holding it (NULL while none does:
    // PyEval_SaveThread swaps it out before dropping the GIL).
    bool held_by_current_tstate = false;
  } gil;

  struct ThreadState {
    int32_t size = 0;
    int32_t prev = kAbsent;
    int32_t next = kAbsent;
    int32_t interp = kAbsent;
    int32_t thread_id = kAbsent;
    int32_t native_thread_id = kAbsent;
    // 3.13+: the innermost frame is a field of the thread state. 3.11 and 3.12
    // reach it through tstate->cframe->current_frame. 3.10 and older: the
    // innermost PyFrameObject (tstate->frame).
    int32_t current_frame = kAbsent;
    int32_t cframe = kAbsent;
    int32_t cframe_current_frame = kAbsent;
    // 3.11: _PyCFrame.previous, and the thread's root _PyCFrame inside its state: the last link
    // of every chain of C frames the thread runs (greenlets' saved chains too, core/greenlet).
    int32_t cframe_previous = kAbsent;
    int32_t root_cframe = kAbsent;
    // Exceptions: the one being raised (curexc_type in 3.11, current_exception
    // 3.12+), the innermost _PyErr_StackItem being handled (exc_info) and the
    // thread's own one (exc_state). From the tables (3.11, 3.12), facts.cc
    // (3.13, 3.14 export none of them) and the 3.15 debug offsets (which give
    // no exc_info).
    int32_t current_exception = kAbsent;
    bool current_exception_is_type = false;  // 3.11: curexc_type, the type alone
    int32_t exc_info = kAbsent;
    int32_t exc_state = kAbsent;
    int32_t gil_requested = kAbsent;  // 3.15: int, set while the thread waits for the GIL
    int32_t dict = kAbsent;  // 3.11, 3.12: the per-thread dict (PyThreadState_GetDict)
    // 3.14+: the bounds of the thread's C stack that _PyThreadStateImpl keeps past the
    // PyThreadState (its top, and the hard limit below it): what greenlets that ran on that
    // stack are told by (core/greenlet).
    int32_t c_stack_top = kAbsent;
    int32_t c_stack_hard_limit = kAbsent;
  } tstate;

  // Where a thread records the event loop it runs, as the _asyncio module's
  // get_running_loop() reads it back. 3.14+ states it in _AsyncioDebug.
  struct RunningLoop {
    const char* dict_key = nullptr;     // 3.11, 3.12: its key in tstate->dict
    const char* holder_type = nullptr;  // 3.11: the value is this holder object,
    int32_t holder_loop = kAbsent;      //   keeping the loop here (rl_loop),
    int32_t holder_size = 0;            //   of this tp_basicsize
    int32_t tstate_offset = kAbsent;    // 3.13: _PyThreadStateImpl.asyncio_running_loop
    // 3.6: asyncio.events._running_loop, a threading.local (localobject, whose `key` names
    // the thread's entry in tstate->dict: a localdummyobject keeping its `localdict`).
    int32_t local_key = kAbsent;
    int32_t local_dummy_dict = kAbsent;
  } running_loop;

  struct ErrStackItem {  // _PyErr_StackItem
    int32_t exc_value = kAbsent;
    int32_t previous_item = kAbsent;  // 3.11-3.14 facts; absent where not exported
  } err_stackitem;

  // A _PyInterpreterFrame (3.11+) or a PyFrameObject (3.10 and older:
  // previous is f_back, executable f_code, localsplus f_localsplus).
  struct Frame {
    int32_t size = 0;
    int32_t previous = kAbsent;
    int32_t executable = kAbsent;  // f_code (3.11, 3.12), f_executable (3.13+)
    int32_t instr_ptr = kAbsent;   // prev_instr (3.11, 3.12), instr_ptr (3.13+)
    bool instr_is_previous = false;  // prev_instr points at the instruction running
    int32_t owner = kAbsent;
    int32_t localsplus = kAbsent;
    int32_t globals = kAbsent;   // f_globals: the dict py-print looks names up in after the locals
    int32_t builtins = kAbsent;  // f_builtins
    int32_t locals_dict = kAbsent;  // f_locals: a module's or class body's namespace (else NULL)
    int32_t stacktop = kAbsent;      // 3.11-3.13: int, slots in use above localsplus
    int32_t stackpointer = kAbsent;  // 3.14+: pointer past the top of the value stack
    int32_t tlbc_index = kAbsent;  // free-threaded 3.14+
    int32_t is_entry = kAbsent;    // 3.11: bool, set on the frame an eval-loop call started with
    // 3.10 and older: f_lasti, the offset of the instruction running (-1
    // before the first), in bytes, or in code units (3.10: lasti_in_code_units).
    int32_t lasti = kAbsent;
    bool lasti_in_code_units = false;
    // 3.10 and older: f_gen, the generator or coroutine owning the frame;
    // f_valuestack and the top of the value stack, f_stacktop (a pointer,
    // NULL while the frame runs; 3.7-3.9) or f_stackdepth (3.10, with the
    // running state in f_state).
    int32_t gen = kAbsent;
    int32_t valuestack = kAbsent;
    int32_t stacktop_pointer = kAbsent;
    int32_t stackdepth = kAbsent;
    int32_t state = kAbsent;
    // Frames whose owner is at least this are the interpreter's own
    // bookkeeping (C-stack entry shims), not Python code.
    int32_t owner_first_internal = 256;
    int32_t owner_generator = 1;
    // 3.14+ keeps tagged references (_PyStackRef) in f_executable and the
    // locals; a reference with both low bits set holds an int (value << 2 | 3).
    uint64_t stackref_tag_mask = 0;
    bool stackref_ints = false;
    // Where a frame suspended in `await` keeps the awaited object, counted
    // from the top of its value stack (3.15 pushes one more value above it).
    int32_t awaited_from_top = 1;
  } frame;

  // enum _framestate (Include/internal/pycore_frame.h) of a generator's or
  // coroutine's frame: the values the asyncio reader tells apart.
  struct FrameStates {
    int8_t created = -2;
    int8_t suspended_yield_from = -1;
    int8_t suspended_yield_from_locked = -1;  // free-threaded 3.15+; else = suspended_yield_from
    int8_t completed = 1;  // this state and above: the frame is gone
  } frame_state;

  // PyGenObject / PyCoroObject: the state byte of the embedded frame, and
  // the frame itself.
  // 3.10 and older: gi_frame points at the frame (NULL once finished), which
  // points back (f_gen); the state follows from the frame (coroutine_frames.h).
  struct Generator {
    int32_t frame_state = kAbsent;
    int32_t iframe = kAbsent;
    int32_t frame_pointer = kAbsent;
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
    // Where the value stack starts (localsplus + co_nlocalsplus), its size, and
    // the exception table (bytes): what finding a call's callee needs (core/walk/calls.h).
    int32_t nlocalsplus = kAbsent;
    int32_t stacksize = kAbsent;
    int32_t exceptiontable = kAbsent;
    // 3.10 and older: the bytecode is a bytes object (co_code), and a frame's
    // f_localsplus holds co_nlocals locals, then the cells of co_cellvars,
    // then the free variables of co_freevars.
    int32_t code = kAbsent;
    int32_t nlocals = kAbsent;
    int32_t varnames = kAbsent;
    int32_t cellvars = kAbsent;
    int32_t freevars = kAbsent;
    // Bytes of one code unit, the unit f_lasti and line ranges count in: 2 since 3.6's
    // wordcode; 1 in 2.7, whose instructions are 1 or 3 bytes long.
    int32_t bytes_per_unit = 2;
  } code;

  // How the eval loop lays out a call on the value stack, and the opcodes
  // (core/layout/opcodes_3NN.inc). No table: `calling` is not told.
  CallLayout calls;

  struct Object {
    int32_t ob_refcnt = 0;  // 3.12+: its low 32 bits only (immortal and flag bits above)
    int32_t ob_type = 8;
    int32_t ob_size = 16;  // PyVarObject.ob_size
  } object;

  struct Type {
    int32_t size = 0;       // 0: not stated
    int32_t heap_size = 0;  // PyHeapTypeObject; 0: not stated
    int32_t tp_name = kAbsent;
    int32_t tp_base = kAbsent;
    int32_t tp_flags = kAbsent;
    int32_t tp_basicsize = kAbsent;
    int32_t tp_itemsize = kAbsent;
    int32_t tp_dictoffset = kAbsent;
    int32_t tp_members = kAbsent;  // PyMemberDef[Py_SIZE(type)]: a class's __slots__ among them
    int32_t tp_dict = kAbsent;  // a heap type's dict (3.12+ static builtins keep theirs elsewhere)
    int32_t tp_mro = kAbsent;   // the tuple of the class and its bases, in lookup order
    int32_t ht_cached_keys = kAbsent;  // PyHeapTypeObject: the shared keys of its instances
  } type;

  struct Unicode {
    int32_t size = 0;  // 0: not stated
    int32_t length = kAbsent;
    int32_t state = kAbsent;
    int32_t ascii_data = kAbsent;    // sizeof(PyASCIIObject): where compact ASCII text starts
    int32_t compact_data = kAbsent;  // sizeof(PyCompactUnicodeObject): other compact kinds
    uint32_t kind_shift = 2;         // bit position of `kind` in `state`
    uint32_t compact_bit = 5;
    uint32_t ascii_bit = 6;
    // 2.7's PyUnicodeObject { PyObject_HEAD; length; str; ... }: `str` points at
    // `length` Py_UNICODE units of `legacy_unit_bytes` each (4: a UCS4 build, 2: UCS2,
    // as the target's sys.maxunicode tells).
    int32_t legacy_str = kAbsent;
    int32_t legacy_unit_bytes = 0;
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
    int32_t allocated = kAbsent;  // slots of ob_item (what list.__sizeof__ counts)
  } list;

  struct Dict {
    int32_t ma_keys = kAbsent;
    int32_t ma_values = kAbsent;
    int32_t ma_used = kAbsent;
    // 3.13+: capacity, size, embedded and valid bytes before the values of
    // a split table (PyDictValues).
    int32_t values_header = 0;
    // PyDictKeysObject before 3.11: dk_size (a Py_ssize_t power of two; the
    // index width follows from it), dk_nentries and where dk_indices start.
    // Absent: the 3.11+ keys (log2 sizes and kind in bytes 8-10).
    int32_t keys_size = kAbsent;
    int32_t keys_nentries = kAbsent;
    int32_t keys_indices = kAbsent;
    // 2.7: an open-addressing table of ma_mask + 1 PyDictEntry {me_hash, me_key,
    // me_value} at ma_table, in hash order. Absent: the compact dict of 3.6+.
    int32_t ma_mask = kAbsent;
    int32_t ma_table = kAbsent;
  } dict;

  // Where an instance of a class with Py_TPFLAGS_MANAGED_DICT keeps its
  // attributes: a dict pointer before the object, and a split table of
  // values (3.11: its own pointer; 3.12: tagged into the dict pointer;
  // 3.13+: inline after the object while `valid`).
  struct ManagedDict {
    int32_t dict_before = kAbsent;    // bytes before the object
    int32_t values_before = kAbsent;  // 3.11
    bool values_tagged = false;       // 3.12: an odd dict pointer is the values' address - 1
    bool values_inline = false;       // 3.13+: at tp_basicsize, with Py_TPFLAGS_INLINE_VALUES
    int32_t inline_valid = kAbsent;   // 3.13+: the `valid` byte of the inline values
  } managed_dict;

  struct Set {  // PySetObject; setentry {key, hash} (2.7: {hash, key})
    int32_t used = kAbsent;  // len(): the active entries (py-heap --containers)
    int32_t mask = kAbsent;
    int32_t table = kAbsent;
    int32_t entry_key = 0;  // in a 16-byte setentry
    int32_t entry_hash = 8;
    int32_t smalltable = kAbsent;  // the embedded table; `table` points elsewhere once it grew
  } set;

  // What py-heap reads (3.11+ default builds): the collector's lists of tracked objects, and
  // what sys.getsizeof adds to an object's __sizeof__. Offsets inside struct
  // _gc_runtime_state (at interp.gc): 3.11-3.13 generations[3], generation0, permanent;
  // 3.14 three lists (generations, or the incremental collector's young and old[2] of 3.14.0,
  // the same 72 bytes) then permanent; 3.15 drops the fields before `enabled`.
  struct Gc {
    int32_t generations = kAbsent;  // NUM_GENERATIONS (3) struct gc_generation in a row
    int32_t generation_count = 3;
    int32_t permanent = kAbsent;    // permanent_generation (gc.freeze())
    // 3.11-3.13: `PyGC_Head *generation0`, pointing at generations[0]'s head. Believed over
    // `generations` where it points inside the struct: Debian 13's 3.13.5 has its lists at
    // 20, not 24 (checked in a live process: generation0 pointed 4 bytes before 3.13.0's).
    int32_t generation0 = kAbsent;
    int32_t generation_size = 24;   // struct gc_generation { PyGC_Head head; int threshold, count; }
    int32_t head_size = 16;         // PyGC_Head { _gc_next; _gc_prev }, right before the object
    // _gc_next and _gc_prev carry flags in their low bits (collecting, finalized, old space).
    uint64_t link_mask = ~uint64_t{3};
    // Py_TPFLAGS_MANAGED_DICT (3.11+) and Py_TPFLAGS_MANAGED_WEAKREF (3.12+): two words before
    // the PyGC_Head, which sys.getsizeof counts (_PyType_PreHeaderSize).
    uint64_t preheader_flags = 0;
    int32_t preheader_size = 16;
  } gc;

  // Free-threaded builds (3.13t, 3.14t) keep no lists: every object sits in a block of one of
  // mimalloc's heaps, and gc.get_objects() visits the used blocks of each thread's two GC heaps
  // and of the interpreter's pool of abandoned segments (Python/gc_free_threading.c), keeping
  // those whose ob_gc_bits say tracked. mimalloc 2.1 as CPython patches it
  // (Include/internal/mimalloc/mimalloc/types.h, 64-bit release builds: no encoded free lists);
  // a thread state checks these offsets before its heaps are read (core/heap/mimalloc_heaps.cc).
  struct Mimalloc {
    // _PyThreadStateImpl.mimalloc.heaps[_Py_MIMALLOC_HEAP_COUNT], counted from the thread
    // state; then mi_tld_t tld, then int initialized. Absent: not a free-threaded build read.
    int32_t tstate_heaps = kAbsent;
    int32_t heap_count = 4;
    int32_t heap_gc = 2;       // _Py_MIMALLOC_HEAP_GC: GC objects without a pre-header
    int32_t heap_gc_pre = 3;   // _Py_MIMALLOC_HEAP_GC_PRE: the object 2 words into its block
    int32_t tld_size = 1608;   // mi_tld_t
    // mi_heap_t: tld first, pages[MI_BIN_FULL + 1] queues {first, last, block_size}, tag.
    int32_t heap_size = 3064;
    int32_t heap_tld = 0;
    int32_t heap_pages = 1040;
    int32_t page_queues = 75;
    int32_t page_queue_size = 24;
    int32_t heap_tag = 3057;
    int32_t tld_abandoned_pool = 944;  // mi_tld_t.segments.abandoned: the interpreter's pool
    // mi_page_t (also a segment's slice).
    int32_t page_size = 96;
    int32_t page_slice_count = 0;  // uint32_t
    int32_t page_tag_byte = 8;     // is_committed:1, is_zero_init:1, use_qsbr:1, tag:4
    uint32_t page_tag_shift = 3;
    int32_t page_capacity = 10;    // uint16_t: blocks handed out of the page so far
    int32_t page_free = 16;
    int32_t page_used = 24;        // uint32_t
    int32_t page_block_size = 28;  // uint32_t xblock_size; MI_HUGE_BLOCK_SIZE: the whole page
    int32_t page_local_free = 32;
    int32_t page_thread_free = 40;  // mi_thread_free_t: a block pointer, 2 flag bits below
    int32_t page_heap = 48;         // xheap: the owning heap
    int32_t page_next = 56;
    uint32_t huge_block_size = 1u << 31;
    // mi_segment_t, MI_SEGMENT_SIZE-aligned; its page areas are its 64 KiB slices.
    uint32_t segment_shift = 25;  // 32 MiB
    uint32_t slice_shift = 16;    // 64 KiB
    int32_t segment_abandoned_next = 176;
    int32_t segment_slice_entries = 248;
    int32_t segment_slices = 264;
    int32_t max_slice_entries = 513;  // MI_SLICES_PER_SEGMENT + 1
    // mi_abandoned_pool_t: two lists of segments (the first tagged in its low bits).
    int32_t pool_visited = 0;
    int32_t pool_abandoned = 64;
    // PyObject.ob_gc_bits and _PyGC_BITS_TRACKED.
    int32_t object_gc_bits = 11;
    uint8_t tracked_bit = 1;
  } mimalloc;

  // PyDictKeysObject (3.11+): its header before dk_indices, and its entries, which
  // _PyDict_KeysSize counts.
  struct DictKeys {
    int32_t refcnt = 0;
    int32_t log2_size = 8;
    int32_t log2_index_bytes = 9;
    int32_t kind = 10;         // DICT_KEYS_GENERAL (0): PyDictKeyEntry; else PyDictUnicodeEntry
    int32_t usable = 16;
    int32_t nentries = 24;
    int32_t header_size = 32;  // sizeof(PyDictKeysObject)
    int32_t general_entry_size = 24;
    int32_t unicode_entry_size = 16;
  } dict_keys;

  struct Weakref {  // PyWeakReference
    int32_t wr_object = kAbsent;
  } weakref;

  struct Method {  // PyMethodObject
    int32_t im_func = kAbsent;
    int32_t im_self = kAbsent;
  } method;

  // What a frame calls (core/walk/calls.h): a C function's PyMethodDef
  // (ml_name first) and self, a method descriptor's type and name.
  struct CFunction {  // PyCFunctionObject
    int32_t m_ml = kAbsent;
    int32_t m_self = kAbsent;
  } cfunction;
  struct Descriptor {  // PyDescr_COMMON
    int32_t d_type = kAbsent;
    int32_t d_name = kAbsent;
    int32_t d_base = kAbsent;  // PyWrapperDescrObject's, after PyDescr_COMMON
    int32_t d_member = kAbsent;  // PyMemberDescrObject's (a __slots__ entry), after it too
  } descriptor;
  struct MemberDef {  // PyMemberDef { name; type; offset; flags; doc; }
    int32_t size = kAbsent;  // sizeof(PyMemberDef): a type's members are an array of them
    int32_t name = kAbsent;
    int32_t type = kAbsent;    // T_OBJECT_EX (16) for a __slots__ entry
    int32_t offset = kAbsent;  // of the member in its instance
  } member_def;
  struct MethodWrapper {  // wrapperobject (Objects/descrobject.c): a slot bound to its self
    int32_t descr = kAbsent;
    int32_t self = kAbsent;
  } method_wrapper;

  struct Function {  // PyFunctionObject
    int32_t func_qualname = kAbsent;
    int32_t func_code = kAbsent;  // 2.7-3.10 only: a method's qualname from its code (waits)
  } function;

  struct Module {  // PyModuleObject
    int32_t md_dict = kAbsent;
  } module;

  struct BaseException {  // PyBaseExceptionObject
    int32_t args = kAbsent;
  } exception;

  struct Cell {  // PyCellObject
    int32_t ob_ref = kAbsent;
  } cell;

  // _thread.RLock (Modules/_threadmodule.c, rlockobject): the ident of the thread that holds
  // it (PyThread_get_thread_ident, as PyThreadState.thread_id; 0 when free) and its count.
  struct RLock {
    int32_t owner = kAbsent;
    int32_t count = kAbsent;
  } rlock;

  // _queue.SimpleQueue (Modules/_queuemodule.c), the work queue of a ThreadPoolExecutor:
  // 3.7-3.12 keep a list and the index of its first item not yet taken; 3.13+ a ring buffer.
  struct SimpleQueue {
    int32_t list = kAbsent;
    int32_t list_position = kAbsent;
    int32_t ring_get_index = kAbsent;
    int32_t ring_items = kAbsent;
    int32_t ring_capacity = kAbsent;
    int32_t ring_count = kAbsent;
  } simple_queue;

  // The _asyncio module's TaskObj (its FutureObj fields first). 3.14+ states
  // where the task keeps its name, coroutine and awaiters (_AsyncioDebug, in
  // core/asyncio); the rest follows from TaskObj's declaration.
  struct Task {
    int32_t loop = kAbsent;
    int32_t callback0 = kAbsent;
    int32_t callbacks = kAbsent;
    int32_t state = kAbsent;
    int32_t fut_waiter = kAbsent;
    int32_t coro = kAbsent;
    int32_t name = kAbsent;
    // 3.14+: `state` right after `awaited_by`, `fut_waiter` right before `coro`.
    int32_t state_after_awaited_by = kAbsent;
    int32_t fut_waiter_before_coro = kAbsent;
  } task;

  // What can hold an asyncio future (py-waits: a future nothing else holds): a FutureIter
  // (what `await future` keeps on the frame's stack), 3.7-3.11's TaskWakeupMethWrapper (a
  // task's wakeup callback).
  struct FutureHolders {
    int32_t future_iter_future = kAbsent;
    int32_t wakeup_wrapper_task = kAbsent;
  } future_holders;

  // collections.deque: a chain of blocks of `block_slots` slots each, `data` after the block's
  // left link, its right link after the data.
  struct Deque {
    int32_t leftblock = kAbsent;
    int32_t rightblock = kAbsent;
    int32_t leftindex = kAbsent;
    int32_t rightindex = kAbsent;
    int32_t block_data = kAbsent;
    int32_t block_slots = 0;
  } deque;

  struct Long {
    int32_t ob_size = kAbsent;  // 3.11: sign and digit count
    int32_t lv_tag = kAbsent;   // 3.12+: digit count << 3 | sign bits
    int32_t ob_digit = kAbsent;
  } long_object;

  struct Float {
    int32_t ob_fval = kAbsent;
  } float_object;

  struct Int {  // 2.7's PyIntObject, beside its long
    int32_t ob_ival = kAbsent;
  } int_object;

  // What the threading module calls what the thread header shows: a Thread's
  // name and ident attributes, and the module attribute leading to the main
  // thread (3.x: _main_thread itself; 2.7: `_shutdown`, the bound method
  // _MainThread()._exitfunc, whose self is the main Thread).
  struct Threading {
    const char* name_attribute = "_name";
    const char* ident_attribute = "_ident";
    const char* main_thread = "_main_thread";
    bool main_thread_is_bound_method = false;
    // The C lock type under threading.Lock (2.7: module `thread`), and the attribute of the
    // pure-Python RLock (threading._RLock: 2.7's only RLock, 3.x's fallback) naming its
    // owner's ident.
    const char* lock_type = "_thread.lock";
    const char* rlock_owner_attribute = "_owner";
  } threading;

  // 2.7's classic (old-style) classes: PyInstanceObject { PyObject_HEAD; in_class; in_dict;
  // ... } and PyClassObject { PyObject_HEAD; cl_bases; cl_dict; cl_name; ... }.
  struct ClassicClass {
    int32_t in_class = kAbsent;
    int32_t cl_bases = kAbsent;
    int32_t cl_dict = kAbsent;
    int32_t cl_name = kAbsent;
  } classic;
};

// CPython 2's object model: PyStringObject (bytes) and PyUnicodeObject, int beside long.
inline bool IsPython2(const Layout& l) { return l.version.major() == 2; }

inline bool UsesFrameObjects(const Layout& l) { return l.frame_model == FrameModel::kFrameObjects; }

// The whole layout of a version without _Py_DebugOffsets (2.7, 3.6-3.12), from
// its minor version's file.
Result<Layout> LayoutFromTable(uint32_t hexversion, bool free_threaded = false);

// Where the layout comes from, as --verbose and messages say it: "table 3.11",
// "_Py_DebugOffsets 3.14".
std::string DescribeLayoutSource(const Layout& layout);

// Checks that offsets lie inside their structs and the sizes are sane, so a
// garbage block is refused with one sentence instead of steering reads.
Status ValidateLayout(const Layout& layout);

}  // namespace pyunwind
