#include "core/target/elf_core_target.h"

#include <elf.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/base/limits.h"

namespace pyunwind {
namespace {

// All `size` bytes at `offset` of the file; false when it ends before (cut short since it was
// indexed) or cannot be read.
bool ReadFileAt(int fd, uint64_t offset, uint8_t* out, uint64_t size) {
  while (size > 0) {
    const ssize_t n = ::pread(fd, out, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    out += n;
    offset += static_cast<uint64_t>(n);
    size -= static_cast<uint64_t>(n);
  }
  return true;
}

}  // namespace

void NameRegionsAfterFiles(std::vector<MemoryRegion>& regions,
                           const std::vector<MemoryRegion>& files) {
  for (MemoryRegion& region : regions) {
    if (!region.name.empty()) continue;
    auto after = std::upper_bound(files.begin(), files.end(), region.start,
                                  [](uint64_t a, const MemoryRegion& f) { return a < f.start; });
    // Mappings do not overlap: only the last one starting at or before can hold it.
    if (after != files.begin() && region.start < std::prev(after)->end) {
      region.name = std::prev(after)->name;
    }
  }
}

// NT_FILE (64-bit Linux): count, page size, count {start, end, file offset in pages}, then
// count NUL-terminated file names.
void ElfCoreTarget::ReadFileNote(const uint8_t* desc, uint64_t size) {
  uint64_t count = 0;
  if (size < 16) return;
  std::memcpy(&count, desc, 8);
  if (count > kMaxCoreFileMappings || count * 24 > size - 16) return;
  std::vector<MemoryRegion> files(count);
  const char* names = reinterpret_cast<const char*>(desc) + 16 + count * 24;
  const char* const end = reinterpret_cast<const char*>(desc) + size;
  for (uint64_t i = 0; i < count; ++i) {
    std::memcpy(&files[i].start, desc + 16 + i * 24, 8);
    std::memcpy(&files[i].end, desc + 16 + i * 24 + 8, 8);
    const char* nul = static_cast<const char*>(std::memchr(names, 0, size_t(end - names)));
    if (nul == nullptr || files[i].end <= files[i].start) return;  // cut short, or damaged
    files[i].name.assign(names, std::min<size_t>(size_t(nul - names), kMaxStringLength));
    files[i].writable = false;
    names = nul + 1;
  }
  std::sort(files.begin(), files.end(),
            [](const MemoryRegion& a, const MemoryRegion& b) { return a.start < b.start; });
  files_ = std::move(files);
}

Result<std::unique_ptr<ElfCoreTarget>> ElfCoreTarget::Open(const std::string& path) {
  RegularFile file = RegularFile::Open(path);
  PYU_ASSIGN_OR_RETURN(ElfImage image, ElfImage::Map(file, path, "core file"));
  std::unique_ptr<ElfCoreTarget> target(new ElfCoreTarget(std::move(image), std::move(file)));
  PYU_RETURN_IF_ERROR(target->Index());
  return target;
}

Result<std::unique_ptr<ElfCoreTarget>> ElfCoreTarget::FromBytes(const uint8_t* image, size_t size) {
  PYU_ASSIGN_OR_RETURN(ElfImage elf, ElfImage::Over(image, size, "core file"));
  std::unique_ptr<ElfCoreTarget> target(new ElfCoreTarget(std::move(elf), RegularFile()));
  PYU_RETURN_IF_ERROR(target->Index());
  return target;
}

Status ElfCoreTarget::Index() {
  if (image_.header().e_type != ET_CORE) return MakeError("not a 64-bit ELF core file");
  auto headers = image_.ProgramHeaders();
  if (!headers.ok()) return MakeError("the core file's program headers are cut off");
  const uint8_t* bytes = image_.bytes();
  const size_t size = image_.size();
  for (const Elf64_Phdr& ph : *headers) {
    if (ph.p_type == PT_LOAD && ph.p_memsz > 0) {
      Segment segment{ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz, (ph.p_flags & PF_W) != 0};
      // A truncated core holds less than its headers promise.
      if (segment.file_offset > size) segment.file_size = 0;
      segment.file_size =
          std::min<uint64_t>(segment.file_size, size - std::min<uint64_t>(segment.file_offset, size));
      segments_.push_back(segment);
    } else if (ph.p_type == PT_NOTE && ph.p_offset < size) {
      uint64_t pos = ph.p_offset;
      const uint64_t end = std::min<uint64_t>(size, ph.p_offset + ph.p_filesz);
      while (pos + sizeof(Elf64_Nhdr) <= end) {
        Elf64_Nhdr note;
        std::memcpy(&note, bytes + pos, sizeof note);
        const uint64_t name_size = (uint64_t{note.n_namesz} + 3) & ~3ull;
        const uint64_t desc_size = (uint64_t{note.n_descsz} + 3) & ~3ull;
        const uint64_t desc = pos + sizeof note + name_size;
        if (desc + desc_size > end) break;
        // struct elf_prstatus: pr_pid is at offset 32 on 64-bit Linux (x86-64 and arm64, and
        // in qemu-user's cores of arm64 processes).
        if (note.n_type == NT_PRSTATUS && note.n_descsz >= 36) {
          int32_t pid;
          std::memcpy(&pid, bytes + desc + 32, 4);
          thread_ids_.push_back(static_cast<uint32_t>(pid));
        }
        // struct elf_prpsinfo on 64-bit Linux (136 bytes; 32-bit ids on x86-64 and arm64):
        // pr_uid at 16, pr_gid at 20.
        if (note.n_type == NT_PRPSINFO && note.n_descsz >= 136 && !user_) {
          ProcessUser user;
          std::memcpy(&user.uid, bytes + desc + 16, 4);
          std::memcpy(&user.gid, bytes + desc + 20, 4);
          user_ = user;
        }
        if (note.n_type == NT_FILE && files_.empty()) ReadFileNote(bytes + desc, note.n_descsz);
        pos = desc + desc_size;
      }
    }
  }
  if (segments_.empty()) return MakeError("the core file has no memory segments");
  std::sort(segments_.begin(), segments_.end(),
            [](const Segment& a, const Segment& b) { return a.address < b.address; });
  return Ok{};
}

bool ElfCoreTarget::ReadMemory(uint64_t address, void* out, size_t size) {
  auto* dest = static_cast<uint8_t*>(out);
  while (size > 0) {
    auto it = std::upper_bound(segments_.begin(), segments_.end(), address,
                               [](uint64_t a, const Segment& s) { return a < s.address; });
    if (it == segments_.begin()) return false;
    const Segment& segment = *std::prev(it);
    const uint64_t in_segment = address - segment.address;
    if (in_segment >= segment.memory_size) return false;
    const uint64_t chunk = std::min<uint64_t>(size, segment.memory_size - in_segment);
    // Bytes past what the file holds were not dumped (read-only file
    // mappings) or were cut off: unreadable, as a debugger would say.
    if (in_segment + chunk > segment.file_size) return false;
    const uint64_t offset = segment.file_offset + in_segment;
    if (file_.fd() >= 0) {
      if (!ReadFileAt(file_.fd(), offset, dest, chunk)) return false;
    } else {
      std::memcpy(dest, image_.bytes() + offset, chunk);
    }
    dest += chunk;
    address += chunk;
    size -= chunk;
  }
  return true;
}

std::vector<MemoryRegion> ElfCoreTarget::MemoryRegions() {
  std::vector<MemoryRegion> regions;
  for (const Segment& segment : segments_) {
    if (segment.file_size == 0) continue;
    regions.push_back({segment.address, segment.address + segment.file_size, true, segment.writable, ""});
  }
  NameRegionsAfterFiles(regions, files_);
  return regions;
}

}  // namespace pyunwind
