#include "lldb_plugin/lldb_target.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <lldb/API/SBAddress.h>
#include <lldb/API/SBError.h>
#include <lldb/API/SBFileSpec.h>
#include <lldb/API/SBFrame.h>
#include <lldb/API/SBMemoryRegionInfo.h>
#include <lldb/API/SBMemoryRegionInfoList.h>
#include <lldb/API/SBModule.h>
#include <lldb/API/SBPlatform.h>
#include <lldb/API/SBSection.h>
#include <lldb/API/SBSymbol.h>
#include <lldb/API/SBSymbolContext.h>
#include <lldb/API/SBSymbolContextList.h>
#include <lldb/API/SBThread.h>

#include "core/target/elf_load_bias.h"
#include "lldb_plugin/local_process.h"
#include "lldb_plugin/read_only_sections.h"

namespace pyunwind_lldb {
namespace {

// IsThisHostsProcess for `process`, checked once per process: the check reads the stack
// through LLDB (0.5 ms a command), and its answer holds as long as LLDB's process does (a new
// attach or launch is a new process with a new unique ID). The last process asked about is
// remembered.
bool IsThisHostsProcessOnce(lldb::SBProcess& process, uint64_t pid,
                            const pyunwind::ProcMem& mem) {
  struct Verdict {
    uint32_t unique_id = 0;
    uint64_t pid = 0;
    bool this_host = false;
  };
  static std::mutex mutex;
  static std::optional<Verdict> last;
  const uint32_t unique_id = process.GetUniqueID();
  std::lock_guard lock(mutex);
  if (!last || last->unique_id != unique_id || last->pid != pid) {
    last = Verdict{unique_id, pid, IsThisHostsProcess(process, pid, mem)};
  }
  return last->this_host;
}

}  // namespace

LldbTarget::LldbTarget(lldb::SBTarget target, lldb::SBProcess process,
                       lldb::SBCommandInterpreter interpreter)
    : target_(target), process_(process), interpreter_(interpreter) {
  const char* plugin = process_.GetPluginName();
  const char* platform = target_.GetPlatform().GetName();
  const bool live_on_this_host = plugin && std::string_view(plugin) != "elf-core" && platform &&
                                 std::string_view(platform) == "host";
  if (live_on_this_host && process_.GetProcessID() != LLDB_INVALID_PROCESS_ID) {
    proc_mem_ = std::make_unique<pyunwind::ProcMem>(process_.GetProcessID());
    // A gdb-remote process's PID may name another process here (local_process.h).
    if (!IsThisHostsProcessOnce(process_, process_.GetProcessID(), *proc_mem_)) proc_mem_.reset();
  } else if (plugin && std::string_view(plugin) == "elf-core") {
    core_file_ = CoreFileOf(process_, *this);  // compared with SB reads: core_file_ is unset yet
    is_core_ = true;
  }
}

std::optional<uint64_t> LldbTarget::LocalProcessId() {
  if (!proc_mem_) return std::nullopt;
  return process_.GetProcessID();
}

std::optional<pyunwind::ProcessUser> LldbTarget::CoreUser() {
  if (!core_file_) return std::nullopt;
  return core_file_->reader->CoreUser();
}

std::string LldbTarget::MemorySourceNote() {
  if (proc_mem_) return "memory: /proc/" + std::to_string(process_.GetProcessID()) + "/mem";
  if (core_file_) return "memory: the core file " + core_file_->path + ", read directly";
  return "memory: through LLDB (SBProcess::ReadMemory)";
}

bool LldbTarget::ReadMemory(uint64_t address, void* out, size_t size) {
  if (size == 0) return true;
  if (proc_mem_ && proc_mem_->Read(address, out, size)) return true;
  if (core_file_ && core_file_->reader->ReadMemory(address, out, size)) return true;
  // A read through LLDB may be a round trip to a remote server: each asks for Ctrl-C.
  if (Interrupted()) return false;
  if (cache_line_size_ == 0) cache_line_size_ = MemoryCacheLineSize(process_);
  if (ReadThroughLldb(process_, address, out, size, cache_line_size_)) return true;
  // What a core left out: its read-only file mappings, from the files LLDB loaded.
  return is_core_ && ReadFromReadOnlySection(target_, address, out, size);
}

bool LldbTarget::Interrupted() {
  if (!interrupted_ && interpreter_.IsValid()) interrupted_ = interpreter_.WasInterrupted();
  return interrupted_;
}

std::optional<uint64_t> LldbTarget::FindSymbol(std::string_view name) {
  const std::string key(name);
  lldb::SBSymbolContextList contexts = target_.FindSymbols(key.c_str());
  for (uint32_t i = 0; i < contexts.GetSize(); ++i) {
    lldb::SBSymbol symbol = contexts.GetContextAtIndex(i).GetSymbol();
    if (!symbol.IsValid()) continue;
    lldb::addr_t address = symbol.GetStartAddress().GetLoadAddress(target_);
    if (address != LLDB_INVALID_ADDRESS) return address;
  }
  return std::nullopt;
}

std::vector<pyunwind::MemoryRegion> LldbTarget::MemoryRegions() {
  std::vector<pyunwind::MemoryRegion> regions;
  lldb::SBMemoryRegionInfoList list = process_.GetMemoryRegions();
  const uint32_t count = list.GetSize();
  regions.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    lldb::SBMemoryRegionInfo info;
    if (!list.GetMemoryRegionAtIndex(i, info)) continue;
    // LLDB also lists the unmapped gaps between regions; they are not memory.
    if (!info.IsMapped()) continue;
    pyunwind::MemoryRegion region;
    region.start = info.GetRegionBase();
    region.end = info.GetRegionEnd();
    region.readable = info.IsReadable();
    region.writable = info.IsWritable();
    if (const char* name = info.GetName()) region.name = name;
    regions.push_back(std::move(region));
  }
  if (regions.empty() && IsGdbRemote()) return ProgramSegmentsFromTheStack();
  // LLDB names no region of a core: its files come from the core's NT_FILE note, as GDB's do
  // (then py-heap's writable anonymous memory is the same figure in both).
  if (core_file_) pyunwind::NameRegionsAfterFiles(regions, core_file_->reader->FileMappings());
  return regions;
}

