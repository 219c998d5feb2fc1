// Every bound the core puts on what it reads from the target, in one place.
// The target is untrusted: hitting a bound gives a visible truncation mark
// and a warning, never a hang.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pyunwind {

inline constexpr size_t kMaxInterpreters = 256;
// Entries of an ELF program header table read from the target (a sane file has a dozen).
inline constexpr uint64_t kMaxProgramHeaders = 256;
// Bytes above the main thread's stack pointer searched for the auxiliary vector (the stack a
// parked Python thread uses, then argv and envp; the search stops at the stack's end).
inline constexpr uint64_t kMaxAuxvSearchBytes = 4ull << 20;
// Levels of a module's section tree climbed to its segment (ELF: a segment, then its sections).
inline constexpr size_t kMaxSectionNesting = 16;
inline constexpr size_t kMaxThreadsPerInterpreter = 4096;
inline constexpr size_t kMaxFramesPerThread = 65536;
inline constexpr size_t kMaxStringLength = 4096;         // characters kept of a name or file name
inline constexpr size_t kMaxLocationTableBytes = 1 << 20;
inline constexpr size_t kMaxCodeObjectsCached = 1 << 16;
inline constexpr uint64_t kMaxBytesReadPerCommand = 512ull << 20;
inline constexpr uint64_t kMaxBytesReadForTasks = 4ull << 30;  // py-tasks: a million tasks
inline constexpr uint64_t kMaxBytesScannedForRuntime = 2ull << 30;

// What one command may print (core/render/output_writer.h, OutputBudget): every bound above
// still lets a few MB of hostile memory multiply into gigabytes of text (65,536 frames of
// 4,096-character names, each with 1,024 locals of 4,096-character names), which the debugger
// holds and prints for minutes. Real stacks print far less: py-bt --all of the `scale`
// scenario (3,069 frames) is about 0.5 MB and 10,000 lines. py-tasks has its own, as for the
// read budget: its JSON is about 440 bytes a task (bench/README.md), 440 MB for the million
// tasks kMaxTasks lets through. Past either bound a command stops adding output, marks it
// "...truncated" and says which bound ran out; JSON stays one whole document. Tests lower
// them through CommandContext::output_limit.
inline constexpr uint64_t kMaxOutputBytesPerCommand = 64ull << 20;
inline constexpr uint64_t kMaxOutputLinesPerCommand = 1000000;
inline constexpr uint64_t kMaxOutputBytesForTasks = 1ull << 30;
inline constexpr uint64_t kMaxOutputLinesForTasks = 1ull << 24;
// GDB's bt: the Python frames named beside one eval-loop frame (3.11+ runs a whole Python
// call chain in one), then "and N more"; and the characters of each name shown there.
inline constexpr size_t kMaxPythonFramesPerNativeFrame = 8;
// Threads py-bt unwinds natively (without --native) per command to see whether they wait for
// the GIL another thread holds: GDB takes tens of milliseconds a thread.
inline constexpr size_t kMaxGilWaitUnwinds = 16;
inline constexpr size_t kMaxNameInNativeFrame = 200;

// The work budget of one command (core/base/work_budget.h): what it may spend in
// all, cache hits and repeated decoding included. Real programs stay far below
// it (bench/README.md: a million asyncio tasks spend 17.9 % of the coroutine
// links, at most 3.1 % of the other kinds;
// the e2e tests run `scale` and 100,000 tasks under it); each bounds the
// amplification cases of tests/walk_test.cc (WorkAmplification) to seconds.
inline constexpr uint64_t kMaxWorkBytesRead = 16ull << 30;
inline constexpr uint64_t kMaxWorkFrames = 1ull << 17;
inline constexpr uint64_t kMaxWorkCodeObjects = 1ull << 20;
inline constexpr uint64_t kMaxWorkLineTableEntries = 1ull << 22;
inline constexpr uint64_t kMaxWorkContainerEntries = 1ull << 26;
inline constexpr uint64_t kMaxWorkCoroutineLinks = 1ull << 24;  // many tasks sharing one chain
inline constexpr uint64_t kMaxWorkHeapObjects = 1ull << 28;     // py-heap: all lists together

