#include "core/walk/stack_depth.h"

#include <fmt/format.h>

namespace pyunwind {
namespace {

struct Decoded {
  std::vector<uint32_t> oparg;  // per code unit where an instruction starts
  std::vector<bool> starts;
};

// Decodes 2.7's bytecode (`have_argument` set: an instruction is 1 byte, or 3 with a 16-bit
// oparg from have_argument on) or 3.6+'s wordcode (`have_argument` 0: 16-bit units of opcode
// and 8-bit oparg, then the opcode's cache units). An EXTENDED_ARG gives the next oparg's
// upper bits. Indices are code units: bytes on 2.7, words since.
Result<Decoded> Decode(const OpcodeTable& opcodes, uint8_t extended_arg, std::string_view code,
                       uint8_t have_argument) {
  const bool wordcode = have_argument == 0;
  const size_t unit_bytes = wordcode ? 2 : 1;
  const int oparg_bits = wordcode ? 8 : 16;
  const size_t units = code.size() / unit_bytes;
  if (code.size() % unit_bytes != 0 || units > kMaxBytecodeUnits) {
    return MakeError(fmt::format("bytecode of {} bytes is not analysed", code.size()));
  }
  auto byte = [code](size_t at) { return static_cast<uint32_t>(static_cast<uint8_t>(code[at])); };
  Decoded out;
  out.oparg.assign(units, 0);
  out.starts.assign(units, false);
  uint32_t extended = 0;
  size_t i = 0;
  while (i < units) {
    const size_t at = i * unit_bytes;
    const auto op = static_cast<uint8_t>(byte(at));
    const OpcodeFacts& facts = opcodes[op];
    if (!facts.valid) return MakeError(fmt::format("opcode {} at {} is not known", op, at));
    // Prefixes enough for 32 bits; one more can only come from bad bytecode.
    if (extended >> (32 - oparg_bits) != 0) return MakeError("too many EXTENDED_ARG prefixes");
    const bool has_oparg = wordcode || op >= have_argument;
    const size_t width = wordcode ? 1 + facts.caches : has_oparg ? 3 : 1;
    if (units - i < width) return MakeError("the last instruction runs past the code");
    const uint32_t raw = !has_oparg ? 0 : wordcode ? byte(at + 1) : byte(at + 1) | byte(at + 2) << 8;
    const uint32_t oparg = has_oparg ? raw | extended << oparg_bits : 0;
    out.starts[i] = true;
    out.oparg[i] = oparg;
    extended = facts.base == extended_arg ? oparg : 0;
    i += width;
  }
  return out;
}

// dis.stack_effect(op, oparg, jump) from the table.
Result<int32_t> Effect(const OpcodeFacts& facts, uint32_t oparg, bool jump) {
  if (oparg < 16) {
    const int8_t value = jump ? facts.jump_effect[oparg] : facts.effect[oparg];
    if (value == kNoEffect) return MakeError("no such oparg");
    return value;
  }
  const LargeOpargEffect& large = jump ? facts.large_jump : facts.large;
  if (!large.holds) return MakeError("no such oparg");
  return large.constant + large.low * static_cast<int32_t>(oparg & 0xFF) +
         large.high * static_cast<int32_t>(oparg >> 8) + large.odd * static_cast<int32_t>(oparg & 1);
}

// The exception table's varints: 6 bits a byte, bit 6 set while more follow.
bool ReadVarint(std::string_view table, size_t& at, uint32_t& value) {
  value = 0;
  for (int chunks = 0; at < table.size() && chunks < 5; ++chunks) {
    const auto byte = static_cast<uint8_t>(table[at++]);
    value = (value << 6) | (byte & 63);
    if ((byte & 64) == 0) return true;
  }
  return false;
}

class Pass {
 public:
  Pass(const Decoded& decoded, int32_t stack_size) : decoded_(decoded), stack_size_(stack_size) {
    depths_.before.assign(decoded.starts.size(), -1);
    finally_.assign(decoded.starts.size(), 0);
  }

  // `finally`: how many 3.8 finally blocks the path into `index` is inside.
  Status Reach(int64_t index, int32_t depth, uint8_t finally) {
    PYU_RETURN_IF_ERROR(CheckTarget(index));
    if (depth < 0 || depth > stack_size_) {
      return MakeError(fmt::format("stack depth {} at {} is outside 0..{}", depth, 2 * index,
                                   stack_size_));
    }
    int32_t& slot = depths_.before[static_cast<size_t>(index)];
    if (slot != -1 && slot != depth) {
      return MakeError(fmt::format("two paths reach {} at depths {} and {}", 2 * index, slot, depth));
    }
    const bool deeper = finally > finally_[static_cast<size_t>(index)];
    if (slot == depth && !deeper) return Ok{};
    slot = depth;
    if (deeper) PYU_RETURN_IF_ERROR(Enter(index, finally));
    depths_.max_depth = std::max(depths_.max_depth, depth);
    pending_.push_back(static_cast<size_t>(index));
    return Ok{};
  }

  // 3.8's CALL_FINALLY: its target is inside one more finally block, at a depth that the
  // other paths into it (BEGIN_FINALLY's, the exception's) give.
  Status ReachFinally(int64_t index, uint8_t finally) {
    PYU_RETURN_IF_ERROR(CheckTarget(index));
    if (finally <= finally_[static_cast<size_t>(index)]) return Ok{};
    PYU_RETURN_IF_ERROR(Enter(index, finally));
    if (depths_.before[static_cast<size_t>(index)] != -1) pending_.push_back(static_cast<size_t>(index));
    return Ok{};
  }

  uint8_t Finally(size_t index) const { return finally_[index]; }

