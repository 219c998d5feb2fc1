// A core's memory regions named from its NT_FILE note (core/target/elf_core_target.h), over a
// hand-built core: two writable segments, the note mapping a file over the first. The region
// where a mapped file starts, or inside it, takes the file's name; the other none. A note of
// more than kMaxCoreFileMappings files, one cut short and one whose range is empty name
// nothing: every region then counts as anonymous memory.
#include <elf.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/base/limits.h"
#include "core/target/elf_core_target.h"
#include "fuzz/elf64_header.h"

namespace pyunwind {
namespace {

constexpr uint64_t kLibrary = 0x7f0000000000;  // the mapped file's data, 2 pages
constexpr uint64_t kAnonymous = 0x7f0000100000;

// An ELF core of two writable PT_LOAD segments of a page each (at kLibrary + a page and at
// kAnonymous) and a PT_NOTE holding one NT_FILE note of `desc`.
std::vector<uint8_t> CoreWith(const std::vector<uint8_t>& desc) {
  const size_t headers = sizeof(Elf64_Ehdr) + 3 * sizeof(Elf64_Phdr);
  const size_t note_size = sizeof(Elf64_Nhdr) + 8 + ((desc.size() + 3) & ~size_t{3});
  const size_t data = (headers + note_size + 4095) & ~size_t{4095};
  std::vector<uint8_t> image(data + 2 * 4096);
  Elf64_Ehdr header = fuzz::X86_64ElfHeader(ET_CORE);
  header.e_phoff = sizeof header;
  header.e_phnum = 3;
  std::memcpy(image.data(), &header, sizeof header);
  Elf64_Phdr note{PT_NOTE, 0, headers, 0, 0, note_size, 0, 4};
  Elf64_Phdr first{PT_LOAD, PF_R | PF_W, data, kLibrary + 4096, 0, 4096, 4096, 4096};
  Elf64_Phdr second{PT_LOAD, PF_R | PF_W, data + 4096, kAnonymous, 0, 4096, 4096, 4096};
  std::memcpy(image.data() + sizeof header, &note, sizeof note);
  std::memcpy(image.data() + sizeof header + sizeof note, &first, sizeof first);
  std::memcpy(image.data() + sizeof header + 2 * sizeof note, &second, sizeof second);
  const Elf64_Nhdr nhdr{5, uint32_t(desc.size()), NT_FILE};
  std::memcpy(image.data() + headers, &nhdr, sizeof nhdr);
  std::memcpy(image.data() + headers + sizeof nhdr, "CORE\0\0\0", 8);
  std::memcpy(image.data() + headers + sizeof nhdr + 8, desc.data(), desc.size());
  return image;
}

void Put(std::vector<uint8_t>& out, uint64_t value) {
  const auto* bytes = reinterpret_cast<const uint8_t*>(&value);
  out.insert(out.end(), bytes, bytes + 8);
}

// NT_FILE: count, page size, {start, end, page offset} each, then the names.
std::vector<uint8_t> FileNote(uint64_t count, uint64_t start, uint64_t end, const std::string& names) {
  std::vector<uint8_t> desc;
  Put(desc, count);
  Put(desc, 4096);
  Put(desc, start);
  Put(desc, end);
  Put(desc, 0);
  desc.insert(desc.end(), names.begin(), names.end());
  return desc;
}

std::vector<std::string> NamesOf(const std::vector<uint8_t>& core) {
  auto target = ElfCoreTarget::FromBytes(core.data(), core.size());
  EXPECT_TRUE(target.ok()) << target.error().message;
  std::vector<std::string> names;
  if (!target.ok()) return names;
  for (const MemoryRegion& region : (*target)->MemoryRegions()) names.push_back(region.name);
  return names;
}

TEST(CoreFileNames, TheMappedFileNamesTheRegionItHolds) {
  const std::string library("/usr/lib/libexample.so\0", 23);
  const auto names = NamesOf(CoreWith(FileNote(1, kLibrary, kLibrary + 2 * 4096, library)));
  EXPECT_EQ(names, (std::vector<std::string>{"/usr/lib/libexample.so", ""}));
}

TEST(CoreFileNames, ADamagedNoteNamesNothing) {
  const std::string library("/usr/lib/libexample.so\0", 23);
  const std::vector<std::string> none = {"", ""};
  // More files than the cap (the note then is cut short too: it is refused by its count).
  EXPECT_EQ(NamesOf(CoreWith(FileNote(kMaxCoreFileMappings + 1, kLibrary, kLibrary + 8192,
                                      library))),
            none);
  // A name without its NUL: the note ends first.
  EXPECT_EQ(NamesOf(CoreWith(FileNote(1, kLibrary, kLibrary + 8192, "/usr/lib/libexample.so"))),
            none);
  // An empty range.
  EXPECT_EQ(NamesOf(CoreWith(FileNote(1, kLibrary, kLibrary, library))), none);
}

}  // namespace
}  // namespace pyunwind
