// Where greenlet keeps a greenlet's saved Python state, 64-bit. greenlet ships no debug info:
// the offsets come from its sources (greenlet_greenlet.hpp, TGreenlet.hpp) and the Itanium
// C++ ABI, checked in processes of each release named below (each field against what the
// process says of itself: the greenlet, gr_frame, the main greenlet's stack_stop), and each
// greenlet read is checked against the target (greenlets.cc) before any is believed.
#pragma once

#include <cstdint>

namespace pyunwind::greenlet_layout {

// The type every greenlet class derives from, as tp_name says it.
inline constexpr char kGreenletTypeName[] = "greenlet.greenlet";

// PyGreenlet: PyObject_HEAD, weakreflist, dict, then `greenlet::Greenlet* pimpl`.
inline constexpr int32_t kPimpl = 32;

// A main greenlet's stack_stop.
inline constexpr uint64_t kMainStackStop = ~uint64_t{0};

// The fields of greenlet::Greenlet (a polymorphic class: its vtable pointer at 0) that
// py-bt reads, for the greenlet releases `version_prefix` names on CPython 3.`minor`.
struct GreenletLayout {
  const char* version_prefix;  // greenlet.__version__ starts with it
  int minor;                   // the CPython 3.x it was checked on
  int32_t self;                // PyGreenlet* naming the greenlet back
  int32_t stack_start;         // StackState: null: not started, or dead
  int32_t stack_stop;          // null: not started; all ones: a main greenlet
  int32_t stack_copy;          // where the saved bytes of its C stack are
  int32_t stack_saved;         // how many, from stack_start on
  int32_t top_frame;           // PythonState: a frame object while suspended, else null
  int32_t cframe;              // its innermost _PyCFrame (on its C stack); -1: none (3.13+)
  int32_t current_frame;       // its innermost _PyInterpreterFrame
  int32_t read_size;           // the bytes read at once: past every field above
};

// greenlet 2.0.x (Debian 12's 2.0.2) on 3.11:
//   ExceptionState { _PyErr_StackItem* exc_info; _PyErr_StackItem exc_state; }   8..32
//   SwitchingArgs  { OwnedObject _args, _kwargs; }                                 32..48
//   StackState     { char* _stack_start, *stack_stop, *stack_copy;
//                    intptr_t _stack_saved; StackState* stack_prev; }             48..88
//   PythonState    { OwnedContext _context; OwnedFrame _top_frame;
//                    _PyCFrame* cframe; int use_tracing, recursion_depth,
//                    trash_delete_nesting; _PyInterpreterFrame* current_frame;
//                    _PyStackChunk* datastack_chunk; PyObject** top, **limit; } 88..160
// then the subclass's first member, UserGreenlet::_self or MainGreenlet::_self.
inline constexpr GreenletLayout kGreenlet20On311 = {"2.0.", 11, 160, 48, 56, 64, 72, 96, 104,
                                                    128, 168};

// greenlet 3.3.x (Debian unstable's 3.3.2) on 3.14 and 3.15: `PyGreenlet* const _self` is
// Greenlet's own first member (8), then ExceptionState 16..40, SwitchingArgs 40..56,
// StackState 56..96, PythonState { _context 96; _top_frame 104; int py_recursion_depth;
// current_executor 120; _PyStackRef* stackpointer 128; delete_later 136; current_frame 144;
// datastack_chunk, top, limit } 96..176. No _PyCFrame since 3.13.
// greenlet 3.1.x (Debian 13's 3.1.0) on 3.13: as 2.0.x, `_self` is the subclass's first
// member. ExceptionState 8..32, SwitchingArgs 32..48, StackState 48..88, PythonState
// { _context 88; _top_frame 96; int py_recursion_depth, c_recursion_depth; delete_later 112;
// current_frame 120; datastack_chunk, top, limit } 88..152; _self 152. No _PyCFrame.
inline constexpr GreenletLayout kGreenlet31On313 = {"3.1.", 13, 152, 48, 56, 64, 72, 96, -1,
                                                    120, 160};

inline constexpr GreenletLayout kGreenlet33On314 = {"3.3.", 14, 8, 56, 64, 72, 80, 104, -1,
                                                    144, 176};
inline constexpr GreenletLayout kGreenlet33On315 = {"3.3.", 15, 8, 56, 64, 72, 80, 104, -1,
                                                    144, 176};

inline constexpr GreenletLayout kKnownLayouts[] = {kGreenlet20On311, kGreenlet31On313,
                                                   kGreenlet33On314, kGreenlet33On315};

// The most bytes of a C++ object read at once: every known layout's read_size.
inline constexpr int32_t kMaxReadSize = 256;
static_assert(kGreenlet20On311.read_size <= kMaxReadSize &&
              kGreenlet31On313.read_size <= kMaxReadSize &&
              kGreenlet33On314.read_size <= kMaxReadSize &&
              kGreenlet33On315.read_size <= kMaxReadSize);

}  // namespace pyunwind::greenlet_layout
