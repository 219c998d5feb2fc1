// What the stack-depth analysis (core/walk/stack_depth.h) knows of each
// opcode of one minor version, generated from that version's interpreter by
// make_opcode_table.py into opcodes_3NN.inc (one table per minor, referenced
// from its python3NN.cc).
#pragma once

#include <array>
#include <cstdint>

namespace pyunwind {

inline constexpr int8_t kNoEffect = INT8_MIN;  // dis.stack_effect refused this oparg

// Relative to after the caches, or (3.6-3.10's absolute jumps) from the code's start.
enum class JumpKind : uint8_t { kNone, kForward, kBackward, kAbsolute };

enum class CallKind : uint8_t {
  kNone,
  kCall,                   // CALL (3.11: also PRECALL): callable, self or NULL, oparg args
  kCallArgsPoppedBefore,   // 3.11's CALL: as kCall, but the compiler counted its args popped
  kCallKw,                 // 3.13 CALL_KW: as kCall with the kwnames tuple above the args
  kCallFunctionEx,         // CALL_FUNCTION_EX: callable, NULL, args tuple, kwargs if oparg & 1
  kCallFunction,           // 3.6-3.10 CALL_FUNCTION: callable, oparg args
  kCallFunctionKw,         // 3.6-3.10 CALL_FUNCTION_KW: callable, oparg args, kwnames tuple
  // 2.7 CALL_FUNCTION: callable, (oparg & 0xff) positional args, (oparg >> 8) name-value pairs;
  // _VAR and _KW: and the *args tuple or **kwargs dict above them; _VAR_KW: both.
  kCallFunction27,
  kCallFunction27Star,
  kCallFunction27StarStar,
};

// 3.8's finally blocks: the compiler counts 6 slots for entering one (BEGIN_FINALLY) that
// the eval loop fills with 1 (a NULL; CALL_FINALLY: a return address; an exception: 6), so
// from where a finally block is entered to its end the counted depth is not the real one.
enum class FinallyRole : uint8_t {
  kNone,
  kBegin,  // BEGIN_FINALLY: what follows is inside a finally block
  kCall,   // CALL_FINALLY: its jump enters the finally block (the compiler does not follow it)
  kEnd,    // END_FINALLY, POP_FINALLY: what follows is one finally block further out
};

// stack effect = constant + low * (oparg & 0xff) + high * (oparg >> 8) + odd * (oparg & 1),
// for opargs from 16 (LOAD_GLOBAL's low bit pushes a NULL).
struct LargeOpargEffect {
  bool holds = false;
  int32_t constant = 0;
  int32_t low = 0;
  int32_t high = 0;
  int32_t odd = 0;
};

struct OpcodeFacts {
  bool valid = false;     // false: not an opcode the analysis may meet (it then gives up)
  uint8_t base = 0;       // the opcode it specializes or instruments (itself if neither)
  uint8_t caches = 0;     // inline cache code units after it
  JumpKind jump = JumpKind::kNone;
  bool falls_through = true;
  CallKind call = CallKind::kNone;
  std::array<int8_t, 16> effect{};       // opargs 0..15, not jumping
  std::array<int8_t, 16> jump_effect{};  // opargs 0..15, jumping
  LargeOpargEffect large;
  LargeOpargEffect large_jump;
  FinallyRole finally = FinallyRole::kNone;
};

using OpcodeTable = std::array<OpcodeFacts, 256>;

// How a minor version lays out a call on the value stack, in slots counted
// down from the stack's depth before the call instruction.
struct CallLayout {
  const OpcodeTable* opcodes = nullptr;  // null: calls are not told
  uint8_t extended_arg = 0;              // the EXTENDED_ARG opcode
  // 3.11, 3.12: [method or NULL, callable or self, args]: the lower slot is
  // the callee when it is not NULL. 3.13+: [callable, self or NULL, args].
  bool method_below_callable = false;
  // CALL_FUNCTION_EX: the callable's slot, counted from the top without kwargs.
  int32_t call_ex_callable_from_top = 0;
  // The instruction that calls __enter__ from C with the context manager in the stack's top
  // slot (3.6-3.10: SETUP_WITH, 3.11: BEFORE_WITH, both with the manager's bound __exit__
  // there already; 3.12-3.13 BEFORE_WITH); 0: none (3.14+ calls __enter__ with CALL).
  uint8_t before_with = 0;
  // 3.6-3.9: jump opargs count bytes (3.10+: code units).
  bool jumps_in_bytes = false;
  // 2.7 (nonzero): bytecode is not wordcode but instructions of 1 byte, or of 3 (a 16-bit
  // oparg) from this opcode on; code units are bytes, jump opargs count them.
  uint8_t have_argument = 0;
};

}  // namespace pyunwind