// asyncio (py-tasks): tasks read and listed (more: the first are shown and a
// warning ending "...truncated" says how many were cut); coroutines kept of
// one task's await chain (a deeper chain keeps its outermost and innermost
// halves and marks the gap), and followed at most down one chain.
inline constexpr size_t kMaxTasks = 1000000;
inline constexpr size_t kMaxCoroutineDepth = 1024;
inline constexpr size_t kMaxCoroutineChain = 1 << 20;
inline constexpr size_t kMaxTaskWarnings = 64;  // then one line counts the rest
// Entries read from one dict, list, tuple or set (module dicts, task sets,
// gather children); more is refused with an error for that container.
inline constexpr size_t kMaxContainerEntries = 1 << 16;
inline constexpr uint64_t kMaxSetSlots = 1ull << 23;  // a set's hash table (a million tasks)
// Classes followed up a tp_base chain (a task's class to _asyncio.Task, a slot's class).
inline constexpr size_t kMaxBaseClasses = 16;

// Values shown by --locals, py-locals (core/objects/values.h): a repr is cut after
// kMaxReprLength characters (marked "..."), containers after kMaxReprItems
// items (", ...") and nesting deeper than kMaxReprDepth ("..."). Ints with
// more than kMaxReprIntDigits 30-bit digits (about 9,000 decimal digits) are
// shown by size only; a frame shows at most kMaxLocalsPerFrame names.
inline constexpr size_t kMaxReprLength = 200;
inline constexpr size_t kMaxReprItems = 50;
inline constexpr int kMaxReprDepth = 3;
inline constexpr size_t kMaxReprIntDigits = 1000;
inline constexpr size_t kMaxLocalsPerFrame = 1024;
// py-print NAME: the repr of one value, cut after kDefaultPrintReprLength
// characters and nested kDefaultPrintReprDepth deep unless --max-chars /
// --depth say more, and never more than the hard bounds below.
inline constexpr size_t kDefaultPrintReprLength = 10000;
inline constexpr int kDefaultPrintReprDepth = 10;
inline constexpr size_t kMaxPrintReprLength = 1 << 20;
inline constexpr int kMaxPrintReprDepth = 64;
// py-list: lines read from a source file at most, and its longest line kept.
inline constexpr size_t kMaxSourceLines = 1 << 20;
inline constexpr size_t kMaxSourceLineLength = 4096;
inline constexpr uint64_t kMaxSourceFileBytes = 64ull << 20;  // bytes read of one source file
// py-bt: distinct source files it reads for the lines under its frames; the
// frames of further files show no source line.
inline constexpr size_t kMaxSourceFilesPerCommand = 256;
// py-bt on 3.13+: the longest expression (in lines) whose lines and carets are
// drawn the way Python draws them, and the lines of such expressions read
// for one command; past either, a frame shows its first line only.
inline constexpr long kMaxTracebackSpanLines = 4096;
inline constexpr size_t kMaxTracebackSpanLinesPerCommand = 1 << 16;

// py-waits (core/waits/): a thread's innermost frames looked at for a stdlib wait
// (threading.py, queue.py); the frames whose value stacks are searched for the `with` blocks
// holding a plain Lock, per thread and in all, and the coroutine frames searched for the
// `async with` blocks holding an asyncio.Lock, per task and in all (past these a holder is
// not found: held by nobody known). More waiters or waits-for edges than the graph bounds:
// no cycles looked for, and a warning says so.
inline constexpr size_t kMaxStdlibWaitFrames = 16;
inline constexpr size_t kMaxHolderFramesPerThread = 64;
inline constexpr size_t kMaxHolderFramesForThreads = 4096;
inline constexpr size_t kMaxHolderFramesPerTask = 64;
inline constexpr size_t kMaxHolderFramesForTasks = 1 << 16;
inline constexpr size_t kMaxWaitParties = 1 << 20;
inline constexpr size_t kMaxWaitEdges = 1 << 22;
// A wait any one of whose holders can release it (a queued Future: any busy worker of its
// executor) is a deadlock only if every holder waits back on it: past this many nodes and
// edges visited deciding so, none such is taken for a cycle, and a warning says so.
inline constexpr uint64_t kMaxAnyOfSteps = 1ull << 26;
// A task parked on a future nothing else holds (core/waits/unwakeable_awaits.h): the
// coroutine frames whose references are counted, and the objects only the task holds that are
// looked inside; past either the wait is not claimed unwakeable.
inline constexpr size_t kMaxUnwakeableFrames = 64;
inline constexpr size_t kMaxUnwakeableOwnedObjects = 64;
// Future.result waits (core/waits/future_waits.cc): the innermost frames looked at for
// Future.result, the outermost for an executor worker's _worker; work items read from all
// work queues and executors told apart (past these a queued Future's executor is not known);
// a work queue's ring buffer of more slots than kMaxRingCapacity is not read (3.13+).
inline constexpr size_t kMaxFutureWaitFrames = 16;
inline constexpr size_t kMaxWorkerLoopDepth = 8;
inline constexpr size_t kMaxQueuedWorkItems = 4096;
inline constexpr size_t kMaxExecutors = 256;
inline constexpr int64_t kMaxRingCapacity = 1 << 24;

