// pyunwind::Target backed by LLDB's SB API: the core reads the debugged
// process (live or core file) through this and nothing else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <lldb/API/SBCommandInterpreter.h>
#include <lldb/API/SBProcess.h>
#include <lldb/API/SBTarget.h>

#include "core/target/proc_mem.h"
#include "core/target/target.h"
#include "lldb_plugin/core_file.h"
#include "lldb_plugin/read_through_lldb.h"

namespace pyunwind_lldb {

class LldbTarget final : public pyunwind::Target {
 public:
  // `interpreter`: the command interpreter the command runs in, whose Ctrl-C stops it.
  LldbTarget(lldb::SBTarget target, lldb::SBProcess process,
             lldb::SBCommandInterpreter interpreter = {});

  bool ReadMemory(uint64_t address, void* out, size_t size) override;
  // Each read is a pread (/proc/PID/mem, the core file) or an SB call that
  // moves bytes: single pages, so no page is fetched that is not used.
  uint64_t PagesPerFetch() const override { return 1; }
  std::optional<uint64_t> FindSymbol(std::string_view name) override;
  std::vector<pyunwind::MemoryRegion> MemoryRegions() override;
  std::string WhyNoMemoryRegions() override;
  std::vector<pyunwind::LoadedModule> Modules() override;
  std::vector<uint64_t> ThreadIds() override;
  std::optional<std::string> ThreadName(uint64_t thread_id) override;
  std::vector<pyunwind::NativeFrame> NativeFrames(uint64_t thread_id) override;  // native_frames.cc
  std::optional<uint64_t> StackPointer(uint64_t thread_id) override;            // native_frames.cc
  // LLDB's Ctrl-C (SBCommandInterpreter::WasInterrupted), until it first says yes.
  bool Interrupted() override;
  // This host's process that /proc/PID/mem reads; the core file's NT_PRPSINFO.
  std::optional<uint64_t> LocalProcessId() override;
  std::optional<pyunwind::ProcessUser> CoreUser() override;

  // Where memory is read from, for -v ("memory: ...").
  std::string MemorySourceNote();

 private:
  bool IsGdbRemote();
  // Where a remote stub lists no regions (qemu-user's gdbstub): the executable's segments from
  // its program headers, which the auxiliary vector on the main thread's stack locates.
  std::vector<pyunwind::MemoryRegion> ProgramSegmentsFromTheStack();

  lldb::SBTarget target_;
  lldb::SBProcess process_;
  lldb::SBCommandInterpreter interpreter_;
  bool interrupted_ = false;
  uint64_t cache_line_size_ = 0;  // LLDB's memory cache line, asked at the first read through it
  // A live process on this host is read through /proc/PID/mem; SB reads
  // remain the fallback (core files, remote targets, unreadable pages).
  std::unique_ptr<pyunwind::ProcMem> proc_mem_;
  // A core file LLDB has loaded is read by pread (core_file.h); SB reads remain the fallback
  // (bytes the core does not hold, a core not found among LLDB's mappings).
  std::shared_ptr<const CoreFile> core_file_;
  // An "elf-core" process: what its core left out is read from the module files
  // (read_only_sections.h).
  bool is_core_ = false;
};

}  // namespace pyunwind_lldb
