// The depth of a frame's value stack at one instruction, found the way
// CPython's compiler finds co_stacksize: a forward pass over the bytecode
// from offset 0 at depth 0, each instruction adding its stack effect (with
// or without its jump), each exception handler starting at the depth its
// exception-table entry states (3.6-3.10: at the depth the SETUP_* instruction's
// jump states). Needed where the frame does not store its stack top while the
// eval loop is inside a call (3.6-3.13).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/base/result.h"
#include "core/layout/opcodes.h"

namespace pyunwind {

inline constexpr size_t kMaxBytecodeUnits = 1 << 20;  // code units of one code object analysed

struct StackDepths {
  // Per code unit: the depth before the instruction starting there, or -1
  // (a cache entry, an argument of EXTENDED_ARG's successor, unreachable, or
  // inside a 3.8 finally block, whose real depth is not the counted one).
  std::vector<int32_t> before;
  int32_t max_depth = 0;  // the largest depth met: co_stacksize, where the analysis agrees
};

// `code`: the code units (co_code_adaptive: specialized opcodes are read as
// their base); `exception_table`: co_exceptiontable (empty before 3.11);
// `jumps_in_bytes`: jump opargs count bytes (3.6-3.9); `have_argument`: 2.7's bytecode
// (CallLayout::have_argument; 0: wordcode), whose code units are bytes. Refuses (an error, never
// a guess) an unknown opcode, a jump outside the code or into the middle of
// an instruction, a depth below 0 or above `stack_size`, and two paths that
// reach one instruction at different depths.
Result<StackDepths> AnalyseStackDepths(const OpcodeTable& opcodes, uint8_t extended_arg,
                                       std::string_view code, std::string_view exception_table,
                                       int32_t stack_size, bool jumps_in_bytes = false,
                                       uint8_t have_argument = 0);

// The full oparg of the instruction starting at `index` (EXTENDED_ARG prefixes included).
Result<uint32_t> OpargAt(const OpcodeTable& opcodes, uint8_t extended_arg, std::string_view code,
                         size_t index, uint8_t have_argument = 0);

// The opcode of the instruction starting at code unit `index` (in range: the caller checks).
inline uint8_t OpcodeAt(std::string_view code, size_t index, uint8_t have_argument = 0) {
  return static_cast<uint8_t>(code[have_argument != 0 ? index : 2 * index]);
}

}  // namespace pyunwind
