#include "lldb_plugin/read_only_sections.h"

#include <algorithm>
#include <fstream>

#include <lldb/API/SBAddress.h>
#include <lldb/API/SBData.h>
#include <lldb/API/SBError.h>
#include <lldb/API/SBFileSpec.h>
#include <lldb/API/SBModule.h>
#include <lldb/API/SBSection.h>

#include "core/base/limits.h"

namespace pyunwind_lldb {
namespace {

constexpr uint64_t kPageSize = 4096;

// The bytes at [address, address + size) past a segment's file bytes, which end at load
// address `end`, where they lie on the segment's last page: mmap maps whole pages of the file,
// so they are the file's next bytes (the page cache reads whole pages, and a module's
// .rodata often ends mid-page: 2.7's lib-dynload modules keep their functions' names there).
bool ReadPageTail(lldb::SBModule module, lldb::SBSection& segment, uint64_t end,
                  uint64_t address, uint8_t* out, size_t size) {
  const uint64_t page_end = (end + kPageSize - 1) & ~(kPageSize - 1);
  if (address < end || address + size > page_end || !module.IsValid()) return false;
  char path[4096];
  if (module.GetFileSpec().GetPath(path, sizeof path) == 0) return false;
  std::ifstream file(path, std::ios::binary);
  const uint64_t at = segment.GetFileOffset() + segment.GetFileByteSize() + (address - end);
  if (!file.seekg(static_cast<std::streamoff>(at))) return false;
  file.read(reinterpret_cast<char*>(out), static_cast<std::streamsize>(size));
  return static_cast<size_t>(file.gcount()) == size;
}

}  // namespace

bool ReadFromReadOnlySection(lldb::SBTarget& target, uint64_t address, void* out, size_t size) {
  if (size == 0 || !target.IsValid()) return false;
  lldb::SBAddress resolved = target.ResolveLoadAddress(address);
  lldb::SBSection section = resolved.GetSection();
  // The segment (PT_LOAD) around .rodata, .text, ...: a read may cross their boundaries.
  for (size_t depth = 0; section.IsValid() && depth < pyunwind::kMaxSectionNesting; ++depth) {
    lldb::SBSection parent = section.GetParent();
    if (!parent.IsValid()) break;
    section = parent;
  }
  if (!section.IsValid()) return false;
  const uint32_t permissions = section.GetPermissions();
  if ((permissions & lldb::ePermissionsReadable) == 0 ||
      (permissions & lldb::ePermissionsWritable) != 0) {
    return false;
  }
  const uint64_t start = section.GetLoadAddress(target);
  if (start == LLDB_INVALID_ADDRESS || address < start) return false;
  const uint64_t offset = address - start;
  const uint64_t in_file = section.GetFileByteSize();
  if (offset > in_file) return false;
  // The segment's own bytes, then (a whole-page read past its end) what its last page maps.
  const size_t own = static_cast<size_t>(std::min<uint64_t>(size, in_file - offset));
  if (own < size && !ReadPageTail(resolved.GetModule(), section, start + in_file,
                                  address + own, static_cast<uint8_t*>(out) + own, size - own)) {
    return false;
  }
  if (own == 0) return true;
  lldb::SBData data = section.GetSectionData(offset, own);
  lldb::SBError error;
  return data.IsValid() && data.GetByteSize() == own &&
         data.ReadRawData(error, 0, out, own) == own && error.Success();
}

}  // namespace pyunwind_lldb