bool LldbTarget::IsGdbRemote() {
  const char* plugin = process_.GetPluginName();
  return plugin != nullptr && std::string_view(plugin) == "gdb-remote";
}

std::vector<pyunwind::MemoryRegion> LldbTarget::ProgramSegmentsFromTheStack() {
  // The main thread still has the first stack, with the auxiliary vector at its top: its ID is
  // the process's, or (qemu's stub calls every process 1) the stub lists it first.
  lldb::SBThread main_thread = process_.GetThreadByID(process_.GetProcessID());
  if (!main_thread.IsValid()) main_thread = process_.GetThreadAtIndex(0);
  if (!main_thread.IsValid()) return {};
  const uint64_t sp = main_thread.GetFrameAtIndex(0).GetSP();
  if (sp == 0 || sp == LLDB_INVALID_ADDRESS) return {};
  const auto auxv = pyunwind::AuxvProgramHeadersOnStack(*this, sp);
  if (!auxv) return {};
  return pyunwind::ProgramSegments(*this, auxv->phdr, auxv->phnum, auxv->phent, "");
}

std::string LldbTarget::WhyNoMemoryRegions() {
  if (!IsGdbRemote()) return "";
  // A stub that lists no regions (qemu-user's) and no auxiliary vector on the main thread's
  // stack (ProgramSegmentsFromTheStack) leave LLDB nothing to search without the executable.
  return "LLDB lists no memory regions of this remote process and its main thread's stack shows "
         "no auxiliary vector to find the executable by: give LLDB the executable (target create "
         "EXE, then gdb-remote)";
}

namespace {

// Load bias of `module` in `target`: where its first loaded byte is minus
// where the file says it is. nullopt when the module is not loaded.
std::optional<uint64_t> LoadBias(lldb::SBModule& module, lldb::SBTarget& target) {
  lldb::SBAddress header = module.GetObjectFileHeaderAddress();
  if (header.IsValid()) {
    lldb::addr_t load = header.GetLoadAddress(target);
    lldb::addr_t file = header.GetFileAddress();
    if (load != LLDB_INVALID_ADDRESS && file != LLDB_INVALID_ADDRESS) return load - file;
  }
  for (size_t i = 0; i < module.GetNumSections(); ++i) {
    lldb::SBSection section = module.GetSectionAtIndex(i);
    lldb::addr_t load = section.GetLoadAddress(target);
    lldb::addr_t file = section.GetFileAddress();
    if (load != LLDB_INVALID_ADDRESS && file != LLDB_INVALID_ADDRESS) return load - file;
  }
  return std::nullopt;
}

std::string PathOf(const lldb::SBFileSpec& spec) {
  char buffer[4096];
  uint32_t length = spec.GetPath(buffer, sizeof buffer);
  if (length == 0 || length + 1 >= sizeof buffer) return {};  // none or cut short
  return std::string(buffer, length);
}

}  // namespace

std::vector<pyunwind::LoadedModule> LldbTarget::Modules() {
  std::vector<pyunwind::LoadedModule> modules;
  const uint32_t count = target_.GetNumModules();
  for (uint32_t i = 0; i < count; ++i) {
    lldb::SBModule module = target_.GetModuleAtIndex(i);
    if (!module.IsValid()) continue;
    std::optional<uint64_t> bias = LoadBias(module, target_);
    if (!bias) continue;
    modules.push_back({PathOf(module.GetFileSpec()), *bias});
  }
  return modules;
}

std::vector<uint64_t> LldbTarget::ThreadIds() {
  std::vector<uint64_t> ids;
  const uint32_t count = process_.GetNumThreads();
  ids.reserve(count);
  for (uint32_t i = 0; i < count; ++i) {
    lldb::SBThread thread = process_.GetThreadAtIndex(i);
    if (thread.IsValid()) ids.push_back(thread.GetThreadID());
  }
  return ids;
}

// SBThread::GetName: the OS thread name LLDB read (/proc/PID/task/TID/comm
// for a live Linux process); nullptr where it has none. An ELF core's notes
// name no thread: LLDB gives its first thread the process's name from
// NT_PRPSINFO (pr_fname), which is not a thread's name, so none for cores.
std::optional<std::string> LldbTarget::ThreadName(uint64_t thread_id) {
  const char* plugin = process_.GetPluginName();
  if (plugin != nullptr && std::string_view(plugin) == "elf-core") return std::nullopt;
  lldb::SBThread thread = process_.GetThreadByID(thread_id);
  if (!thread.IsValid()) return std::nullopt;
  const char* name = thread.GetName();
  if (name == nullptr || *name == '\0') return std::nullopt;
  return std::string(name, strnlen(name, 4096));
}

}  // namespace pyunwind_lldb
