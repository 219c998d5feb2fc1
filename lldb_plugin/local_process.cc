#include "lldb_plugin/local_process.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <lldb/API/SBError.h>
#include <lldb/API/SBFrame.h>
#include <lldb/API/SBThread.h>

#include "lldb_plugin/lldb_target.h"
#include "lldb_plugin/traced_by.h"

namespace pyunwind_lldb {
namespace {

// The thread IDs under /proc/PID/task; empty if it cannot be read.
std::set<uint64_t> HostTasks(uint64_t pid) {
  std::set<uint64_t> tasks;
  const std::string path = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return tasks;
  while (dirent* entry = readdir(dir)) {
    char* end = nullptr;
    const unsigned long long tid = std::strtoull(entry->d_name, &end, 10);
    if (end != entry->d_name && *end == '\0') tasks.insert(tid);
  }
  closedir(dir);
  return tasks;
}

}  // namespace

bool IsThisHostsProcess(lldb::SBProcess& process, uint64_t pid, const pyunwind::ProcMem& mem) {
  if (!mem.IsOpen()) return false;
  // The server LLDB started traces the process: no round trip to it is needed (0.4 ms).
  if (TracedByChildOf(pid, static_cast<uint64_t>(getpid()), process.GetNumThreads())) return true;

  std::set<uint64_t> lldb_threads;
  const uint32_t count = process.GetNumThreads();
  for (uint32_t i = 0; i < count; ++i) {
    lldb::SBThread thread = process.GetThreadAtIndex(i);
    if (thread.IsValid()) lldb_threads.insert(thread.GetThreadID());
  }
  if (lldb_threads.empty() || lldb_threads != HostTasks(pid)) return false;

  lldb::SBThread thread = process.GetSelectedThread();
  if (!thread.IsValid()) thread = process.GetThreadAtIndex(0);
  if (!thread.IsValid()) return false;
  lldb::SBFrame frame = thread.GetFrameAtIndex(0);
  if (!frame.IsValid()) return false;
  const uint64_t sp = frame.GetSP();
  if (sp == 0 || sp == LLDB_INVALID_ADDRESS) return false;

  constexpr size_t kSample = 512;
  std::vector<unsigned char> via_lldb(kSample), via_proc(kSample);
  // 512 bytes: one line of LLDB's memory cache, read as the pages around it (read_span.h).
  if (!ReadThroughLldb(process, sp, via_lldb.data(), kSample, MemoryCacheLineSize(process))) {
    return false;
  }
  if (!mem.Read(sp, via_proc.data(), kSample)) return false;
  return via_lldb == via_proc;
}

}  // namespace pyunwind_lldb
