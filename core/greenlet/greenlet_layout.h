// Where greenlet 2.0.x (the C++ rewrite; Debian 12's python3-greenlet 2.0.2) keeps a
// greenlet's saved Python state, on CPython 3.11, 64-bit. greenlet ships no debug info: the
// offsets come from its sources (greenlet_greenlet.hpp) and the Itanium C++ ABI, and each
// greenlet read is checked against the target (greenlets.cc) before any is believed.
#pragma once

#include <cstdint>

namespace pyunwind::greenlet_layout {

// The versions whose layout this is (greenlet.__version__ starts with it).
inline constexpr char kKnownVersionPrefix[] = "2.0.";
// The type every greenlet class derives from, as tp_name says it.
inline constexpr char kGreenletTypeName[] = "greenlet.greenlet";

// PyGreenlet: PyObject_HEAD, weakreflist, dict, then `greenlet::Greenlet* pimpl`.
inline constexpr int32_t kPimpl = 32;

// greenlet::Greenlet, a polymorphic class: its vtable pointer first (0), then
//   ExceptionState { _PyErr_StackItem* exc_info; _PyErr_StackItem exc_state; }   8..32
//   SwitchingArgs  { OwnedObject _args, _kwargs; }                                 32..48
//   StackState     { char* _stack_start, *stack_stop, *stack_copy;
//                    intptr_t _stack_saved; StackState* stack_prev; }             48..88
//   PythonState    { OwnedContext _context; OwnedFrame _top_frame;
//                    _PyCFrame* cframe; int use_tracing, recursion_depth,
//                    trash_delete_nesting; _PyInterpreterFrame* current_frame;
//                    _PyStackChunk* datastack_chunk; PyObject** top, **limit; } 88..160
// then the subclass's first member, UserGreenlet::_self or MainGreenlet::_self (the
// PyGreenlet), and the next: UserGreenlet::_main_greenlet.
inline constexpr int32_t kStackStart = 48;   // null: not started, or dead
inline constexpr int32_t kStackStop = 56;    // null: not started; all ones: a main greenlet
inline constexpr int32_t kStackCopy = 64;    // where the saved bytes of its C stack are
inline constexpr int32_t kStackSaved = 72;   // how many, from stack_start on
inline constexpr int32_t kTopFrame = 96;     // a frame object while suspended, else null
inline constexpr int32_t kCFrame = 104;      // its innermost _PyCFrame (on its C stack)
inline constexpr int32_t kCurrentFrame = 128;  // its innermost _PyInterpreterFrame
inline constexpr int32_t kSelf = 160;
// The bytes of the C++ object read at once: up to kSelf's pointer.
inline constexpr int32_t kReadSize = 168;
// A main greenlet's stack_stop.
inline constexpr uint64_t kMainStackStop = ~uint64_t{0};

}  // namespace pyunwind::greenlet_layout
