// The stack-depth analysis (core/walk/stack_depth.h) against the compiler:
// for every code object of tests/data/stack_depths_3XX.json (written by
// tests/data/make_stack_depths.py under Debian's 3.11, pyenv's 3.12.1 and
// 3.13.0, and Debian unstable's 3.14.10 and 3.15.2 unpacked by hand: modules of their own library, a source of calls, handlers, wide
// tuples, coroutines and generators, and specialized bytecode of it), the
// largest depth found equals co_stacksize, the depth CPython's compiler
// computed; every call instruction has its callable and arguments below it.
// Hand-made bytecode covers what must be refused.
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/layout/minor_versions.h"
#include "core/walk/stack_depth.h"
#include "tests/fixture_facts.h"

namespace pyunwind {
namespace {

using testing::FromHex;
using testing::RunfilePath;

CallLayout CallsOf(int minor) {
  Layout layout;
  FindMinorVersion(minor)->add_facts(layout);
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
  size_t checked = 0, adaptive = 0, call_sites = 0;
  for (const auto& code_object : doc["code_objects"]) {
    const std::string name = code_object["name"];
    const std::string code = FromHex(code_object["code"]);
    const int32_t stack_size = code_object["stack_size"];
    auto depths = AnalyseStackDepths(*calls.opcodes, calls.extended_arg, code,
                                     FromHex(code_object["exception_table"]), stack_size);
    ASSERT_TRUE(depths.ok()) << name << ": " << depths.error().message;
    EXPECT_EQ(CompilersCount(GetParam(), *calls.opcodes, code, *depths), stack_size) << name;
    for (size_t i = 0; i < depths->before.size(); ++i) {
      if (depths->before[i] < 0) continue;
      const OpcodeFacts& facts = (*calls.opcodes)[static_cast<uint8_t>(code[2 * i])];
      if (facts.call != CallKind::kCall && facts.call != CallKind::kCallKw) continue;
      auto oparg = OpargAt(*calls.opcodes, calls.extended_arg, code, i);
      ASSERT_TRUE(oparg.ok());
      const int64_t below = static_cast<int64_t>(*oparg) + 2 + (facts.call == CallKind::kCallKw);
      EXPECT_GE(depths->before[i], below) << name << " at " << 2 * i;
      ++call_sites;
    }
    ++checked;
    if (code_object.value("adaptive", false)) ++adaptive;
  }
  EXPECT_GE(checked, 300u);
  EXPECT_EQ(adaptive, 4u);
  EXPECT_GE(call_sites, 800u);
}

INSTANTIATE_TEST_SUITE_P(Versions, CompiledCode, ::testing::Values(11, 12, 13, 14, 15));

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
