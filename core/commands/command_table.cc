#include "core/commands/command_table.h"

#include <fmt/format.h>

#include "core/base/limits.h"
#include "core/commands/arguments.h"
#include "core/commands/native.h"
#include "core/commands/py_bt.h"
#include "core/commands/py_heap.h"
#include "core/commands/py_print.h"
#include "core/commands/py_tasks.h"
#include "core/commands/py_waits.h"
#include "core/commands/source_commands.h"
#include "core/commands/version_command.h"

namespace pyunwind {
namespace {

const OptionSpec kOutfile = {
    .name = kOutfileOption,
    .kind = ValueKind::kText,
    .value_name = "FILE",
    .help = "write the output to FILE (created or truncated), not to the debugger's output, "
            "and print one line saying where and how many bytes",
    .needs = "a file name",
};

const OptionSpec kFrame = {
    .name = "--frame",
    .kind = ValueKind::kNumber,
    .value_name = "N",
    .help = "Python frame N of the selected thread (0 = innermost, as py-bt)",
    .min = 0,
    .max = kMaxFramesPerThread,
};

const std::vector<OptionSpec> kPyBtOptions = {
    {.name = "--all", .short_name = "-a", .help = "every thread of every interpreter"},
    {.name = "--native",
     .help = "the debugger's native backtrace, each eval-loop frame followed by the Python "
             "frames it runs"},
    {.name = "--json", .help = "one JSON document (fields: docs/json-output.md)"},
    {.name = "--locals",
     .help = "arguments and locals of each Python frame, with short reprs (cut at 200 "
             "characters, 50 items, depth 3; see py-locals)"},
    {.name = "--limit",
     .kind = ValueKind::kNumber,
     .value_name = "N",
     .help = "at most N frames per thread",
     .min = 1,
     .max = kMaxFramesPerThread},
    {.name = "--verbose",
     .short_name = "-v",
     .help = "also say how the runtime was found and which layout was used"},
    {.name = "--stats", .help = "memory reads, bytes, cache hits, time and the work budget spent"},
    {.name = "--no-color", .help = "no colour even on a terminal", .alias = "--no-colour"},
    {.name = "--no-source", .help = "no source lines (text)"},
    {.name = "--source", .help = "with --json: each frame's source line (\"source\")"},
    {.name = "--source-dir",
     .kind = ValueKind::kText,
     .value_name = "DIR",
     .help = "look for each source file by its base name in DIR first (the sources of a core "
             "made elsewhere); may be repeated",
     .needs = "a directory"},
    {.name = "--group",
     .help = "with --all: threads with the same Python stack shown once, with their count and "
             "names, largest group first"},
    {.name = "--greenlets",
     .help = "also the stack of each suspended greenlet (greenlet 2.0 on Python 3.11: gevent's "
             "too), under its thread; reads every object the collector tracks"},
    kOutfile,
};

const std::vector<OptionSpec> kPyTasksOptions = {
    {.name = "--json", .help = "one JSON document (fields: docs/json-output.md)"},
    {.name = "--tree",
     .help = "the await graph as a tree, rooted at tasks nobody awaits; identical sibling "
             "subtrees are drawn once with a count"},
    {.name = "--running",
     .help = "the task each thread's event loop is running, with its async call chain"},
    {.name = "--summary", .help = "tasks grouped by coroutine stack and state, largest group first"},
    {.name = "--name",
     .kind = ValueKind::kText,
     .value_name = "GLOB",
     .help = "only tasks whose name matches GLOB (*, ?, [...])"},
    {.name = "--state",
     .kind = ValueKind::kChoice,
     .value_name = "STATE",
     .help = "only pending, running, or done (finished, cancelled) tasks, or all",
     .choices = {"pending", "running", "done", "all"}},
    {.name = "--all", .help = "every task, finished ones too (--state all)"},
    {.name = "--limit",
     .kind = ValueKind::kNumber,
     .value_name = "N",
     .help = "at most N tasks (--summary: N groups)",
     .min = 1,
     .max = kMaxWordNumber},
    {.name = "--stats",
     .help = "memory reads, bytes, cache hits, tasks, time and the work budget spent"},
    {.name = "--verbose",
     .short_name = "-v",
     .help = "also say where the runtime and the task offsets were found"},
    kOutfile,
};

const std::vector<OptionSpec> kPyWaitsOptions = {
    {.name = "--json", .help = "one JSON document (fields: docs/json-output.md)"},
    {.name = "--all", .help = "the threads and tasks of every interpreter"},
    kOutfile,
};

const std::vector<OptionSpec> kPyHeapOptions = {
    {.name = "--json", .help = "one JSON document (fields: docs/json-output.md)"},
    {.name = "--top",
     .kind = ValueKind::kNumber,
     .value_name = "N",
     .help = "the N largest type groups (default: 40 in text, all in JSON)",
     .min = 1,
     .max = kMaxHeapTypes},
    {.name = "--type",
     .kind = ValueKind::kText,
     .value_name = "NAME",
     .help = "only the groups of types named NAME (type(x).__name__ or the full tp_name)",
     .needs = "a type name"},
    {.name = "--containers",
     .kind = ValueKind::kNumber,
     .value_name = "N",
     .help = "also the N largest lists, tuples, dicts and sets: type, length, bytes, address, "
             "and the module globals, class attributes and frames' locals that refer to them",
     .min = 1,
     .max = kMaxHeapContainers},
    {.name = "--limit-objects",
     .kind = ValueKind::kNumber,
     .value_name = "N",
     .help = "stop the census after N objects (a quick look at a huge heap; a warning says so)",
     .min = 1,
     .max = kMaxWorkHeapObjects},
    kOutfile,
};

const std::vector<OptionSpec> kPyPrintOptions = {
    {.name = "--depth",
     .kind = ValueKind::kNumber,
     .value_name = "N",
     .help = "nesting shown (default 10, at most 64)",
     .min = 1,
     .max = kMaxPrintReprDepth},
    {.name = "--max-chars",
     .kind = ValueKind::kNumber,
     .value_name = "N",
     .help = "characters shown (default 10000, at most 1048576)",
     .min = 1,
     .max = kMaxPrintReprLength},
    kFrame,
};

std::vector<CommandSpec> MakeTable() {
  return {
      {.name = "py-bt",
       .summary = "Print the Python stack of the selected thread, or of every thread.",
       .description =
           "Print the Python stack of the selected thread, innermost frame first, each frame\n"
           "with its source line and the expression it runs underlined, as Python's tracebacks.\n",
       .options = kPyBtOptions,
       .run = RunPyBt},
      {.name = "py-tasks",
       .summary = "List the asyncio tasks, their coroutine stacks and who awaits whom.",
       .description =
           "List the asyncio tasks: address, name, thread, coroutine stack (innermost first)\n"
           "and the tasks that await each one. Finished and cancelled tasks are left out,\n"
           "as asyncio.all_tasks() leaves them out, unless --state done or --all.\n",
       .options = kPyTasksOptions,
       .run = RunPyTasks},
      {.name = "py-waits",
       .summary = "What each thread and asyncio task waits for, who holds it, and deadlocks.",
       .description =
           "For every thread and pending asyncio task of the selected thread's interpreter\n"
           "(--all: every interpreter): what it is blocked on (a Lock, an RLock and the thread\n"
           "that owns it, a joined thread, the GIL and its holder, an Event, Condition,\n"
           "Semaphore or queue, a sleep or I/O, the task or future a task awaits), then every\n"
           "cycle of that waits-for graph printed first, one \"deadlock:\" line each.\n",
       .options = kPyWaitsOptions,
       .run = RunPyWaits},
      {.name = "py-heap",
       .summary = "Count the objects the garbage collector tracks, by type, with their bytes.",
       .description =
           "A census of every object the garbage collector tracks in every interpreter (the\n"
           "objects gc.get_objects() lists, gc.freeze()'s too), grouped by type: how many and\n"
           "their bytes as sys.getsizeof gives them (list, dict and set storage included),\n"
           "largest groups first, under a header with the totals. Nothing runs in the target.\n"
           "Free-threaded builds (3.13t, 3.14t): the tracked objects of the mimalloc heaps, as\n"
           "gc.get_objects() finds them.\n",
       .options = kPyHeapOptions,
       .run = RunPyHeap},
      {.name = "py-bt-full",
       .summary = "py-bt --locals: the Python stack with each frame's arguments and locals.",
       .description =
           "py-bt --locals: the Python stack of the selected thread, or of every thread, with\n"
           "each Python frame's arguments and locals. It takes the options of py-bt.\n",
       .options = kPyBtOptions,
       .run = RunPyBtFull},
      {.name = "py-locals",
       .summary = "Print the arguments and locals of the selected Python frame.",
       .description =
           "Print the arguments and locals of the selected Python frame (the one py-up / py-down\n"
           "/ py-frame take as selected: frame 0 when stopped in C code it called), with short\n"
           "reprs of None, bool, int, float, str, bytes, tuple, list, dict, set and frozenset,\n"
           "C-level callables, bound methods and classes, and <module.Class object at 0x...> for\n"
           "other objects. Nothing runs in the target. Reprs are cut at 200 characters, 50 items\n"
           "and a nesting depth of 3.\n",
       .options = {kFrame, {.name = "--json", .help = "one JSON document: the frame and its locals"}},
       .run = RunPyLocals},
      {.name = "py-print",
       .summary =
           "Print the full repr of a local, global or builtin seen from the selected Python frame.",
       .description =
           "Print the repr of NAME as the selected Python frame sees it (the one py-up / py-down\n"
           "/ py-frame take as selected: frame 0 when stopped in C code it called): a local,\n"
           "argument, cell or free variable, else a global, else a builtin, as Python looks names\n"
           "up. Nothing runs in the target; reprs are rebuilt from memory as py-locals does, with\n"
           "wider limits.\n",
       .options = kPyPrintOptions,
       .operands = "NAME",
       .max_operands = 1,
       .run = RunPyPrint},
      {.name = "py-list",
       .summary = "List the source lines around the current line of the selected Python frame.",
       .description =
           "List the source around the current line of the selected Python frame (5 lines\n"
           "before and after, the current line marked with '>'), read from the file on this\n"
           "machine; START lists START to START+10 (as CPython's py-list), START,END that range.\n",
       .options = {kFrame},
       .operands = "[START | START,END]",
       .max_operands = 1,
       .run = RunPyList},
      {.name = "py-up",
       .summary = "Select an older Python frame (and the native frame running it).",
       .description =
           "Select the Python frame N (default 1) levels older than the selected one in the\n"
           "selected thread, and the native eval-loop frame that runs it. py-list, py-locals and\n"
           "py-print then read that frame. The selection is forgotten when the process resumes.\n"
           "It starts from the debugger's selected frame: in C code that Python frame 0 called,\n"
           "the first py-up selects frame 0.\n",
       .operands = "[N]",
       .max_operands = 1,
       .run = RunPyUp},
      {.name = "py-down",
       .summary = "Select a newer Python frame (and the native frame running it).",
       .description =
           "Select the Python frame N (default 1) levels newer than the selected one in the\n"
           "selected thread, and the native eval-loop frame that runs it.\n",
       .operands = "[N]",
       .max_operands = 1,
       .run = RunPyDown},
      {.name = "py-frame",
       .summary = "Print or select a Python frame of the selected thread.",
       .description =
           "Without N: print the selected Python frame (frame 0, the innermost, until py-up,\n"
           "py-down or py-frame N selects another). With N: select Python frame N of the\n"
           "selected thread (0 = innermost, as py-bt numbers them) and the native eval-loop\n"
           "frame that runs it.\n",
       .operands = "[N]",
       .max_operands = 1,
       .run = RunPyFrame},
      {.name = "version",
       .summary = "pyunwind's version and git revision, the debugger it runs in, the CPython "
                  "versions it reads.",
       .description =
           "Print pyunwind's version and the git revision it was built from (\"unknown\" when the\n"
           "build was not made from a git checkout), the debugger it runs in, and the CPython\n"
           "versions and builds it reads.\n",
       .options = {{.name = "--json", .help = "one JSON document"}},
       .run = [](const ParsedArgs& args, CommandContext& context) {
         return RunVersion(args, context);
       },
       .prefix_only = true,
       .reads_target = false},
  };
}

}  // namespace

const std::vector<CommandSpec>& CommandTable() {
  static const std::vector<CommandSpec> table = MakeTable();
  return table;
}

const CommandSpec* FindCommand(std::string_view name) {
  for (const CommandSpec& command : CommandTable()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

std::string HelpName(const CommandSpec& command) {
  return command.prefix_only ? fmt::format("pyunwind {}", command.name) : std::string(command.name);
}

std::string HelpText(const CommandSpec& command) {
  return UsageText(HelpName(command), command.options, command.operands) +
         std::string(command.description) + OptionsText(command.options);
}

bool TakesOutfile(const CommandSpec& command) {
  for (const OptionSpec& option : command.options) {
    if (option.name == kOutfileOption) return true;
  }
  return false;
}

}  // namespace pyunwind
