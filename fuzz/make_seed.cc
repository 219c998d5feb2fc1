// Shrinks a fixture core to the pages the unwinder reads, for the fuzz corpus:
//   make_seed IN.core OUT.core    (also writes OUT.core.state)
// Runs py-bt --all --json --stats, py-tasks --json (and every other command of
// AllCommands() that takes --json) on IN through a Target that records each
// page the page cache asks for, then writes an ELF core holding only those
// pages (plus IN's NT_PRSTATUS notes, so thread ids stay), then drops each
// page whose absence leaves every command's output the same: OUT prints
// exactly what IN prints, reading as many container entries (the same path through dicts).
// The commands run as the fuzz target runs them, with a zero _Py_HashSecret
// (zero_secret_target.h).
//
// The runtime scan's large uncached reads are not recorded: on the small core
// the scan finds the runtime in the few pages kept.
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/commands/commands.h"
#include "core/target/elf_core_target.h"
#include "fuzz/state_file.h"
#include "fuzz/zero_secret_target.h"

namespace {

constexpr uint64_t kPage = 4096;

class RecordingTarget final : public pyunwind::ForwardingTarget {
 public:
  explicit RecordingTarget(pyunwind::Target& inner) : ForwardingTarget(&inner) {}
  // Single pages, so that only the pages the walk needs are recorded.
  uint64_t PagesPerFetch() const override { return 1; }
  bool ReadMemory(uint64_t address, void* out, size_t size) override {
    const bool ok = ForwardingTarget::ReadMemory(address, out, size);
    if (ok && size == kPage && address % kPage == 0) pages.insert(address);
    return ok;
  }

  std::set<uint64_t> pages;
};

// `py-bt --all` runs with --stats, for how many dict, set and list entries it read: the same
// output from fewer pages may come down another path, e.g. a dict searched key by key because
// the string whose cached hash checks the secret was zeroed; the count tells them apart.
std::vector<std::vector<std::string>> Commands() {
  std::vector<std::vector<std::string>> commands = {{"py-bt", "--all", "--json", "--stats"}};
  for (const pyunwind::CommandInfo& info : pyunwind::AllCommands()) {
    if (info.name == "py-tasks") commands.push_back({"py-tasks", "--json"});
    if (info.name == "py-bt" && info.help.find("--locals") != std::string::npos) {
      commands.push_back({"py-bt", "--all", "--locals", "--json"});
    }
  }
  return commands;
}

// The document without its stats, whose times differ from run to run, and with the count of
// container entries read, which must not.
std::string WithEntriesReadOnly(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_object() || !json.contains("stats")) return text;
  const nlohmann::json::json_pointer spent("/stats/work/container_entries_read/spent");
  const int64_t count = json.value(spent, int64_t{-1});
  json.erase("stats");
  return json.dump() + "\ncontainer entries read: " + std::to_string(count);
}

std::vector<std::string> RunAll(pyunwind::Target& target) {
  std::vector<std::string> outputs;
  for (const auto& command : Commands()) {
    pyunwind::CommandContext context{target, std::nullopt, false, std::nullopt, std::nullopt};
    std::vector<std::string> args(command.begin() + 1, command.end());
    outputs.push_back(WithEntriesReadOnly(pyunwind::RunCommand(command[0], args, context).text));
  }
  return outputs;
}

