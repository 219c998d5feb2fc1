#include "core/walk/calls.h"

#include <fmt/format.h>

#include <memory>
#include <string_view>

#include "core/objects/callable_repr.h"
#include "core/walk/frames.h"
#include "core/walk/stack_depth.h"

namespace pyunwind {
namespace {

constexpr size_t kMaxExceptionTableBytes = 1 << 20;

// The slot `from_top` below the top of a value stack `depth` deep.
Result<uint64_t> StackSlot(ObjectReader& objects, uint64_t stack_base, int64_t depth, int64_t from_top) {
  const int64_t index = depth - from_top;
  if (from_top < 1 || index < 0) return MakeError("the call's operands are not on the stack");
  auto value = objects.memory().ReadPointer(stack_base + 8 * static_cast<uint64_t>(index));
  if (!value) return UnreadableMemory("cannot read the value stack");
  return *value & ~objects.layout().frame.stackref_tag_mask;
}

// Where the frame's value stack starts: after its co_nlocalsplus slots (3.11+), or where a
// frame object's f_valuestack points (3.6-3.10), checked to be past its f_localsplus.
Result<uint64_t> StackBase(ObjectReader& objects, const CodeInfo& code, uint64_t frame_address) {
  const Layout::Frame& f = objects.layout().frame;
  const uint64_t localsplus = frame_address + static_cast<uint64_t>(f.localsplus);
  if (!UsesFrameObjects(objects.layout())) {
    return localsplus + 8 * static_cast<uint64_t>(code.nlocalsplus);
  }
  if (f.valuestack == kAbsent) return MakeError("the frame keeps no value stack pointer");
  auto base = objects.memory().ReadPointer(frame_address + static_cast<uint64_t>(f.valuestack));
  if (!base) return UnreadableMemory("cannot read the frame's f_valuestack");
  if (*base < localsplus || (*base - localsplus) % 8 != 0 ||
      (*base - localsplus) / 8 > kMaxBytecodeUnits) {
    return MakeError("the frame's f_valuestack is not after its locals");
  }
  return *base;
}

// co_exceptiontable (3.11+); before 3.11 handlers are the SETUP_* instructions' jumps.
Result<std::string> ExceptionTableOf(ObjectReader& objects, const CodeInfo& code) {
  if (objects.layout().code.exceptiontable == kAbsent) return std::string();
  return objects.ReadBytes(code.exception_table, kMaxExceptionTableBytes);
}

Result<StackDepths> DepthsOf(const CallLayout& calls, const CodeInfo& code, std::string_view bytecode,
                             std::string_view exception_table) {
  return AnalyseStackDepths(*calls.opcodes, calls.extended_arg, bytecode, exception_table,
                            code.stack_size, calls.jumps_in_bytes, calls.have_argument);
}

// 3.14+: the eval loop stores its stack pointer in the frame before every
// call that can escape, operands still on the stack, and clears it (NULL)
// when the call returns: while a C call runs the frame states its depth.
Result<int64_t> StoredDepth(ObjectReader& objects, const CodeInfo& code, uint64_t frame_address) {
  const int32_t offset = objects.layout().frame.stackpointer;
  if (offset == kAbsent) return MakeError("the frame keeps no stack pointer");
  auto pointer = objects.memory().ReadPointer(frame_address + static_cast<uint64_t>(offset));
  if (!pointer) return UnreadableMemory("cannot read the frame's stack pointer");
  if (*pointer == 0) return MakeError("the frame stored no stack pointer");
  PYU_ASSIGN_OR_RETURN(uint64_t base, StackBase(objects, code, frame_address));
  if (*pointer < base || (*pointer - base) % 8 != 0 ||
      (*pointer - base) / 8 > static_cast<uint64_t>(code.stack_size)) {
    return MakeError("the frame's stack pointer is outside its value stack");
  }
  return static_cast<int64_t>((*pointer - base) / 8);
}

// The depth before the call at `index` from the bytecode, the call's operands counted.
Result<int64_t> AnalysedDepth(const CallLayout& calls, const CodeInfo& code, std::string_view bytecode,
                              std::string_view exception_table, int64_t index, uint32_t oparg) {
  PYU_ASSIGN_OR_RETURN(StackDepths depths, DepthsOf(calls, code, bytecode, exception_table));
  int64_t depth = depths.before[static_cast<size_t>(index)];
  if (depth < 0) return MakeError("the instruction's depth is not known from the code's start");
  const OpcodeFacts& facts =
      (*calls.opcodes)[OpcodeAt(bytecode, static_cast<size_t>(index), calls.have_argument)];
  if (facts.call == CallKind::kCallArgsPoppedBefore) depth += oparg;  // counted popped, still there
  return depth;
}

// The operands of the call instruction at `index` of the frame (the self only where
// `want_self`). The depth the frame stores is used where there is one; the bytecode's, where
// it can be found, must agree with it.
Result<CallOperands> OperandsAt(ObjectReader& objects, const CallLayout& calls, const CodeInfo& code,
                                std::string_view bytecode, std::string_view exception_table,
                                uint64_t frame_address, int64_t index, bool want_self) {
  const OpcodeFacts& facts =
      (*calls.opcodes)[OpcodeAt(bytecode, static_cast<size_t>(index), calls.have_argument)];
  PYU_ASSIGN_OR_RETURN(uint32_t oparg, OpargAt(*calls.opcodes, calls.extended_arg, bytecode,
                                               static_cast<size_t>(index), calls.have_argument));
  auto analysed = AnalysedDepth(calls, code, bytecode, exception_table, index, oparg);
  auto stored = StoredDepth(objects, code, frame_address);
  if (stored.ok() && analysed.ok() && *stored != *analysed) {
    return MakeError("the stored stack depth disagrees with the bytecode's");
  }
  if (!stored.ok() && !analysed.ok()) return analysed.error();
  int64_t depth = stored.ok() ? *stored : *analysed;
  PYU_ASSIGN_OR_RETURN(const uint64_t stack_base, StackBase(objects, code, frame_address));
  const int64_t args = oparg;
  switch (facts.call) {
    case CallKind::kCallFunctionKw:
    case CallKind::kCallFunction: {
      // 3.6-3.10: [callable, args..., kwnames (CALL_FUNCTION_KW)], no slot below the callable.
      if (depth > code.stack_size) return MakeError("the call's operands are not on the stack");
      const int64_t above = facts.call == CallKind::kCallFunctionKw ? 1 : 0;
      PYU_ASSIGN_OR_RETURN(uint64_t callee, StackSlot(objects, stack_base, depth, args + above + 1));
      return CallOperands{callee, 0, false};
    }
    case CallKind::kCallFunction27:
    case CallKind::kCallFunction27Star:
    case CallKind::kCallFunction27StarStar: {
      // 2.7: [callable, positional args..., (name, value) pairs..., *args, **kwargs].
      if (depth > code.stack_size) return MakeError("the call's operands are not on the stack");
      const int64_t stars = facts.call == CallKind::kCallFunction27     ? 0
                            : facts.call == CallKind::kCallFunction27Star ? 1
                                                                          : 2;
      const int64_t slots = (oparg & 0xFF) + 2 * ((oparg >> 8) & 0xFF) + stars;
      PYU_ASSIGN_OR_RETURN(uint64_t callee, StackSlot(objects, stack_base, depth, slots + 1));
      return CallOperands{callee, 0, false};
    }
    case CallKind::kCallFunctionEx: {
      PYU_ASSIGN_OR_RETURN(uint64_t callee,
                           StackSlot(objects, stack_base, depth,
                                     calls.call_ex_callable_from_top + (oparg & 1)));
      return CallOperands{callee, 0, false};
    }
    case CallKind::kCallKw:
      depth -= 1;  // the kwnames tuple above the arguments
      break;
    case CallKind::kCallArgsPoppedBefore:
    case CallKind::kCall:
      break;
    case CallKind::kNone:
      return MakeError("not a call");
  }
  if (depth > code.stack_size) return MakeError("the call's operands are not on the stack");
  PYU_ASSIGN_OR_RETURN(uint64_t lower, StackSlot(objects, stack_base, depth, args + 2));
  if (calls.method_below_callable && lower == 0) {
    PYU_ASSIGN_OR_RETURN(uint64_t callee, StackSlot(objects, stack_base, depth, args + 1));
    return CallOperands{callee, 0, false};
  }
  CallOperands operands{lower, 0, false};
  if (want_self) {
    PYU_ASSIGN_OR_RETURN(operands.self, StackSlot(objects, stack_base, depth, args + 1));
  }
  return operands;
}

// The frame's code, bytecode and current instruction, checked.
struct CallSite {
  FramePosition position;
  std::string bytecode;
  int64_t index = 0;
};

Result<CallSite> ReadCallSite(ObjectReader& objects, CodeCache& codes, uint64_t frame_address) {
  const CallLayout& calls = objects.layout().calls;
  if (calls.opcodes == nullptr) return MakeError("no opcode table for this version");
  PYU_ASSIGN_OR_RETURN(FramePosition position, ReadFramePosition(objects, codes, frame_address));
  const CodeInfo& code = *position.code;
  const int64_t index = position.instruction_index;
  const bool localsplus_sized = !UsesFrameObjects(objects.layout());
  if ((localsplus_sized && code.nlocalsplus < 0) || code.stack_size < 0 || code.code_units <= 0 ||
      code.code_units > static_cast<int64_t>(kMaxBytecodeUnits) || index < 0 ||
      index >= code.code_units) {
    return MakeError("the code object's sizes are out of range");
  }
  std::string bytecode(static_cast<size_t>(code.code_units) * (calls.have_argument != 0 ? 1 : 2),
                       '\0');
  if (!objects.memory().Read(code.bytecode_address, bytecode.data(), bytecode.size())) {
    return UnreadableMemory("cannot read the bytecode");
  }
  return CallSite{std::move(position), std::move(bytecode), index};
}

// `not_callee`: a value the callee's slot may hold that is not the callee (0: none).
Result<std::optional<std::string>> CallingOf(ObjectReader& objects, CodeCache& codes,
                                             uint64_t frame_address, uint64_t not_callee) {
  const CallLayout& calls = objects.layout().calls;
  PYU_ASSIGN_OR_RETURN(CallSite site, ReadCallSite(objects, codes, frame_address));
  const CodeInfo& code = *site.position.code;
  if ((*calls.opcodes)[OpcodeAt(site.bytecode, static_cast<size_t>(site.index), calls.have_argument)]
          .call == CallKind::kNone) {
    return std::optional<std::string>();  // not at a call
  }
  PYU_ASSIGN_OR_RETURN(std::string exception_table, ExceptionTableOf(objects, code));
  PYU_ASSIGN_OR_RETURN(CallOperands operands,
                       OperandsAt(objects, calls, code, site.bytecode, exception_table,
                                  frame_address, site.index, false));
  if (not_callee != 0 && operands.callee == not_callee) return std::optional<std::string>();
  return CalleeRepr(objects, operands.callee);
}

// 3.6-3.10 mark no frame as started from C, so each frame whose inner frame is Python is asked
// too: a Python callee (a function, a bound method) gets no C-call line (CalleeRepr). While a
// bound Python method runs, the eval loop has put its self where the method was (3.6, 3.7:
// call_function; 3.8+: method_vectorcall): the inner frame's first argument, which is then not
// taken for a callee. None where that cannot be read (the frame is then not asked).
std::optional<uint64_t> FirstArgumentOf(ObjectReader& objects, const Frame& inner) {
  const int32_t localsplus = objects.layout().frame.localsplus;
  if (localsplus == kAbsent) return std::nullopt;
  return objects.memory().ReadPointer(inner.frame_address + static_cast<uint64_t>(localsplus));
}

}  // namespace

void AddCalls(ObjectReader& objects, CodeCache& codes, size_t first_frame, Thread& thread) {
  for (size_t i = first_frame; i < thread.frames.size(); ++i) {
    Frame& frame = thread.frames[i];
    if (frame.kind != FrameKind::kPython) continue;
    uint64_t not_callee = 0;
    if (i != first_frame && UsesFrameObjects(objects.layout())) {
      // Every frame object is an eval-loop call's own (is_entry): which a C call started is
      // not told by the frame.
      const Frame& inner = thread.frames[i - 1];
      if (inner.kind != FrameKind::kPython) continue;
      const std::optional<uint64_t> first_argument = FirstArgumentOf(objects, inner);
      if (!first_argument) continue;
      not_callee = *first_argument;
    } else if (i != first_frame && !thread.frames[i - 1].is_entry) {
      continue;
    }
    if (objects.memory().budget().Exhausted()) return;
    auto calling = CallingOf(objects, codes, frame.frame_address, not_callee);
    if (calling.ok() && *calling) {
      frame.calling = std::make_shared<const std::string>(std::move(**calling));
    }
  }
}

Result<CallOperands> CallOperandsOf(ObjectReader& objects, CodeCache& codes,
                                    uint64_t frame_address) {
  const CallLayout& calls = objects.layout().calls;
  PYU_ASSIGN_OR_RETURN(CallSite site, ReadCallSite(objects, codes, frame_address));
  const CodeInfo& code = *site.position.code;
  const OpcodeFacts& facts =
      (*calls.opcodes)[OpcodeAt(site.bytecode, static_cast<size_t>(site.index), calls.have_argument)];
  const bool before_with = calls.before_with != 0 && facts.base == calls.before_with;
  if (facts.call == CallKind::kNone && !before_with) return MakeError("not at a call");
  PYU_ASSIGN_OR_RETURN(std::string exception_table, ExceptionTableOf(objects, code));
  if (!before_with) {
    return OperandsAt(objects, calls, code, site.bytecode, exception_table, frame_address,
                      site.index, true);
  }
  PYU_ASSIGN_OR_RETURN(StackDepths depths, DepthsOf(calls, code, site.bytecode, exception_table));
  const int64_t depth = depths.before[static_cast<size_t>(site.index)];
  if (depth < 1) return MakeError("the instruction is not reached from the code's start");
  PYU_ASSIGN_OR_RETURN(uint64_t stack_base, StackBase(objects, code, frame_address));
  PYU_ASSIGN_OR_RETURN(uint64_t top, StackSlot(objects, stack_base, depth, 1));
  return CallOperands{0, top, true};
}

Result<std::vector<uint64_t>> ValueStackOf(ObjectReader& objects, CodeCache& codes,
                                           uint64_t frame_address) {
  const CallLayout& calls = objects.layout().calls;
  PYU_ASSIGN_OR_RETURN(CallSite site, ReadCallSite(objects, codes, frame_address));
  const CodeInfo& code = *site.position.code;
  PYU_ASSIGN_OR_RETURN(std::string exception_table, ExceptionTableOf(objects, code));
  PYU_ASSIGN_OR_RETURN(StackDepths depths, DepthsOf(calls, code, site.bytecode, exception_table));
  int64_t depth = depths.before[static_cast<size_t>(site.index)];
  if (depth < 0) return MakeError("the instruction is not reached from the code's start");
  // A frame entering a `with` has the manager (3.11: already its bound __exit__) on top: the
  // block is not entered yet.
  const OpcodeFacts& facts =
      (*calls.opcodes)[OpcodeAt(site.bytecode, static_cast<size_t>(site.index), calls.have_argument)];
  if (calls.before_with != 0 && facts.base == calls.before_with && depth > 0) --depth;
  std::vector<uint64_t> values(static_cast<size_t>(depth));
  PYU_ASSIGN_OR_RETURN(uint64_t stack_base, StackBase(objects, code, frame_address));
  if (!values.empty() && !objects.memory().Read(stack_base, values.data(), values.size() * 8)) {
    return UnreadableMemory("cannot read the value stack");
  }
  for (uint64_t& value : values) value &= ~objects.layout().frame.stackref_tag_mask;
  return values;
}

}  // namespace pyunwind
