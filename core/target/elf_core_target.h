// A Target over an ELF core file read directly (no debugger): the memory its
// PT_LOAD segments hold, named by the files of its NT_FILE note, and the threads of its
// NT_PRSTATUS notes. Used by tests, benchmarks and the fuzz target, and by the LLDB plugin
// to read a core's memory and name its regions (LLDB names none); GDB has its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/base/regular_file.h"
#include "core/base/result.h"
#include "core/target/elf_image.h"
#include "core/target/target.h"

namespace pyunwind {

// Names each unnamed region after the file mapped where it starts (`files`: ranges with names, sorted
// by start), as GDB names a core's loadN sections from the NT_FILE note's mappings.
void NameRegionsAfterFiles(std::vector<MemoryRegion>& regions,
                           const std::vector<MemoryRegion>& files);

class ElfCoreTarget : public Target {
 public:
  // Maps `path` and indexes its segments; refuses files that are not ELF cores. Memory is
  // then read with pread, not through the mapping: a debugger that reads a large core this
  // way keeps only the pages its cache holds, not every page it touched (LLDB's plugin).
  static Result<std::unique_ptr<ElfCoreTarget>> Open(const std::string& path);
  // Over bytes already in memory (the fuzz target); `image` must outlive this.
  static Result<std::unique_ptr<ElfCoreTarget>> FromBytes(const uint8_t* image, size_t size);

  bool ReadMemory(uint64_t address, void* out, size_t size) override;
  std::optional<uint64_t> FindSymbol(std::string_view) override { return std::nullopt; }
  std::vector<MemoryRegion> MemoryRegions() override;
  std::vector<uint64_t> ThreadIds() override { return thread_ids_; }
  std::optional<ProcessUser> CoreUser() override { return user_; }
  // The files the NT_FILE note maps (start, end, name), sorted by start; empty where the core
  // has no such note or one past kMaxCoreFileMappings entries or cut short.
  const std::vector<MemoryRegion>& FileMappings() const { return files_; }

 private:
  struct Segment {
    uint64_t address = 0;
    uint64_t memory_size = 0;
    uint64_t file_offset = 0;
    uint64_t file_size = 0;  // bytes present in the file (the rest reads as zero)
    bool writable = false;
  };
  ElfCoreTarget(ElfImage image, RegularFile file)
      : image_(std::move(image)), file_(std::move(file)) {}
  Status Index();
  void ReadFileNote(const uint8_t* desc, uint64_t size);

  ElfImage image_;
  RegularFile file_;  // open when the core came from a path; else reads copy from image_
  std::vector<Segment> segments_;  // sorted by address
  std::vector<uint64_t> thread_ids_;
  std::vector<MemoryRegion> files_;  // NT_FILE
  std::optional<ProcessUser> user_;  // NT_PRPSINFO's pr_uid and pr_gid
};

}  // namespace pyunwind
