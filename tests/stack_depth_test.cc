// The stack-depth analysis (core/walk/stack_depth.h) against the compiler:
// for every code object of tests/data/stack_depths_3XX.json (written by
// tests/data/make_stack_depths.py under pyenv's 3.6.15 to 3.10.13, Debian's 3.11, pyenv's 3.12.1 and
// 3.13.0, and Debian unstable's 3.14.10 and 3.15.2 unpacked by hand: modules of their own library, a source of calls, handlers, wide
// tuples, coroutines and generators, and specialized bytecode of it), the
// largest depth found equals co_stacksize, the depth CPython's compiler
// computed; every call instruction has its callable and arguments below it.
// 3.6-3.10: the opcode tables (core/layout/opcodes_3NN.inc) agree with what the interpreter's
// own opcode and dis modules say of every opcode, recorded in the same file; 3.8's finally
// blocks are not given a depth. Hand-made bytecode covers what must be refused.
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/layout/minor_versions.h"
#include "core/walk/stack_depth.h"
#include "tests/fixture_facts.h"

namespace pyunwind {
namespace {

using testing::FromHex;
using testing::RunfilePath;

// 27: CPython 2.7.
CallLayout CallsOf(int minor) {
  Layout layout;
  (minor == 27 ? &kCPython27 : FindMinorVersion(minor))->add_facts(layout);
  return layout.calls;
}

// RETURN_CONST (3.12+) takes no oparg-dependent stack and ends the code.
bool IsReturnConst(const OpcodeFacts& f) {
  return f.valid && !f.falls_through && f.jump == JumpKind::kNone && f.effect[0] == 0 &&
         f.effect[1] == 0 && f.effect[5] == 0;
}

// The largest depth as the compiler counts it: 3.13's counts each RETURN_CONST
// as the LOAD_CONST + RETURN_VALUE it folds into after counting (`def f(): pass`
// has co_stacksize 1 in 3.13, 0 in 3.12).
int32_t CompilersCount(int minor, const OpcodeTable& opcodes, const std::string& code,
                       const StackDepths& depths) {
  int32_t count = depths.max_depth;
  if (minor != 13) return count;
  for (size_t i = 0; i < depths.before.size(); ++i) {
    if (depths.before[i] >= 0 && IsReturnConst(opcodes[static_cast<uint8_t>(code[2 * i])])) {
      count = std::max(count, depths.before[i] + 1);
    }
  }
  return count;
}

class CompiledCode : public ::testing::TestWithParam<int> {};

TEST_P(CompiledCode, LargestDepthIsCoStacksizeAndCallsHaveTheirOperands) {
  const CallLayout calls = CallsOf(GetParam());
  ASSERT_NE(calls.opcodes, nullptr);
  std::ifstream in(RunfilePath("tests/data/stack_depths_3" + std::to_string(GetParam()) + ".json"));
  ASSERT_TRUE(in.good());
  const nlohmann::json doc = nlohmann::json::parse(in);
  size_t checked = 0, adaptive = 0, call_sites = 0, folded = 0, refused = 0;
  for (const auto& code_object : doc["code_objects"]) {
    const std::string name = code_object["name"];
    const std::string code = FromHex(code_object["code"]);
    const int32_t stack_size = code_object["stack_size"];
    auto depths = AnalyseStackDepths(*calls.opcodes, calls.extended_arg, code,
                                     FromHex(code_object["exception_table"]), stack_size,
                                     calls.jumps_in_bytes);
    // 3.6 and 3.7: CONTINUE_LOOP (a `continue` in a try or with body) is not modelled.
    if (!depths.ok() && GetParam() < 8) {
      std::cout << "refused " << name << ": " << depths.error().message << "\n";
      ++refused;
      continue;
    }
    ASSERT_TRUE(depths.ok()) << name << ": " << depths.error().message;
    // 3.6 to 3.9's peephole optimizer folds constants (a tuple's LOAD_CONSTs and BUILD_TUPLE
    // into one LOAD_CONST) after the compiler counted: co_stacksize may be above the depth;
    // 3.6 and 3.7's compiler also counts 6 for each handler's entry on both paths.
    const int32_t count = CompilersCount(GetParam(), *calls.opcodes, code, *depths);
    if (GetParam() < 10) {
      EXPECT_LE(count, stack_size) << name;
      if (count != stack_size) ++folded;
    } else {
      EXPECT_EQ(count, stack_size) << name;
    }
    for (size_t i = 0; i < depths->before.size(); ++i) {
      if (depths->before[i] < 0) continue;
      const OpcodeFacts& facts = (*calls.opcodes)[static_cast<uint8_t>(code[2 * i])];
      // Slots from the callable's up: the callable (and the slot below it, 3.11+'s NULL or
      // self; 3.6-3.10's CALL_METHOD's method or NULL), the arguments, a kwnames tuple.
      int64_t operand_slots;
      switch (facts.call) {
        case CallKind::kCall: operand_slots = 2; break;
        case CallKind::kCallKw: operand_slots = 3; break;
        case CallKind::kCallFunction: operand_slots = 1; break;
        case CallKind::kCallFunctionKw: operand_slots = 2; break;
        default: continue;
      }
      auto oparg = OpargAt(*calls.opcodes, calls.extended_arg, code, i);
      ASSERT_TRUE(oparg.ok());
      const int64_t below = static_cast<int64_t>(*oparg) + operand_slots;
      EXPECT_GE(depths->before[i], below) << name << " at " << 2 * i;
      ++call_sites;
    }
    ++checked;
    if (code_object.value("adaptive", false)) ++adaptive;
  }
  EXPECT_GE(checked, GetParam() < 8 ? 220u : 270u);
  if (GetParam() >= 8) {
    EXPECT_LE(folded, 1u) << "code objects whose co_stacksize is above the largest depth";
  }
  EXPECT_LE(refused, 3u);
  std::cout << "3." << GetParam() << ": " << checked << " code objects, " << folded
            << " with co_stacksize above the largest depth, " << refused << " refused\n";
  EXPECT_EQ(adaptive, GetParam() >= 11 ? 4u : 0u);  // 3.11+ specialize
  // 3.6, 3.7: the calls inside handlers have no depth (entered with none).
  EXPECT_GE(call_sites, GetParam() < 8 ? 550u : 700u);
}

INSTANTIATE_TEST_SUITE_P(Versions, CompiledCode,
                         ::testing::Values(6, 7, 8, 9, 10, 11, 12, 13, 14, 15));

nlohmann::json StackDepthsOf(int minor) {
  std::ifstream in(RunfilePath("tests/data/stack_depths_3" + std::to_string(minor) + ".json"));
  return nlohmann::json::parse(in);
}

// The effect an OpcodeFacts gives `oparg` (core/walk/stack_depth.cc, Effect), or nullopt.
std::optional<int32_t> TableEffect(const OpcodeFacts& facts, uint32_t oparg, bool jump) {
  if (oparg < 16) {
    const int8_t value = jump ? facts.jump_effect[oparg] : facts.effect[oparg];
    if (value == kNoEffect) return std::nullopt;
    return value;
  }
  const LargeOpargEffect& large = jump ? facts.large_jump : facts.large;
  if (!large.holds) return std::nullopt;
  return large.constant + large.low * static_cast<int32_t>(oparg & 0xFF) +
         large.high * static_cast<int32_t>(oparg >> 8) + large.odd * static_cast<int32_t>(oparg & 1);
}

class LegacyOpcodes : public ::testing::TestWithParam<int> {};

const std::set<std::string> kEvalLoopEffects = {
    "FOR_ITER",      "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP", "SETUP_EXCEPT",
    "SETUP_FINALLY", "SETUP_WITH",          "SETUP_ASYNC_WITH",     "POP_EXCEPT",
    "END_FINALLY",   "WITH_CLEANUP_START",  "WITH_CLEANUP_FINISH",  "EXTENDED_ARG"};

TEST_P(LegacyOpcodes, TableAgreesWithTheInterpretersOwnDisAndOpcode) {
  const CallLayout calls = CallsOf(GetParam());
  ASSERT_NE(calls.opcodes, nullptr);
  const nlohmann::json doc = StackDepthsOf(GetParam());
  ASSERT_TRUE(doc.contains("opcodes"));
  EXPECT_EQ(calls.extended_arg, doc["extended_arg"].get<int>());
  EXPECT_EQ(calls.jumps_in_bytes, GetParam() < 10);  // 3.10 counts jumps in code units
  std::vector<bool> named(256, false);
  size_t effects = 0, hand_written = 0;
  for (const auto& op : doc["opcodes"]) {
    const std::string name = op["name"];
    const int number = op["number"];
    const bool old = GetParam() < 8;
    SCOPED_TRACE(name);
    named[static_cast<size_t>(number)] = true;
    const OpcodeFacts& facts = (*calls.opcodes)[static_cast<size_t>(number)];
    FinallyRole role = name == "BEGIN_FINALLY"                            ? FinallyRole::kBegin
                       : name == "CALL_FINALLY"                           ? FinallyRole::kCall
                       : name == "END_FINALLY" || name == "POP_FINALLY" ? FinallyRole::kEnd
                                                                         : FinallyRole::kNone;
    // 3.6, 3.7: each handler is entered with no depth, and ends at an END_FINALLY.
    if (old && name.rfind("SETUP_", 0) == 0 && name != "SETUP_LOOP" && name != "SETUP_ANNOTATIONS") {
      role = FinallyRole::kCall;
    }
    EXPECT_EQ(facts.finally, role);
    // 3.6, 3.7: their dis gives one effect (no `jump`); these opcodes' effects the table takes
    // from the eval loop (make_opcode_table.py, EVAL_LOOP_EFFECTS), every other's from dis.
    if (old && kEvalLoopEffects.count(name)) {
      ++hand_written;
      continue;
    }
    // 3.6, 3.7: CONTINUE_LOOP unwinds blocks the analysis does not model; NOP, which dis gives
    // no effect, their peephole optimizer removes.
    bool refused_by_dis = true;
    for (const auto& value : op["effect"]) refused_by_dis = refused_by_dis && value.is_null();
    if (name == "CONTINUE_LOOP" || refused_by_dis) {
      EXPECT_FALSE(facts.valid);
      continue;
    }
    ASSERT_TRUE(facts.valid);
    EXPECT_EQ(facts.base, number);
    EXPECT_EQ(facts.caches, 0);
    const std::string jump = op["jump"];
    EXPECT_EQ(facts.jump, jump == "absolute"   ? JumpKind::kAbsolute
                          : jump == "relative" ? JumpKind::kForward
                                               : JumpKind::kNone);
    const std::vector<int> opargs = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 272};
    for (size_t i = 0; i < opargs.size(); ++i) {
      for (bool jumping : {false, true}) {
        const nlohmann::json& want = op[jumping && !old ? "jump_effect" : "effect"][i];
        const auto got = TableEffect(facts, static_cast<uint32_t>(opargs[i]), jumping);
        // GEN_START (3.10) pops the value a generator starts with, which the analysis
        // does not count (it starts every code at depth 0; the compiler, generators at 1).
        if (name == "GEN_START") {
          EXPECT_EQ(want, -1);
          EXPECT_EQ(got, 0);
          continue;
        }
        // Effects above 15 the table keeps only where one linear form holds for them all.
        if (opargs[i] >= 16 && !got) continue;
        ASSERT_EQ(want.is_null(), !got) << "oparg " << opargs[i] << (jumping ? " jumping" : "");
        if (got) {
          EXPECT_EQ(want.get<int>(), *got) << "oparg " << opargs[i] << (jumping ? " jumping" : "");
        }
        ++effects;
      }
    }
  }
  for (int number = 0; number < 256; ++number) {
    if (!named[static_cast<size_t>(number)]) {
      EXPECT_FALSE((*calls.opcodes)[static_cast<size_t>(number)].valid) << number;
    }
  }
  EXPECT_GE(effects, 100u * 19u * 2u);
  EXPECT_EQ(hand_written, GetParam() < 8 ? kEvalLoopEffects.size() : 0u);
}

INSTANTIATE_TEST_SUITE_P(Versions, LegacyOpcodes, ::testing::Values(6, 7, 8, 9, 10));

// 2.7 (core/layout/opcodes_27.inc, from compile.c's opcode_stack_effect: 2.7's dis has none)
// against 2.7.18's compiler, over tests/data/stack_depths_27.json (make_stack_depths_27.py):
// bytecode of 1- and 3-byte instructions. The largest depth is co_stacksize wherever the code
// has no handler (where it has one the compiler counts 3 more for its entry, 4 for a with's
// SETUP_WITH: at most that); every call has its callable and arguments below it.
TEST(StackDepth, Python27AgreesWithItsCompiler) {
  const CallLayout calls = CallsOf(27);
  ASSERT_NE(calls.opcodes, nullptr);
  ASSERT_EQ(calls.have_argument, 90);
  std::ifstream in(RunfilePath("tests/data/stack_depths_27.json"));
  ASSERT_TRUE(in.good());
  const nlohmann::json doc = nlohmann::json::parse(in);
  EXPECT_EQ(calls.extended_arg, doc["extended_arg"].get<int>());
  EXPECT_EQ(calls.have_argument, doc["have_argument"].get<int>());
  size_t checked = 0, exact = 0, folded = 0, with_handlers = 0, refused = 0, call_sites = 0;
  for (const auto& code_object : doc["code_objects"]) {
    const std::string name = code_object["name"];
    const std::string code = FromHex(code_object["code"]);
    const int32_t stack_size = code_object["stack_size"];
    auto depths = AnalyseStackDepths(*calls.opcodes, calls.extended_arg, code, "", stack_size,
                                     calls.jumps_in_bytes, calls.have_argument);
    if (!depths.ok()) {  // CONTINUE_LOOP (a `continue` in a try or with body) is not modelled
      std::cout << "refused " << name << ": " << depths.error().message << "\n";
      ++refused;
      continue;
    }
    ++checked;
    EXPECT_LE(depths->max_depth, stack_size) << name;
    if (code_object["has_handler"].get<bool>()) {
      ++with_handlers;
    } else if (depths->max_depth == stack_size) {
      ++exact;
    } else {
      ++folded;  // the peephole optimizer folded constants after the compiler counted
    }
    for (size_t i = 0; i < depths->before.size(); ++i) {
      if (depths->before[i] < 0) continue;
      const OpcodeFacts& facts = (*calls.opcodes)[OpcodeAt(code, i, calls.have_argument)];
      int64_t stars;
      switch (facts.call) {
        case CallKind::kCallFunction27: stars = 0; break;
        case CallKind::kCallFunction27Star: stars = 1; break;
        case CallKind::kCallFunction27StarStar: stars = 2; break;
        default: continue;
      }
      auto oparg = OpargAt(*calls.opcodes, calls.extended_arg, code, i, calls.have_argument);
      ASSERT_TRUE(oparg.ok());
      const int64_t below = 1 + (*oparg & 0xFF) + 2 * ((*oparg >> 8) & 0xFF) + stars;
      EXPECT_GE(depths->before[i], below) << name << " at " << i;
      ++call_sites;
    }
  }
  std::cout << "2.7: " << checked << " code objects, " << exact << " of " << exact + folded
            << " without handlers at exactly co_stacksize, " << with_handlers
            << " with handlers (at most it), " << refused << " refused, " << call_sites
            << " call sites\n";
  EXPECT_GE(checked, 230u);
  EXPECT_LE(refused, 3u);
  EXPECT_LE(folded, 3u) << "code objects without handlers below co_stacksize";
  EXPECT_GE(call_sites, 550u);
}

// 2.7's instructions: 1 byte below HAVE_ARGUMENT, else 3 with a 16-bit oparg that an
// EXTENDED_ARG prefix extends by 16 bits; a truncated oparg is refused.
TEST(StackDepth, Python27Bytecode) {
  const CallLayout calls = CallsOf(27);
  const char load_const = 100, pop_top = 1, return_value = 83, extended = static_cast<char>(145);
  auto analyse = [&](const std::string& code, int32_t stack_size = 4) {
    return AnalyseStackDepths(*calls.opcodes, calls.extended_arg, code, "", stack_size, false,
                              calls.have_argument);
  };
  const std::string code = {load_const, 0, 0, load_const, 1, 0, pop_top, return_value};
  auto depths = analyse(code);
  ASSERT_TRUE(depths.ok()) << depths.error().message;
  EXPECT_EQ(depths->before, (std::vector<int32_t>{0, -1, -1, 1, -1, -1, 2, 1}));
  EXPECT_EQ(depths->max_depth, 2);
  const std::string wide = {extended, 1, 0, load_const, 2, 0, return_value};
  auto oparg = OpargAt(*calls.opcodes, calls.extended_arg, wide, 3, calls.have_argument);
  ASSERT_TRUE(oparg.ok());
  EXPECT_EQ(*oparg, 0x10002u);
  EXPECT_FALSE(analyse(std::string{load_const, 0}).ok()) << "an oparg cut short";
  const std::string twice = {extended, 1, 0, extended, 1, 0, load_const, 2, 0, return_value};
  EXPECT_FALSE(analyse(twice).ok()) << "a second EXTENDED_ARG: past 32 bits";
  EXPECT_FALSE(OpargAt(*calls.opcodes, calls.extended_arg, code, 1, calls.have_argument).ok());
}

// 3.8 counts 6 slots for entering a finally block where the eval loop pushes 1: inside one (from
// BEGIN_FINALLY on, to its END_FINALLY) no depth is given; after it, the depth is known again.
TEST(StackDepth, NoDepthInside38FinallyBlocks) {
  const CallLayout calls = CallsOf(8);
  const nlohmann::json doc = StackDepthsOf(8);
  size_t begins = 0;
  for (const auto& code_object : doc["code_objects"]) {
    if (code_object["name"] != "source:handlers") continue;
    const std::string code = FromHex(code_object["code"]);
    auto depths = AnalyseStackDepths(*calls.opcodes, calls.extended_arg, code, "",
                                     code_object["stack_size"], true);
    ASSERT_TRUE(depths.ok()) << depths.error().message;
    for (size_t i = 0; i + 1 < depths->before.size(); ++i) {
      const OpcodeFacts& facts = (*calls.opcodes)[static_cast<uint8_t>(code[2 * i])];
      if (facts.finally != FinallyRole::kBegin || depths->before[i] < 0) continue;
      EXPECT_EQ(depths->before[i + 1], -1) << "after BEGIN_FINALLY at " << 2 * i;
      ++begins;
    }
    // The code's last instruction, a RETURN_VALUE after the finally block, has its depth.
    EXPECT_EQ(depths->before[depths->before.size() - 1], 1);
  }
  EXPECT_GE(begins, 1u);
}

// Bytecode of `opcodes` by name-free numbers: the base opcode of a kind.
uint8_t OpcodeWhere(const OpcodeTable& opcodes, bool (*pick)(const OpcodeFacts&)) {
  for (int op = 0; op < 256; ++op) {
    if (opcodes[op].valid && opcodes[op].base == op && pick(opcodes[op])) return static_cast<uint8_t>(op);
  }
  return 0;
}

TEST(StackDepth, RefusesWhatCannotBeBytecode) {
  const CallLayout calls = CallsOf(12);
  const OpcodeTable& opcodes = *calls.opcodes;
  const uint8_t forward = OpcodeWhere(opcodes, [](const OpcodeFacts& f) {
    return f.jump == JumpKind::kForward && !f.falls_through;
  });
  const uint8_t pusher = OpcodeWhere(opcodes, [](const OpcodeFacts& f) {
    return f.jump == JumpKind::kNone && f.caches == 0 && f.effect[0] == 1 && f.effect[5] == 1;
  });
  ASSERT_NE(forward, 0);
  ASSERT_NE(pusher, 0);
  auto analyse = [&](std::string code, int32_t stack_size = 8) {
    return AnalyseStackDepths(opcodes, calls.extended_arg, code, "", stack_size);
  };
  const char invalid = 0;  // CACHE: never an instruction
  EXPECT_FALSE(analyse(std::string{invalid, 0}).ok());
  EXPECT_FALSE(analyse(std::string{static_cast<char>(forward), 9}).ok()) << "jumps past the end";
  EXPECT_FALSE(analyse(std::string{static_cast<char>(pusher), 0}, 0).ok()) << "above co_stacksize";
  EXPECT_FALSE(analyse("x").ok()) << "odd size";
  const auto extended = static_cast<char>(calls.extended_arg);
  const auto cached = static_cast<char>(OpcodeWhere(opcodes, [](const OpcodeFacts& f) {
    return f.caches > 0 && f.jump == JumpKind::kNone;
  }));
  ASSERT_NE(cached, 0);
  EXPECT_FALSE(analyse(std::string{cached, 0}).ok()) << "caches cut short";
  const std::string three = {extended, 1, extended, 2, extended, 3, static_cast<char>(pusher), 4};
  auto wide = OpargAt(opcodes, calls.extended_arg, three, 3);
  ASSERT_TRUE(wide.ok()) << wide.error().message;
  EXPECT_EQ(*wide, 0x01020304u);
  EXPECT_FALSE(OpargAt(opcodes, calls.extended_arg, std::string{extended, 1} + three, 4).ok())
      << "a fourth EXTENDED_ARG: past 32 bits";
  // A jump over one push to where the push also falls: two depths meet.
  const std::string meet = {static_cast<char>(OpcodeWhere(opcodes, [](const OpcodeFacts& f) {
                              return f.jump == JumpKind::kForward && f.falls_through && f.caches == 0 &&
                                     f.effect[0] == f.jump_effect[0];
                            })),
                            1, static_cast<char>(pusher), 0, static_cast<char>(pusher), 0};
  if (meet[0] != 0) {
    auto met = analyse(meet);
    EXPECT_FALSE(met.ok());
  }
  const uint8_t end = OpcodeWhere(opcodes, [](const OpcodeFacts& f) {
    return f.jump == JumpKind::kNone && !f.falls_through && f.caches == 0 && f.effect[0] == -1;
  });
  ASSERT_NE(end, 0);
  EXPECT_FALSE(analyse(std::string{static_cast<char>(pusher), 0}).ok()) << "runs off the end";
  auto fine = analyse(std::string{static_cast<char>(pusher), 0, static_cast<char>(pusher), 0,
                                  static_cast<char>(end), 0});
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(fine->before[1], 1);
  EXPECT_EQ(fine->max_depth, 2);
}

}  // namespace
}  // namespace pyunwind
