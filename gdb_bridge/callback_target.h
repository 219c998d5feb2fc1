// A pyunwind::Target over the C callbacks of pyunwind_c_api.h, and the
// parsers of the text the callbacks return.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/target/proc_executable.h"
#include "core/target/proc_mem.h"
#include "core/target/target.h"
#include "gdb_bridge/gdb_listings.h"
#include "gdb_bridge/pyunwind_c_api.h"

namespace pyunwind::gdb {

// Decimal ids separated by white space; anything else skipped.
std::vector<uint64_t> ParseThreadIds(std::string_view text);
// Lines "PC\tFUNCTION\tMODULE"; PC hex. A line without a PC is a frame with pc 0.
std::vector<NativeFrame> ParseNativeFrames(std::string_view text);

class CallbackTarget : public Target {
 public:
  explicit CallbackTarget(const pyunwind_callbacks& callbacks)
      : callbacks_(callbacks), proc_mem_(callbacks.live_pid) {}

  // From /proc/PID/mem where the host gave a live PID, else (and where that
  // fails) through read_memory; a read of a core's left-out segment that GDB
  // answers with zeros fails (InCoreHole).
  bool ReadMemory(uint64_t address, void* out, size_t size) override;
  // Live: single pages, as LLDB's (a pread is cheap; py-bt --all on 3,069
  // frames fetches 1.2 MB into one 2 MiB slab instead of 2.9 MB into two, for
  // py-tasks' 100,000 tasks about 60 ms more in reads). A core: four pages, as a
  // read_memory call is a Python call (bench/README.md).
  uint64_t PagesPerFetch() const override { return proc_mem_.IsOpen() ? 1 : 4; }
  std::optional<uint64_t> FindSymbol(std::string_view name) override;
  // Each list is asked of the host once per command, when first needed.
  // Regions and modules come from GDB's listings (gdb_listings.h).
  std::vector<MemoryRegion> MemoryRegions() override;
  std::vector<LoadedModule> Modules() override;
  std::vector<uint64_t> ThreadIds() override;
  std::vector<NativeFrame> NativeFrames(uint64_t thread_id) override;
  std::optional<uint64_t> StackPointer(uint64_t thread_id) override;
  std::optional<std::string> ThreadName(uint64_t thread_id) override;
  // The host's `interrupted`, until it first says yes. Asked after every other callback too,
  // whose answer is then dropped: a Python callback stopped by Ctrl-C at its first
  // instruction returns whatever ctypes left in the return slot (seen: 1, a stack address).
  bool Interrupted() override;
  // The host's live_pid (a process on this host, GDB's native target), else none.
  std::optional<uint64_t> LocalProcessId() override {
    if (callbacks_.live_pid == 0) return std::nullopt;
    return callbacks_.live_pid;
  }
  // "GDB 13.1", as the front-end names its debugger; "" when it does not.
  std::string DebuggerVersion();

 private:
  pyunwind_callbacks callbacks_;
  ProcMem proc_mem_;
  // A text callback's answer, or null when the host was interrupted during the call.
  const char* TextAnswer(const char* text);
  // The text of a debugger command; "" when it fails or there is no callback.
  std::string Command(const char* command);
  const std::vector<GdbMapping>& Mappings();
  std::optional<uint64_t> LocalSymbol(std::string_view name);
  // A core's loadN sections (none for a live or remote process), asked once.
  const std::vector<MemoryRegion>& CoreSections();
  // Whether the read lies partly in a core segment without bytes that no file GDB has
  // covers (gdb_listings.h LeftOutOfCore); `info files` is asked at the first such read.
  bool InCoreHole(uint64_t address, size_t size);

  // A live process's executable, opened at the first symbol asked (null: it cannot be).
  std::optional<std::optional<ProcessExecutable>> executable_;

  std::optional<std::vector<GdbMapping>> mappings_;
  std::optional<std::vector<MemoryRegion>> regions_;
  std::optional<std::vector<MemoryRegion>> core_sections_;
  std::optional<std::vector<MemoryRegion>> file_sections_;
  std::optional<std::vector<LoadedModule>> modules_;
  std::optional<std::vector<uint64_t>> thread_ids_;
  bool interrupted_ = false;
};

}  // namespace pyunwind::gdb
