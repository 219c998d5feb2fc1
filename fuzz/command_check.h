// What the fuzz target checks on every input (README.md): each command returns its data or
// exactly one error line "pyunwind: ...", and --json output parses. The libFuzzer target
// (core_fuzzer.cc) aborts on a violation; the corpus replay (tests/fuzz_corpus_test.cc)
// fails the case, naming every violation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "core/target/target.h"

namespace pyunwind::fuzz {

// What each command may print here, far below the default (64 MiB, a million lines) and far
// above any seed's real stack (113 KB at most): the cut and its marks are reached at once,
// and an input of the work budget's size no longer prints and parses tens of MB per command
// (the frame chain seed: 18 MB for py-bt --all --json, 36 MB with --locals; README.md).
inline constexpr OutputLimit kCheckOutputLimit = {1 << 20, 16384};

// One command line run on every input.
struct Invocation {
  std::string name;
  std::vector<std::string> args;
  bool json;  // its output must parse as JSON

  std::string CommandLine() const;
};

// py-bt --all --json, py-bt --verbose, py-bt --all --locals [--json], py-tasks
// --json|--tree|--running, py-locals, py-frame, py-list and every other command with
// --json: each only if AllCommands() has it.
const std::vector<Invocation>& Invocations();

// What is wrong with `out`, the output of `invocation`; empty when it is data, or one error
// line, as it should be.
std::string Violation(const Invocation& invocation, const CommandOutput& out);

// A command whose output broke the rule.
struct Finding {
  std::string command_line;
  std::string violation;
  std::string output;
};

// What every command did on one input.
struct InputReport {
  bool target_read = false;  // the input made a core ElfCoreTarget reads
  std::vector<std::string> succeeded;  // command lines that returned data
  std::vector<std::string> failed;     // command lines that returned one error line
  std::vector<Finding> findings;       // the fuzz target aborts when there is any
  size_t largest_output = 0;           // bytes: the longest output of one command
};

// Runs every invocation on `target`, the selected thread its first one.
InputReport CheckCommands(Target& target);

// Reads `data` as the fuzz target does (an ELF core, a "PYUS" state expanded into one, or
// anything else as one writable mapping at 0x10000000) and checks the commands on it, with
// _Py_HashSecret at a page of zeros (zero_secret_target.h).
InputReport CheckInput(const uint8_t* data, size_t size);

}  // namespace pyunwind::fuzz
