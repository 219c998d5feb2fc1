#include "core/asyncio/asyncio_debug.h"

#include <fmt/format.h>

#include <cstring>
#include <optional>

#include "core/target/elf_sections.h"
#include "core/base/limits.h"
#include "core/target/memory_scan.h"

namespace pyunwind {
namespace {

// Where interp_size sits in the block: the scan looks for that value.
constexpr size_t kInterpSizeIndex = 7;
constexpr uint64_t kMaxTaskSize = 4096;
constexpr uint64_t kMaxThreadStateSize = 1 << 16;

Result<AsyncioDebugOffsets> ReadAt(RemoteMemory& memory, const Layout& layout, uint64_t address,
                                   std::string found_by) {
  uint8_t block[kAsyncioDebugSize];
  if (!memory.Read(address, block, sizeof block)) {
    return UnreadableMemory(
        fmt::format("cannot read the _asyncio debug offsets at {:#x} ({})", address, found_by));
  }
  PYU_ASSIGN_OR_RETURN(AsyncioDebugOffsets offsets, DecodeAsyncioDebug(block, layout));
  offsets.address = address;
  offsets.found_by = std::move(found_by);
  return offsets;
}

}  // namespace

Result<AsyncioDebugOffsets> DecodeAsyncioDebug(const uint8_t* block, const Layout& layout) {
  // Py_AsyncioModuleDebugOffsets: three structs of uint64 fields, in this order.
  using O = AsyncioDebugOffsets;
  static constexpr uint64_t O::*kFields[] = {
      &O::task_size, &O::task_name, &O::task_awaited_by, &O::task_is_task,
      &O::task_awaited_by_is_set, &O::task_coro, &O::task_node,
      &O::interp_size, &O::interp_tasks_head,
      &O::thread_size, &O::thread_running_loop, &O::thread_running_task, &O::thread_tasks_head};
  static_assert(sizeof kFields / sizeof kFields[0] * 8 == kAsyncioDebugSize);
  AsyncioDebugOffsets o;
  for (size_t i = 0; i < kAsyncioDebugSize / 8; ++i) std::memcpy(&(o.*kFields[i]), block + 8 * i, 8);

  if (layout.interp.size <= 0 || o.interp_size != static_cast<uint64_t>(layout.interp.size)) {
    return MakeError(ErrorKind::kRefusedLayout, fmt::format(
        "its interpreter state is {} bytes where _Py_DebugOffsets says {}", o.interp_size,
        layout.interp.size));
  }
  const uint64_t header = static_cast<uint64_t>(layout.object.ob_type) + 8;
  if (o.task_size <= header || o.task_size > kMaxTaskSize) {
    return MakeError(ErrorKind::kRefusedLayout,
                     fmt::format("a task of {} bytes is not plausible", o.task_size));
  }
  struct Field {
    const char* name;
    uint64_t offset, width, limit, min;
  };
  const Field fields[] = {
      {"task name", o.task_name, 8, o.task_size, header},
      {"task awaited_by", o.task_awaited_by, 8, o.task_size, header},
      {"task is_task", o.task_is_task, 1, o.task_size, header},
      {"task awaited_by_is_set", o.task_awaited_by_is_set, 1, o.task_size, header},
      {"task coro", o.task_coro, 8, o.task_size, header},
      {"task node", o.task_node, 16, o.task_size, header},
      {"interpreter tasks_head", o.interp_tasks_head, 16, o.interp_size, 0},
      {"thread running_loop", o.thread_running_loop, 8, o.thread_size, 0},
      {"thread running_task", o.thread_running_task, 8, o.thread_size, 0},
      {"thread tasks_head", o.thread_tasks_head, 16, o.thread_size, 0},
  };
  if (o.thread_size < static_cast<uint64_t>(layout.tstate.size) || o.thread_size > kMaxThreadStateSize) {
    return MakeError(ErrorKind::kRefusedLayout,
                     fmt::format("its thread state of {} bytes is smaller than PyThreadState ({})",
                                 o.thread_size, layout.tstate.size));
  }
  for (const Field& f : fields) {
    if (f.offset < f.min || f.offset + f.width > f.limit) {
      return MakeError(ErrorKind::kRefusedLayout,
                       fmt::format("the {} at {} lies outside its {}-byte struct", f.name,
                                   f.offset, f.limit));
    }
  }
  return o;
}

Result<AsyncioDebugOffsets> FindAsyncioDebug(RemoteMemory& memory, const Layout& layout) {
  Target& target = memory.target();
  std::optional<Error> first_error;
  auto note = [&](const Error& e) {
    if (!first_error) first_error = e;
  };
  if (auto address = target.FindSymbol("_AsyncioDebug")) {
    auto found = ReadAt(memory, layout, *address, "the _AsyncioDebug symbol");
    if (found.ok()) return found;
    note(found.error());
  }
  for (const LoadedModule& module : target.Modules()) {
    auto section = FindElfSection(module.path, ".AsyncioDebug");
    if (!section) continue;
    auto found = ReadAt(memory, layout, *section + module.load_bias,
                        "the .AsyncioDebug section of " + module.path);
    if (found.ok()) return found;
    note(found.error());
  }
  std::optional<AsyncioDebugOffsets> scanned;
  const std::vector<MemoryRegion> regions = target.MemoryRegions();
  const uint64_t wanted = static_cast<uint64_t>(layout.interp.size);
  const uint64_t before = 8 * kInterpSizeIndex;
  ScanWritableWords(memory, regions, kMaxBytesScannedForRuntime,
                    [&](uint64_t here, uint64_t word) {
                      if (word != wanted || here < before) return ScanStep::kContinue;
                      auto found = ReadAt(memory, layout, here - before,
                                          "a scan of writable memory");
                      if (!found.ok()) return ScanStep::kContinue;
                      scanned = *found;
                      return ScanStep::kStop;
                    });
  if (scanned) return *scanned;
  if (first_error) {
    return first_error->WithContext("the _asyncio debug offsets are not valid: ");
  }
  return MakeError(regions.empty()
                       ? "the _asyncio debug offsets were not found: no _AsyncioDebug symbol or "
                         ".AsyncioDebug section, and the debugger cannot list memory regions"
                       : "the _asyncio debug offsets were not found: no _AsyncioDebug symbol, "
                         ".AsyncioDebug section or block in writable memory (is _asyncio loaded?)");
}

}  // namespace pyunwind
