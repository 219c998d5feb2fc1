#include "lldb_plugin/read_only_sections.h"

#include <lldb/API/SBAddress.h>
#include <lldb/API/SBData.h>
#include <lldb/API/SBError.h>
#include <lldb/API/SBSection.h>

#include "core/base/limits.h"

namespace pyunwind_lldb {

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
  if (offset > in_file || size > in_file - offset) return false;
  lldb::SBData data = section.GetSectionData(offset, size);
  lldb::SBError error;
  return data.IsValid() && data.GetByteSize() == size &&
         data.ReadRawData(error, 0, out, size) == size && error.Success();
}

}  // namespace pyunwind_lldb
