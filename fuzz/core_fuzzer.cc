// libFuzzer target: the whole pipeline (runtime location, threads, frames,
// code objects, location tables, locals reprs, asyncio tasks, formatting) over
// a memory image made from the input. See README.md.
//
// Inputs:
//   "\x7fELF..."  an ELF core image, read by ElfCoreTarget::FromBytes
//                 (seeds: real fixture cores shrunk by make_seed).
//   "PYUS..."     a compact interpreter state (make_seed's .state files):
//                   u8 thread count, that many u32 thread ids, then records of
//                   u64 page address (bit 0: writable), u64 mask of the
//                   page's 64-byte pieces present (the others are zero), and
//                   those pieces. Expanded into an ELF core. Mutating this
//                   mutates real pointers, counts and strings directly.
//   anything else the bytes as one writable mapping at 0x10000000 (the
//                 runtime scan over arbitrary memory).
// Each command must return data or one error line; JSON output must parse.
// Time and memory are bounded by libFuzzer's -timeout and -rss_limit_mb
// (run.sh).
#include <elf.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/commands/commands.h"
#include "core/target/elf_core_target.h"

namespace {

constexpr uint64_t kPage = 4096;
constexpr size_t kMaxStatePages = 2048;  // 8 MiB of expanded image at most

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
  Elf64_Ehdr h{};
  std::memcpy(h.e_ident, ELFMAG, SELFMAG);
  h.e_ident[EI_CLASS] = ELFCLASS64;
  h.e_ident[EI_DATA] = ELFDATA2LSB;
  h.e_ident[EI_VERSION] = EV_CURRENT;
  h.e_type = ET_CORE;
  h.e_machine = EM_X86_64;
  h.e_version = EV_CURRENT;
  h.e_phoff = sizeof h;
  h.e_ehsize = sizeof h;
  h.e_phentsize = sizeof(Elf64_Phdr);
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
    Segment s{key & ~(kPage - 1), (key & 1) != 0, std::vector<uint8_t>(kPage)};
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

struct Invocation {
  std::string name;
  std::vector<std::string> args;
  bool json;
};

const std::vector<Invocation>& Invocations() {
  static const std::vector<Invocation> invocations = [] {
    std::vector<Invocation> list;
    for (const pyunwind::CommandInfo& info : pyunwind::AllCommands()) {
      const bool has_json = info.help.find("--json") != std::string::npos;
      if (info.name == "py-bt") {
        list.push_back({"py-bt", {"--all", "--json"}, true});
        list.push_back({"py-bt", {"--verbose"}, false});  // the selected thread, as text
        if (info.help.find("--locals") != std::string::npos) {
          list.push_back({"py-bt", {"--all", "--locals", "--json"}, true});
          list.push_back({"py-bt", {"--all", "--locals"}, false});
        }
      } else if (info.name == "py-tasks") {
        list.push_back({"py-tasks", {"--json"}, true});
        list.push_back({"py-tasks", {"--tree"}, false});
        list.push_back({"py-tasks", {"--running"}, false});
      } else if (has_json) {
        list.push_back({info.name, {"--json"}, true});
      } else if (info.name.rfind("py-bt", 0) != 0 && info.name != "py-up" &&
                 info.name != "py-down") {
        // py-locals, py-frame, py-list: about the selected thread's innermost frame.
        list.push_back({info.name, {}, false});
      }
    }
    return list;
  }();
  return invocations;
}

[[noreturn]] void Fail(const Invocation& inv, const std::string& why, const std::string& text) {
  std::fprintf(stderr, "core_fuzzer: %s", inv.name.c_str());
  for (const std::string& a : inv.args) std::fprintf(stderr, " %s", a.c_str());
  std::fprintf(stderr, ": %s\n--- output:\n%.2000s\n", why.c_str(), text.c_str());
  std::abort();
}

void RunAll(pyunwind::Target& target) {
  const std::vector<uint64_t> tids = target.ThreadIds();
  for (const Invocation& inv : Invocations()) {
    pyunwind::CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
    if (!tids.empty()) context.selected_thread_id = tids.front();
    const pyunwind::CommandOutput out = pyunwind::RunCommand(inv.name, inv.args, context);
    if (out.text.empty() || out.text.back() != '\n') Fail(inv, "output does not end a line", out.text);
    if (out.failed) {
      if (out.text.rfind("pyunwind: ", 0) != 0) Fail(inv, "error without 'pyunwind: '", out.text);
      if (out.text.find('\n') != out.text.size() - 1) Fail(inv, "error of several lines", out.text);
      continue;
    }
    if (inv.json && !nlohmann::json::accept(out.text)) Fail(inv, "JSON does not parse", out.text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> image;
  const uint8_t* bytes = data;
  size_t length = size;
  if (size >= 4 && std::memcmp(data, "PYUS", 4) == 0) {
    image = ExpandState(data, size);
  } else if (!(size >= 4 && std::memcmp(data, ELFMAG, SELFMAG) == 0)) {
    std::vector<uint8_t> raw(data, data + size);
    raw.resize((size + kPage - 1) / kPage * kPage);
    if (raw.empty()) return 0;
    image = MakeCore({1}, {Segment{0x10000000, true, std::move(raw)}});
  }
  if (!image.empty()) {
    bytes = image.data();
    length = image.size();
  }
  auto target = pyunwind::ElfCoreTarget::FromBytes(bytes, length);
  if (!target.ok()) return 0;
  RunAll(**target);
  return 0;
}