// py-heap (core/heap/): objects followed along one of the collector's lists (a longer list is
// cut there, and a warning says so; a real heap of 10^8 objects fits), the distinct types
// told apart (more are counted in one group, "(other types)"), and the bytes it may read of
// the target (a million objects read about 60 MB of pages).
inline constexpr uint64_t kMaxGcListObjects = 1ull << 27;
inline constexpr size_t kMaxHeapTypes = 1 << 16;
// py-heap --containers N: the largest containers kept (a heap of N entries).
inline constexpr size_t kMaxHeapContainers = 10000;
// Who refers to them (core/heap/container_referrers.h): the referrers named per container
// (a list of 10,000 module globals is no answer; a warning says one was cut), the entries of
// all the dicts and frames looked in together (sys.modules, each module's and class's dict,
// each frame's locals; a big program has about 10^6), a dict of more entries than
// kMaxReferrerDictEntries is not looked in, and the classes whose dicts are looked in.
inline constexpr size_t kMaxContainerReferrers = 32;
inline constexpr uint64_t kMaxReferrerEntries = 1ull << 24;
inline constexpr size_t kMaxReferrerDictEntries = 1 << 16;
inline constexpr size_t kMaxReferrerClasses = 1 << 18;
inline constexpr uint64_t kMaxBytesReadForHeap = 16ull << 30;
// py-heap: the untracked objects reached through containers counted, each once (a set of
// their addresses, 64 MiB at most; past it the rest are not counted, and "limited" says so).
inline constexpr uint64_t kMaxOwnedObjects = 1ull << 22;
// py-heap: the container entries (items, keys and values, set slots, attributes) read for them,
// apart from the command's work budget so that a heap of 10^8 objects still gets its census of
// tracked ones; past it the rest are not counted, and "limited" says so.
inline constexpr uint64_t kMaxOwnedEntries = 1ull << 28;
// Free-threaded builds (core/heap/mimalloc_heaps.h): the mimalloc pages looked at in all (each
// at least 64 KiB: 2^20 pages are 64 GiB of heap, and the set of pages met, which finds loops,
// stays near 40 MB; past it the rest are not counted, and a warning says so) and the abandoned
// segments (32 MiB each) of the interpreter's pool.
inline constexpr uint64_t kMaxMimallocPages = 1ull << 20;
inline constexpr uint64_t kMaxAbandonedSegments = 1ull << 16;

// py-bt --greenlets (core/greenlet/): greenlets whose stacks are read (more are counted and
// said in a warning), types told apart as greenlet classes or not, and the C frames
// (_PyCFrame) followed from a suspended greenlet's innermost to its thread's root one.
inline constexpr size_t kMaxGreenlets = 1 << 14;
inline constexpr size_t kMaxGreenletTypes = 1 << 16;
inline constexpr size_t kMaxGreenletCFrames = 1 << 16;
// The largest C stack (8 MiB by default; `ulimit -s` raises it) that tells a suspended
// greenlet's thread: a thread state's bounds (3.14+), or the memory region holding a thread's
// stack pointer (3.12, 3.13).
inline constexpr uint64_t kMaxThreadStackBytes = 1ull << 32;

}  // namespace pyunwind