// The input mapped read-only (free-threaded cores are ~1 GiB, mostly holes).
std::span<const uint8_t> MapWhole(const char* path) {
  const int fd = ::open(path, O_RDONLY);
  if (fd < 0) return {};
  struct stat info;
  if (::fstat(fd, &info) != 0 || info.st_size <= 0) return {};
  void* p = ::mmap(nullptr, info.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return {};
  return {static_cast<const uint8_t*>(p), static_cast<size_t>(info.st_size)};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s IN.core OUT.core\n", argv[0]);
    return 2;
  }
  const std::span<const uint8_t> in = MapWhole(argv[1]);
  auto target = pyunwind::ElfCoreTarget::FromBytes(in.data(), in.size());
  if (!target.ok()) {
    std::fprintf(stderr, "%s: %s\n", argv[1], target.error().message.c_str());
    return 1;
  }
  RecordingTarget recorder(**target);
  // The secret's page is not the core's: outside the recorder, never kept.
  pyunwind::fuzz::ZeroHashSecretTarget recorder_with_secret(recorder);
  const std::vector<std::string> expected = RunAll(recorder_with_secret);

  Elf64_Ehdr header;
  std::memcpy(&header, in.data(), sizeof header);
  std::vector<Elf64_Phdr> loads;
  std::vector<uint8_t> notes;  // the NT_PRSTATUS notes only: thread ids
  for (size_t i = 0; i < header.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, in.data() + header.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD) loads.push_back(ph);
    if (ph.p_type != PT_NOTE) continue;
    for (uint64_t pos = ph.p_offset; pos + sizeof(Elf64_Nhdr) <= ph.p_offset + ph.p_filesz;) {
      Elf64_Nhdr note;
      std::memcpy(&note, in.data() + pos, sizeof note);
      const uint64_t size =
          sizeof note + ((note.n_namesz + 3ull) & ~3ull) + ((note.n_descsz + 3ull) & ~3ull);
      if (note.n_type == NT_PRSTATUS) {
        notes.insert(notes.end(), in.begin() + pos, in.begin() + pos + size);
      }
      pos += size;
    }
  }
  auto flags_of = [&](uint64_t address) -> uint32_t {
    for (const Elf64_Phdr& ph : loads) {
      if (address >= ph.p_vaddr && address < ph.p_vaddr + ph.p_memsz) return ph.p_flags;
    }
    return PF_R;
  };
  pyunwind::ElfCoreTarget& full = **target;
  std::map<uint64_t, std::vector<uint8_t>> contents;  // page -> its bytes, as kept
  for (uint64_t page : recorder.pages) {
    std::vector<uint8_t>& bytes = contents[page];
    bytes.resize(kPage);
    full.ReadMemory(page, bytes.data(), kPage);
  }
  // An ELF core of `pages` (runs of consecutive pages with the same flags
  // become one PT_LOAD each) and the notes.
  auto build = [&](const std::set<uint64_t>& pages) {
    struct Run {
      uint64_t start, pages;
      uint32_t flags;
    };
    std::vector<Run> runs;
    for (uint64_t page : pages) {
      const uint32_t flags = flags_of(page);
      if (!runs.empty() && runs.back().start + runs.back().pages * kPage == page &&
          runs.back().flags == flags) {
        ++runs.back().pages;
      } else {
        runs.push_back({page, 1, flags});
      }
    }
    Elf64_Ehdr h = header;
    h.e_phoff = sizeof h;
    h.e_phnum = 1 + runs.size();
    h.e_shoff = h.e_shnum = h.e_shstrndx = 0;
    std::vector<Elf64_Phdr> phdrs;
    std::vector<uint8_t> body = notes;
    const uint64_t offset = sizeof h + h.e_phnum * sizeof(Elf64_Phdr);
    Elf64_Phdr note_ph{};
    note_ph.p_type = PT_NOTE;
    note_ph.p_offset = offset;
    note_ph.p_filesz = notes.size();
    note_ph.p_align = 4;
    phdrs.push_back(note_ph);
    for (const Run& run : runs) {
      Elf64_Phdr ph{};
      ph.p_type = PT_LOAD;
      ph.p_flags = run.flags;
      ph.p_vaddr = run.start;
      ph.p_memsz = ph.p_filesz = run.pages * kPage;
      ph.p_offset = offset + body.size();
      ph.p_align = kPage;
      const size_t at = body.size();
      body.resize(at + ph.p_filesz);
      for (uint64_t i = 0; i < run.pages; ++i) {
        const std::vector<uint8_t>& bytes = contents.at(run.start + i * kPage);
        std::memcpy(body.data() + at + i * kPage, bytes.data(), kPage);
      }
      phdrs.push_back(ph);
    }
    std::vector<uint8_t> out(sizeof h);
    std::memcpy(out.data(), &h, sizeof h);
    for (const Elf64_Phdr& ph : phdrs) {
      const auto* p = reinterpret_cast<const uint8_t*>(&ph);
      out.insert(out.end(), p, p + sizeof ph);
    }
    out.insert(out.end(), body.begin(), body.end());
    return out;
  };
  auto same_output = [&](const std::vector<uint8_t>& image) {
    auto small = pyunwind::ElfCoreTarget::FromBytes(image.data(), image.size());
    if (!small.ok()) return false;
    pyunwind::fuzz::ZeroHashSecretTarget small_with_secret(**small);
    return RunAll(small_with_secret) == expected;
  };

  // Drop every page the output does not need (read speculatively, or only to
  // rule a candidate out).
  std::set<uint64_t> pages = recorder.pages;
  const size_t recorded = pages.size();
  if (!same_output(build(pages))) {
    std::fprintf(stderr, "%s: the recorded pages do not reproduce the output\n", argv[1]);
    return 1;
  }
  for (uint64_t page : recorder.pages) {
    pages.erase(page);
    if (!same_output(build(pages))) pages.insert(page);
  }
  // Then zero every piece of the pages kept that the output does not need
  // (512 bytes, then 64 within what stays): the state file keeps only
  // pieces that are not zero.
  for (uint64_t page : pages) {
    std::vector<uint8_t>& bytes = contents.at(page);
    for (size_t piece : {512, 64}) {
      for (size_t at = 0; at < kPage; at += piece) {
        std::vector<uint8_t> saved(bytes.begin() + at, bytes.begin() + at + piece);
        if (std::all_of(saved.begin(), saved.end(), [](uint8_t b) { return b == 0; })) continue;
        std::fill(bytes.begin() + at, bytes.begin() + at + piece, 0);
        if (!same_output(build(pages))) std::copy(saved.begin(), saved.end(), bytes.begin() + at);
      }
    }
  }
  const std::vector<uint8_t> out = build(pages);
  // The same state in the fuzz target's compact form.
  std::vector<pyunwind::fuzz::StatePage> state_pages;
  for (uint64_t page : pages) {
    state_pages.push_back({page, (flags_of(page) & PF_W) != 0, contents.at(page)});
  }
  const std::vector<uint8_t> state = pyunwind::fuzz::EncodeState(full.ThreadIds(), state_pages);
  const std::string state_path = std::string(argv[2]) + ".state";
  FILE* sf = std::fopen(state_path.c_str(), "wb");
  if (!sf || std::fwrite(state.data(), 1, state.size(), sf) != state.size() ||
      std::fclose(sf) != 0) {
    std::fprintf(stderr, "cannot write %s\n", state_path.c_str());
    return 1;
  }
  FILE* f = std::fopen(argv[2], "wb");
  if (!f || std::fwrite(out.data(), 1, out.size(), f) != out.size() || std::fclose(f) != 0) {
    std::fprintf(stderr, "cannot write %s\n", argv[2]);
    return 1;
  }
  std::printf("%s: %zu of %zu recorded pages, %zu bytes (%s: %zu bytes); output of %zu commands "
              "unchanged\n",
              argv[2], pages.size(), recorded, out.size(), state_path.c_str(), state.size(),
              expected.size());
  return 0;
}