  // A depth reached after an instruction: counted in the maximum even where
  // nothing follows (RETURN_VALUE's operand, the compiler counts it too).
  void Touch(int32_t depth) { depths_.max_depth = std::max(depths_.max_depth, depth); }

  int32_t Before(size_t index) const { return depths_.before[index]; }

  bool Next(size_t& index) {
    if (pending_.empty()) return false;
    index = pending_.back();
    pending_.pop_back();
    return true;
  }

  // Inside a finally block the counted depth is not the real one: -1.
  StackDepths Take() {
    for (size_t i = 0; i < finally_.size(); ++i) {
      if (finally_[i] > 0) depths_.before[i] = -1;
    }
    return std::move(depths_);
  }

 private:
  Status CheckTarget(int64_t index) const {
    if (index < 0 || index >= static_cast<int64_t>(depths_.before.size()) ||
        !decoded_.starts[static_cast<size_t>(index)]) {
      return MakeError(fmt::format("a jump to {} lands outside an instruction", 2 * index));
    }
    return Ok{};
  }

  Status Enter(int64_t index, uint8_t finally) {
    if (finally > kMaxFinallyNesting) return MakeError("finally blocks nest too deep");
    finally_[static_cast<size_t>(index)] = finally;
    return Ok{};
  }

  // CPython's own limit on nested blocks (CO_MAXBLOCKS) is 20.
  static constexpr uint8_t kMaxFinallyNesting = 20;

  const Decoded& decoded_;
  int32_t stack_size_;
  StackDepths depths_;
  std::vector<uint8_t> finally_;  // per code unit: finally blocks around it (3.8)
  std::vector<size_t> pending_;
};

}  // namespace

Result<uint32_t> OpargAt(const OpcodeTable& opcodes, uint8_t extended_arg, std::string_view code,
                         size_t index, uint8_t have_argument) {
  PYU_ASSIGN_OR_RETURN(Decoded decoded, Decode(opcodes, extended_arg, code, have_argument));
  if (index >= decoded.starts.size() || !decoded.starts[index]) {
    return MakeError(fmt::format("no instruction starts at unit {}", index));
  }
  return decoded.oparg[index];
}

Result<StackDepths> AnalyseStackDepths(const OpcodeTable& opcodes, uint8_t extended_arg,
                                       std::string_view code, std::string_view exception_table,
                                       int32_t stack_size, bool jumps_in_bytes,
                                       uint8_t have_argument) {
  PYU_ASSIGN_OR_RETURN(Decoded decoded, Decode(opcodes, extended_arg, code, have_argument));
  Pass pass(decoded, stack_size);
  if (decoded.starts.empty()) return pass.Take();
  PYU_RETURN_IF_ERROR(pass.Reach(0, 0, 0));
  // Handlers: (start, length, target, depth << 1 | lasti); the handler runs
  // with lasti (if set) and the exception pushed above `depth`.
  size_t at = 0;
  while (at < exception_table.size()) {
    uint32_t start, length, target, depth_lasti;
    if (!ReadVarint(exception_table, at, start) || !ReadVarint(exception_table, at, length) ||
        !ReadVarint(exception_table, at, target) || !ReadVarint(exception_table, at, depth_lasti)) {
      return MakeError("the exception table ends inside an entry");
    }
    const int64_t depth = (depth_lasti >> 1) + (depth_lasti & 1) + 1;
    if (depth > stack_size) return MakeError("an exception handler's depth exceeds co_stacksize");
    PYU_RETURN_IF_ERROR(pass.Reach(target, static_cast<int32_t>(depth), 0));
  }
  size_t index = 0;
  while (pass.Next(index)) {
    const uint8_t op = OpcodeAt(code, index, have_argument);
    const OpcodeFacts& facts = opcodes[op];
    const uint32_t oparg = decoded.oparg[index];
    const int32_t depth = pass.Before(index);
    const int64_t width = have_argument == 0 ? 1 + facts.caches : op >= have_argument ? 3 : 1;
    const int64_t next = static_cast<int64_t>(index) + width;
    auto effect = Effect(facts, oparg, false);
    if (!effect.ok()) {
      return MakeError(fmt::format("opcode {} at unit {} does not take oparg {}", op, index, oparg));
    }
    pass.Touch(depth + *effect);
    uint8_t finally = pass.Finally(index);
    if (facts.finally == FinallyRole::kBegin) ++finally;
    if (facts.finally == FinallyRole::kEnd && finally > 0) --finally;
    if (facts.falls_through) PYU_RETURN_IF_ERROR(pass.Reach(next, depth + *effect, finally));
    if (facts.jump != JumpKind::kNone) {
      PYU_ASSIGN_OR_RETURN(int32_t jump_effect, Effect(facts, oparg, true));
      pass.Touch(depth + jump_effect);
      // 3.6-3.9 count jumps in bytes: an odd count lands inside an instruction.
      const int64_t units = jumps_in_bytes ? static_cast<int64_t>(oparg / 2) : static_cast<int64_t>(oparg);
      if (jumps_in_bytes && oparg % 2 != 0) return MakeError("a jump lands inside an instruction");
      const int64_t target = facts.jump == JumpKind::kForward  ? next + units
                             : facts.jump == JumpKind::kAbsolute ? units
                                                                 : next - units;
      if (facts.finally == FinallyRole::kCall) {
        PYU_RETURN_IF_ERROR(pass.ReachFinally(target, static_cast<uint8_t>(pass.Finally(index) + 1)));
      } else {
        PYU_RETURN_IF_ERROR(pass.Reach(target, depth + jump_effect, finally));
      }
    }
  }
  return pass.Take();
}

}  // namespace pyunwind
