// The only way the core sees the debugged program. Each front-end (LLDB
// plugin, GDB bridge, test images) implements it; the core never includes a
// debugger header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pyunwind {

struct MemoryRegion {
  uint64_t start = 0;
  uint64_t end = 0;  // exclusive
  bool readable = true;
  bool writable = false;
  std::string name;  // mapped file, where the host knows it; empty otherwise
};

struct LoadedModule {
  std::string path;       // on-disk path as the debugger knows it
  uint64_t load_bias = 0; // added to the file's virtual addresses
};

// The user and group a core's process ran as (its NT_PRPSINFO note).
struct ProcessUser {
  uint32_t uid = 0;
  uint32_t gid = 0;
};

// One frame of the debugger's own (native) unwind of a thread.
struct NativeFrame {
  uint64_t pc = 0;
  std::string function;  // function or symbol name; empty where unknown
  std::string module;    // object file path (or name); empty where unknown
};

class Target {
 public:
  virtual ~Target() = default;

  // Copies `size` bytes at `address` into `out`. Returns false (and may leave
  // `out` partly written) when any byte cannot be read.
  virtual bool ReadMemory(uint64_t address, void* out, size_t size) = 0;

  // How many 4 KiB pages the core's page cache (memory.h) fetches per cache
  // miss: several save reads, one saves the memory and the copying of
  // neighbours never used. One where a read is a system call (/proc/PID/mem,
  // a core file); more where each costs more (bench/README.md).
  virtual uint64_t PagesPerFetch() const { return 4; }

  // Address of a global data symbol (e.g. "_PyRuntime"), where the host has symbols.
  virtual std::optional<uint64_t> FindSymbol(std::string_view name) = 0;

  // Memory regions of the target; empty where the host cannot list them.
  virtual std::vector<MemoryRegion> MemoryRegions() { return {}; }
  // Where MemoryRegions() is empty: why, and what the user can give instead, as the end of a
  // sentence ("LLDB lists no ...: give it ..."); "" where the host has nothing to say.
  virtual std::string WhyNoMemoryRegions() { return ""; }

  // Loaded executable and shared libraries; empty where unknown.
  virtual std::vector<LoadedModule> Modules() { return {}; }

  // OS thread ids (LWPs) the debugger knows, in its own order.
  virtual std::vector<uint64_t> ThreadIds() { return {}; }

  // The name the debugger gives the thread with OS thread id `thread_id`
  // (live Linux processes: /proc/PID/task/TID/comm, what both debuggers
  // show); nullopt where it has none (an ELF core's notes name no thread).
  virtual std::optional<std::string> ThreadName(uint64_t /*thread_id*/) { return std::nullopt; }

  // The debugger's backtrace of the thread with OS thread id `thread_id`,
  // innermost first, index i being the debugger's frame number i (inlined
  // frames included). Empty where the host cannot unwind.
  virtual std::vector<NativeFrame> NativeFrames(uint64_t /*thread_id*/) { return {}; }

  // The stack pointer of the innermost frame of the thread with OS thread id `thread_id`: where
  // its C stack is (the memory region holding it), which tells whose stack an address is on
  // (core/greenlet). nullopt where the host cannot say.
  virtual std::optional<uint64_t> StackPointer(uint64_t /*thread_id*/) { return std::nullopt; }

  // The PID of a live process on this host that the debugger debugs: its files
  // (/proc/PID/root, /proc/PID/cwd, /proc/PID/status) are then the process's own view, which
  // the source files of its code objects are resolved against (core/pysource/source_policy.h).
  // nullopt for a core, or a process that may be elsewhere (a remote target).
  virtual std::optional<uint64_t> LocalProcessId() { return std::nullopt; }

  // The user a core's process ran as, where the core says (NT_PRPSINFO); nullopt otherwise.
  virtual std::optional<ProcessUser> CoreUser() { return std::nullopt; }

  // Whether the user stopped the command (Ctrl-C in the debugger); once true, true until the
  // command ends. Asked now and then while a command runs (WorkBudget), so it may cost a
  // debugger call; a command stopped so fails with "interrupted", and what it read at the stop
  // is not kept (reads it made fail may have failed for that alone).
  virtual bool Interrupted() { return false; }
};

}  // namespace pyunwind
