// What the stack-depth analysis (core/walk/stack_depth.h) knows of each
// opcode of one minor version, generated from that version's interpreter by
// make_opcode_table.py into opcodes_3NN.inc (one table per minor, referenced
// from its python3NN.cc).
#pragma once

#include <array>
#include <cstdint>

namespace pyunwind {

inline constexpr int8_t kNoEffect = INT8_MIN;  // dis.stack_effect refused this oparg

enum class JumpKind : uint8_t { kNone, kForward, kBackward };  // relative to after the caches

enum class CallKind : uint8_t {
  kNone,
  kCall,                   // CALL (3.11: also PRECALL): callable, self or NULL, oparg args
  kCallArgsPoppedBefore,   // 3.11's CALL: as kCall, but the compiler counted its args popped
  kCallKw,                 // 3.13 CALL_KW: as kCall with the kwnames tuple above the args
  kCallFunctionEx,         // CALL_FUNCTION_EX: callable, NULL, args tuple, kwargs if oparg & 1
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
  // BEFORE_WITH (3.11-3.13; 0: none), which calls __enter__ from C with the context manager
  // (3.11: its bound __exit__) in the stack's top slot; 3.14+ calls it with CALL.
  uint8_t before_with = 0;
};

}  // namespace pyunwind
