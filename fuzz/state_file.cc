#include "fuzz/state_file.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

#include "fuzz/elf64_header.h"

namespace pyunwind::fuzz {
namespace {

void Append(std::vector<uint8_t>& out, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  out.insert(out.end(), p, p + size);
}

struct Segment {
  uint64_t address;
  bool writable;
  std::vector<uint8_t> bytes;
};

// An ELF core of `segments` with one NT_PRSTATUS note per thread id.
std::vector<uint8_t> MakeCore(const std::vector<uint32_t>& tids,
                              const std::vector<Segment>& segments) {
  std::vector<uint8_t> notes;
  for (uint32_t tid : tids) {
    Elf64_Nhdr note{5, 336, NT_PRSTATUS};  // sizeof(struct elf_prstatus) on x86-64
    Append(notes, &note, sizeof note);
    Append(notes, "CORE\0\0\0", 8);
    std::vector<uint8_t> desc(336);
    std::memcpy(desc.data() + 32, &tid, 4);
    Append(notes, desc.data(), desc.size());
  }
  Elf64_Ehdr h = X86_64ElfHeader(ET_CORE);
  h.e_phoff = sizeof h;
  h.e_phnum = 1 + segments.size();
  std::vector<uint8_t> out;
  Append(out, &h, sizeof h);
  uint64_t offset = sizeof h + h.e_phnum * sizeof(Elf64_Phdr);
  Elf64_Phdr note_ph{};
  note_ph.p_type = PT_NOTE;
  note_ph.p_offset = offset;
  note_ph.p_filesz = notes.size();
  Append(out, &note_ph, sizeof note_ph);
  offset += notes.size();
  for (const Segment& s : segments) {
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_flags = PF_R | (s.writable ? PF_W : 0);
    ph.p_vaddr = s.address;
    ph.p_offset = offset;
    ph.p_filesz = ph.p_memsz = s.bytes.size();
    Append(out, &ph, sizeof ph);
    offset += s.bytes.size();
  }
  Append(out, notes.data(), notes.size());
  for (const Segment& s : segments) Append(out, s.bytes.data(), s.bytes.size());
  return out;
}

}  // namespace

std::vector<uint8_t> ExpandState(const uint8_t* data, size_t size) {
  size_t pos = 4;
  std::vector<uint32_t> tids;
  if (pos < size) {
    const size_t count = data[pos++];
    for (size_t i = 0; i < count && pos + 4 <= size; ++i, pos += 4) {
      uint32_t tid;
      std::memcpy(&tid, data + pos, 4);
      tids.push_back(tid);
    }
  }
  std::vector<Segment> segments;
  while (pos + 16 <= size && segments.size() < kMaxStatePages) {
    uint64_t key, mask;
    std::memcpy(&key, data + pos, 8);
    std::memcpy(&mask, data + pos + 8, 8);
    pos += 16;
    Segment s{key & ~(kStatePage - 1), (key & 1) != 0, std::vector<uint8_t>(kStatePage)};
    for (int piece = 0; piece < 64; ++piece) {
      if (!(mask >> piece & 1)) continue;
      const size_t n = std::min<size_t>(64, size - pos);
      std::memcpy(s.bytes.data() + piece * 64, data + pos, n);
      pos += n;
    }
    // Consecutive pages of the same kind make one segment, as in a real core.
    if (!segments.empty() && segments.back().writable == s.writable &&
        segments.back().address + segments.back().bytes.size() == s.address) {
      segments.back().bytes.insert(segments.back().bytes.end(), s.bytes.begin(), s.bytes.end());
    } else {
      segments.push_back(std::move(s));
    }
  }
  return MakeCore(tids, segments);
}

std::vector<uint8_t> CoreOfOneMapping(uint64_t address, std::vector<uint8_t> bytes) {
  bytes.resize((bytes.size() + kStatePage - 1) / kStatePage * kStatePage);
  return MakeCore({1}, {Segment{address, true, std::move(bytes)}});
}

std::vector<uint8_t> EncodeState(const std::vector<uint64_t>& thread_ids,
                                 const std::vector<StatePage>& pages) {
  std::vector<uint8_t> state = {'P', 'Y', 'U', 'S'};
  const size_t count = std::min<size_t>(thread_ids.size(), 255);
  state.push_back(static_cast<uint8_t>(count));
  for (size_t i = 0; i < count; ++i) {
    const uint32_t tid = static_cast<uint32_t>(thread_ids[i]);
    Append(state, &tid, 4);
  }
  for (const StatePage& page : pages) {
    uint64_t mask = 0;
    for (size_t piece = 0; piece < 64; ++piece) {
      if (std::any_of(page.bytes.begin() + piece * 64, page.bytes.begin() + piece * 64 + 64,
                      [](uint8_t b) { return b != 0; })) {
        mask |= uint64_t{1} << piece;
      }
    }
    const uint64_t key = page.address | (page.writable ? 1 : 0);
    Append(state, &key, 8);
    Append(state, &mask, 8);
    for (size_t piece = 0; piece < 64; ++piece) {
      if (mask >> piece & 1) Append(state, page.bytes.data() + piece * 64, 64);
    }
  }
  return state;
}

}  // namespace pyunwind::fuzz
