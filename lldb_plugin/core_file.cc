#include "lldb_plugin/core_file.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <utility>
#include <vector>

namespace pyunwind_lldb {
namespace {

constexpr size_t kMaxMapsLines = 1 << 16;
constexpr size_t kCompareBytes = 256;
constexpr size_t kRememberedProcesses = 16;

// The files this process (LLDB) has mapped, each once, in the order of /proc/self/maps.
std::vector<std::string> MappedFiles() {
  std::vector<std::string> files;
  std::set<std::string> seen;
  std::ifstream maps("/proc/self/maps");
  std::string line;
  for (size_t n = 0; n < kMaxMapsLines && std::getline(maps, line); ++n) {
    // "start-end perms offset dev inode   /path": the path is the first '/' on.
    const size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    if (path.size() > 10 && path.compare(path.size() - 10, 10, " (deleted)") == 0) continue;
    if (seen.insert(path).second) files.push_back(std::move(path));
  }
  return files;
}

// Whether the core file `core` is the one LLDB shows as `lldb_view`: the same threads, and the
// same bytes at the start of its first, middle and last memory regions.
bool AgreesWith(pyunwind::ElfCoreTarget& core, pyunwind::Target& lldb_view) {
  std::vector<uint64_t> ours = core.ThreadIds();
  std::vector<uint64_t> lldbs = lldb_view.ThreadIds();
  std::sort(ours.begin(), ours.end());
  std::sort(lldbs.begin(), lldbs.end());
  if (ours.empty() || ours != lldbs) return false;
  const std::vector<pyunwind::MemoryRegion> regions = core.MemoryRegions();
  if (regions.empty()) return false;
  for (size_t index : {size_t{0}, regions.size() / 2, regions.size() - 1}) {
    const pyunwind::MemoryRegion& region = regions[index];
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kCompareBytes, region.end - region.start));
    std::vector<uint8_t> from_file(n);
    std::vector<uint8_t> from_lldb(n);
    if (!core.ReadMemory(region.start, from_file.data(), n) ||
        !lldb_view.ReadMemory(region.start, from_lldb.data(), n) || from_file != from_lldb) {
      return false;
    }
  }
  return true;
}

std::shared_ptr<const CoreFile> FindCoreFile(pyunwind::Target& lldb_view) {
  for (const std::string& path : MappedFiles()) {
    // Open refuses what is not a 64-bit ELF core (LLDB's libraries) from its header.
    auto core = pyunwind::ElfCoreTarget::Open(path);
    if (!core.ok() || !AgreesWith(**core, lldb_view)) continue;
    auto found = std::make_shared<CoreFile>();
    found->path = path;
    found->reader = std::move(*core);
    return found;
  }
  return nullptr;
}

}  // namespace

std::shared_ptr<const CoreFile> CoreFileOf(lldb::SBProcess process, pyunwind::Target& lldb_view) {
  // Keyed by the process's id unique within the LLDB session: a core loaded again is a new
  // process, found again.
  static std::mutex mutex;
  static auto* found = new std::map<uint32_t, std::shared_ptr<const CoreFile>>();
  const std::lock_guard<std::mutex> lock(mutex);
  const uint32_t key = process.GetUniqueID();
  if (auto it = found->find(key); it != found->end()) return it->second;
  if (found->size() >= kRememberedProcesses) found->clear();
  return (*found)[key] = FindCoreFile(lldb_view);
}

}  // namespace pyunwind_lldb
