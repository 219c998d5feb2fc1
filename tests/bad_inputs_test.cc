// The bad-input table of fuzz/README.md, core level: each row is a test that
// damages a real fixture core (or builds a hostile one) and checks what the
// commands say. The contract for every row: the command returns (within a time
// bound) either one error line "pyunwind: ..." or its normal output with a
// warning and a visible truncation mark where it had to stop; never a crash,
// never several error lines, never silence about damage it met.
//
// The debugger-level rows (no target, a non-Python process, a process that
// exits while being read, a running process) are tests/e2e/bad_inputs_test.cc.
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/commands/commands.h"
#include "core/target/elf_core_target.h"
#include "core/target/memory.h"
#include "core/runtime/runtime_locator.h"
#include "core/walk/threads.h"
#include "fuzz/elf64_header.h"
#include "tests/fixture_cores.h"

namespace pyunwind {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kThisFile[] = "tests/bad_inputs_test.cc";
constexpr double kSecondsPerCommand = 30;  // generous: ASan builds, shared CI machines

// <shared>/fixtures/cores (PYUNWIND_SHARED_DIR, else "shared" beside the checkout); empty if absent.
fs::path CoresDir() {
  const fs::path fixtures = testing::SharedFixtures(kThisFile);
  return fixtures.empty() ? fixtures : fixtures / "cores";
}

// A fixture core decompressed (sparse) into the test's temp dir once, and mapped
// privately: each Core may be patched without touching the file or other Cores.
struct Core {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::vector<Elf64_Phdr> loads;
  json meta;

  Core() = default;
  Core(const Core&) = delete;
  ~Core() {
    if (data) ::munmap(const_cast<uint8_t*>(data), size);
  }

  std::optional<size_t> FileOffset(uint64_t address, size_t n) const {
    for (const Elf64_Phdr& ph : loads) {
      if (address >= ph.p_vaddr && address + n <= ph.p_vaddr + ph.p_filesz) {
        return ph.p_offset + (address - ph.p_vaddr);
      }
    }
    return std::nullopt;
  }
  bool Write(uint64_t address, const void* bytes, size_t n) {
    auto at = FileOffset(address, n);
    if (!at || *at + n > size) return false;
    std::memcpy(const_cast<uint8_t*>(data) + *at, bytes, n);
    return true;
  }
  template <typename T>
  bool Put(uint64_t address, T value) {
    return Write(address, &value, sizeof value);
  }
  template <typename T>
  T Get(uint64_t address) const {
    T value{};
    auto at = FileOffset(address, sizeof value);
    if (at) std::memcpy(&value, data + *at, sizeof value);
    return value;
  }
  uint64_t runtime() const {
    return std::stoull(meta["runtime"]["address"].get<std::string>(), nullptr, 16);
  }
};

// <cores>/<name>/core.xz, privately mapped; nullptr (the test skips) when absent.
std::unique_ptr<Core> LoadCore(const std::string& name) {
  const fs::path dir = CoresDir() / name;
  if (!fs::exists(dir / "core.xz")) return nullptr;
  std::string flat = name;
  for (char& c : flat) c = c == '/' ? '_' : c;
  const std::string path = testing::TestTempPath(flat + ".core");
  if (!fs::exists(path)) {
    const std::string command = "xz -dc '" + (dir / "core.xz").string() +
                                "' | cp --sparse=always /dev/stdin '" + path + ".part' && mv '" +
                                path + ".part' '" + path + "'";
    if (std::system(command.c_str()) != 0) return nullptr;
  }
  auto core = std::make_unique<Core>();
  const int fd = ::open(path.c_str(), O_RDONLY);
  struct stat info;
  if (fd < 0 || ::fstat(fd, &info) != 0) return nullptr;
  void* p = ::mmap(nullptr, info.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (p == MAP_FAILED) return nullptr;
  core->data = static_cast<const uint8_t*>(p);
  core->size = info.st_size;
  std::ifstream meta(dir / "meta.json");
  core->meta = json::parse(meta);
  Elf64_Ehdr h;
  std::memcpy(&h, core->data, sizeof h);
  for (size_t i = 0; i < h.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, core->data + h.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD) core->loads.push_back(ph);
  }
  return core;
}

// Why a fixture core cannot be loaded: where it was looked for.
std::string MissingCore(const std::string& name) {
  const fs::path cores = CoresDir();
  if (cores.empty()) return testing::SharedFixturesMissing(kThisFile);
  return "no fixture core " + name + " in " + cores.string();
}

#define LOAD_OR_SKIP(var, name)                              \
  auto var##_loaded = LoadCore(name);                        \
  if (!var##_loaded) GTEST_SKIP() << MissingCore(name);      \
  Core& var = *var##_loaded

struct Outcome {
  bool opened = true;  // ElfCoreTarget accepted the image
  std::string open_error;
  CommandOutput out;
  double seconds = 0;
};

// Runs one command over `image` as the fuzz target and the tools do.
Outcome RunOn(const uint8_t* image, size_t size, std::vector<std::string> command) {
  Outcome o;
  auto target = ElfCoreTarget::FromBytes(image, size);
  if (!target.ok()) {
    o.opened = false;
    o.open_error = target.error().message;
    return o;
  }
  CommandContext context{**target, std::nullopt, false, std::nullopt, std::nullopt};
  const auto tids = (*target)->ThreadIds();
  if (!tids.empty()) context.selected_thread_id = tids.front();
  const std::string name = command.front();
  command.erase(command.begin());
  const auto start = std::chrono::steady_clock::now();
  o.out = RunCommand(name, command, context);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return o;
}
Outcome RunOn(const Core& core, std::vector<std::string> command) {
  return RunOn(core.data, core.size, std::move(command));
}

// What the bad-input table of docs/limits.md shows: the test log holds each row's output.
void Show(const std::string& row, const Outcome& o) {
  std::cout << "=== " << row << " (" << o.seconds << " s)\n"
            << (o.opened ? o.out.text.substr(0, 1500) : "open: " + o.open_error + "\n");
}

// One error line, "pyunwind: ..." (or a refusal to open the file at all).
void ExpectOneErrorLine(const Outcome& o, const std::string& needle = "") {
  EXPECT_LT(o.seconds, kSecondsPerCommand);
  if (!o.opened) {
    EXPECT_FALSE(o.open_error.empty());
    return;
  }
  EXPECT_TRUE(o.out.failed) << o.out.text;
  EXPECT_EQ(o.out.text.rfind("pyunwind: ", 0), 0u) << o.out.text;
  EXPECT_EQ(o.out.text.find('\n'), o.out.text.size() - 1) << "more than one line:\n" << o.out.text;
  if (!needle.empty()) { EXPECT_NE(o.out.text.find(needle), std::string::npos) << o.out.text; }
}

// Either one error line, or a JSON document that parses.
void ExpectDataOrOneErrorLine(const Outcome& o) {
  EXPECT_LT(o.seconds, kSecondsPerCommand);
  if (!o.opened || o.out.failed) return ExpectOneErrorLine(o);
  EXPECT_TRUE(json::accept(o.out.text)) << o.out.text.substr(0, 2000);
}

json Json(const Outcome& o) { return json::parse(o.out.text); }

// The thread walk of an (intact) core: addresses to damage.
Snapshot Walk(Core& core) {
  auto target = ElfCoreTarget::FromBytes(core.data, core.size);
  EXPECT_TRUE(target.ok());
  RemoteMemory memory(**target);
  auto location = LocateRuntime(memory);
  EXPECT_TRUE(location.ok()) << location.error().message;
  ObjectReader objects(memory, location->layout);
  CodeCache codes(objects);
  auto snapshot = WalkRuntime(objects, codes, location->address, WalkOptions{});
  EXPECT_TRUE(snapshot.ok());
  return *snapshot;
}

Layout LayoutOf(Core& core) {
  auto target = ElfCoreTarget::FromBytes(core.data, core.size);
  RemoteMemory memory(**target);
  return LocateRuntime(memory)->layout;
}

const std::vector<std::string> kPyBtAllJson = {"py-bt", "--all", "--json"};

// "No wrong frames": each thread of a damaged core's `py-bt --all --json` is a thread
// of the intact core, its frames are the intact thread's innermost frames in order
// (a line may become unknown where a location table was lost), and a stack shorter
// than the intact one says why it stops ("truncated": "<reason>").
void ExpectNoFrameTheIntactCoreLacks(const json& damaged, const json& intact) {
  std::map<uint64_t, const json*> intact_threads;
  for (const auto& interp : intact["interpreters"]) {
    for (const auto& thread : interp["threads"]) {
      intact_threads[thread["native_id"].get<uint64_t>()] = &thread;
    }
  }
  ASSERT_FALSE(intact_threads.empty());
  for (const auto& interp : damaged["interpreters"]) {
    for (const auto& thread : interp["threads"]) {
      ASSERT_TRUE(thread["native_id"].is_number()) << thread.dump();
      const auto found = intact_threads.find(thread["native_id"].get<uint64_t>());
      ASSERT_NE(found, intact_threads.end()) << "a thread the intact core lacks: " << thread.dump();
      const json& frames = thread["frames"];
      const json& whole = (*found->second)["frames"];
      ASSERT_LE(frames.size(), whole.size()) << thread.dump();
      for (size_t i = 0; i < frames.size(); ++i) {
        SCOPED_TRACE("frame " + std::to_string(i));
        EXPECT_EQ(frames[i]["filename"], whole[i]["filename"]);
        EXPECT_EQ(frames[i]["qualname"], whole[i]["qualname"]);
        if (!frames[i]["line"].is_null()) {
          EXPECT_EQ(frames[i]["line"], whole[i]["line"]);
        }
      }
      if (frames.size() < whole.size()) {
        ASSERT_TRUE(thread["truncated"].is_string())
            << frames.size() << " of " << whole.size() << " frames, silently: " << thread.dump();
        EXPECT_NE(thread["truncated"].get<std::string>(), "") << thread.dump();
      }
    }
  }
}

// ------------------------------------------------------------------ not Python

// A core of a program that is not Python: memory with no runtime in it.
TEST(BadInputs, CoreOfANonPythonProgram) {
  // The memory of a C program: code-like and heap-like bytes, pointers into itself.
  std::vector<uint8_t> image(64 + 2 * 56 + 3 * 4096);
  Elf64_Ehdr h = fuzz::X86_64ElfHeader(ET_CORE);
  h.e_phoff = 64;
  h.e_phnum = 2;
  std::memcpy(image.data(), &h, sizeof h);
  const uint64_t base = 0x555555554000;
  for (int i = 0; i < 2; ++i) {
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_flags = i == 0 ? PF_R | PF_X : PF_R | PF_W;
    ph.p_vaddr = base + i * 0x1000;
    ph.p_offset = 64 + 2 * 56 + i * 0x1000;
    ph.p_filesz = ph.p_memsz = i == 0 ? 0x1000 : 0x2000;
    std::memcpy(image.data() + 64 + i * 56, &ph, sizeof ph);
  }
  std::mt19937_64 random(7);
  for (size_t at = 64 + 2 * 56; at + 8 <= image.size(); at += 8) {
    const uint64_t word = random() % 3 == 0 ? base + random() % 0x3000 : random();
    std::memcpy(image.data() + at, &word, 8);
  }
  for (const auto& command : {kPyBtAllJson, {"py-tasks", "--json"}, {"py-bt"}}) {
    Outcome o = RunOn(image.data(), image.size(), command);
    Show("core of a non-Python program: " + command[0], o);
    ExpectOneErrorLine(o, "not a Python process");
  }
}

// Not an ELF core at all (a text file, an executable): refused when opened.
TEST(BadInputs, NotACoreFile) {
  const std::string text(4096, 'x');
  Outcome o = RunOn(reinterpret_cast<const uint8_t*>(text.data()), text.size(), kPyBtAllJson);
  Show("not an ELF core", o);
  EXPECT_FALSE(o.opened);
  EXPECT_EQ(o.open_error, "not a 64-bit ELF core file");
  o = RunOn(reinterpret_cast<const uint8_t*>(text.data()), 10, kPyBtAllJson);
  EXPECT_EQ(o.open_error, "not an ELF core file: too short");
  // A core of a big-endian machine (s390x, ppc64): its pointers would be read backwards.
  std::vector<uint8_t> big_endian(4096);
  Elf64_Ehdr h = fuzz::X86_64ElfHeader(ET_CORE);
  h.e_ident[EI_DATA] = ELFDATA2MSB;
  std::memcpy(big_endian.data(), &h, sizeof h);
  o = RunOn(big_endian.data(), big_endian.size(), kPyBtAllJson);
  EXPECT_FALSE(o.opened);
  EXPECT_EQ(o.open_error, "a big-endian ELF core file: pyunwind reads little-endian targets only");
}

// ------------------------------------------------------------------ truncated

// A core cut at 10%, 50% and 90% of its size (a copy that stopped, a full disk),
// and inside its headers.
TEST(BadInputs, TruncatedCores) {
  for (const char* name : {"3.11.2/threads", "3.14.7/threads"}) {
    LOAD_OR_SKIP(core, name);
    const json intact = Json(RunOn(core, kPyBtAllJson));
    for (double fraction : {0.0001, 0.1, 0.5, 0.9}) {
      SCOPED_TRACE(std::string(name) + " cut at " + std::to_string(fraction));
      const size_t size = static_cast<size_t>(core.size * fraction);
      for (const auto& command : {kPyBtAllJson, {"py-tasks", "--json"}}) {
        Outcome o = RunOn(core.data, size, command);
        Show(std::string(name) + " cut at " + std::to_string(fraction) + ": " + command[0], o);
        ExpectDataOrOneErrorLine(o);
        if (o.opened && !o.out.failed && command[0] == "py-bt") {
          ExpectNoFrameTheIntactCoreLacks(Json(o), intact);
        }
      }
    }
  }
}

// ------------------------------------------------------------------ _PyRuntime

// The bytes of _PyRuntime overwritten with random data.
TEST(BadInputs, RuntimeOverwrittenWithRandomBytes) {
  for (const char* name : {"3.11.2/threads", "3.13.15/threads", "3.14.7/threads"}) {
    LOAD_OR_SKIP(core, name);
    std::mt19937_64 random(11);
    for (uint64_t at = core.runtime(); at < core.runtime() + 4096; at += 8) {
      ASSERT_TRUE(core.Put<uint64_t>(at, random()));
    }
    for (const auto& command : {kPyBtAllJson, {"py-tasks", "--json"}}) {
      Outcome o = RunOn(core, command);
      Show(std::string(name) + " runtime overwritten: " + command[0], o);
      ExpectOneErrorLine(o, "not a Python process");
    }
  }
}

// ------------------------------------------------------------------ cycles

// A frame whose `previous` leads back to a newer frame of the same thread.
TEST(BadInputs, CyclicFrameList) {
  for (const char* name : {"3.11.2/threads", "3.14.7/threads"}) {
    LOAD_OR_SKIP(core, name);
    const Layout layout = LayoutOf(core);
    const Snapshot snapshot = Walk(core);
    const Thread* deep = nullptr;
    for (const Thread& t : snapshot.interpreters.at(0).threads) {
      if (t.frames.size() >= 4 && (!deep || t.frames.size() > deep->frames.size())) deep = &t;
    }
    ASSERT_NE(deep, nullptr);
    // The third frame's previous -> the first: 1, 2, 3, 1, 2, 3, ...
    ASSERT_TRUE(core.Put<uint64_t>(deep->frames[2].frame_address + layout.frame.previous,
                                   deep->frames[0].frame_address));
    Outcome o = RunOn(core, kPyBtAllJson);
    Show(std::string(name) + " cyclic frame list", o);
    ASSERT_FALSE(o.out.failed) << o.out.text;
    const json doc = Json(o);
    bool seen = false;
    for (const auto& thread : doc["interpreters"][0]["threads"]) {
      if (thread["native_id"] != *deep->native_id) continue;
      seen = true;
      ASSERT_TRUE(thread["truncated"].is_string()) << thread.dump();
      EXPECT_NE(thread["truncated"].get<std::string>().find("loop"), std::string::npos)
          << thread.dump();
      EXPECT_LE(thread["frames"].size(), 3u);
    }
    EXPECT_TRUE(seen);
    Outcome text = RunOn(core, {"py-bt", "--all"});
    EXPECT_NE(text.out.text.find("truncated"), std::string::npos) << text.out.text;
  }
}

// The last thread state's `next` leads back to the first.
TEST(BadInputs, CyclicThreadList) {
  for (const char* name : {"3.11.2/threads", "3.14.7/threads"}) {
    LOAD_OR_SKIP(core, name);
    const Layout layout = LayoutOf(core);
    const Snapshot snapshot = Walk(core);
    const auto& threads = snapshot.interpreters.at(0).threads;
    ASSERT_GE(threads.size(), 2u);
    // The list as CPython links it, newest first: the last one's next -> the head.
    const uint64_t head =
        core.Get<uint64_t>(snapshot.interpreters[0].address + layout.interp.threads_head);
    uint64_t last = head;
    while (uint64_t next = core.Get<uint64_t>(last + layout.tstate.next)) last = next;
    ASSERT_TRUE(core.Put<uint64_t>(last + layout.tstate.next, head));
    Outcome o = RunOn(core, kPyBtAllJson);
    Show(std::string(name) + " cyclic thread list", o);
    ASSERT_FALSE(o.out.failed) << o.out.text;
    const json doc = Json(o);
    EXPECT_EQ(doc["interpreters"][0]["threads"].size(), threads.size());
    EXPECT_NE(doc.dump().find("the thread list loops"), std::string::npos)
        << "no warning about the loop";
    Outcome tasks = RunOn(core, {"py-tasks", "--json"});
    ExpectDataOrOneErrorLine(tasks);
  }
}

// ------------------------------------------------------------------ huge sizes

// A code object whose name says it is 1 GiB long: cut at the string limit, marked,
// and the command reads little.
TEST(BadInputs, CodeNameClaimsToBeOneGiB) {
  for (const char* name : {"3.11.2/threads", "3.14.7/threads"}) {
    LOAD_OR_SKIP(core, name);
    const Layout layout = LayoutOf(core);
    const Snapshot snapshot = Walk(core);
    const Frame& frame = snapshot.interpreters.at(0).threads.at(0).frames.at(0);
    const uint64_t name_object = core.Get<uint64_t>(frame.code_address + layout.code.name);
    ASSERT_TRUE(core.Put<int64_t>(name_object + layout.unicode.length, int64_t{1} << 30));
    Outcome o = RunOn(core, {"py-bt", "--all", "--json", "--stats"});
    Show(std::string(name) + " co_name of 1 GiB", o);
    ASSERT_FALSE(o.out.failed) << o.out.text;
    const json doc = Json(o);
    const json& shown = doc["interpreters"][0]["threads"][0]["frames"][0];
    const std::string shown_name = shown.value("name", "");
    EXPECT_LE(shown_name.size(), 4 * kMaxStringLength + 16);
    EXPECT_NE(shown_name.find("..."), std::string::npos) << shown.dump();
    EXPECT_LT(o.seconds, 5);
  }
}

// ------------------------------------------------------------------ versions

// The _Py_DebugOffsets block of a 3.13 or 3.15 core claims another version.
TEST(BadInputs, UnsupportedVersion) {
  const uint64_t version_field = 8;  // after the "xdebugpy" cookie
  struct Case {
    const char* core;
    uint64_t hexversion;
    const char* expect;  // in the error line; "" = works, with a warning
  } cases[] = {
      {"3.13.15/threads", 0x030A0CF0, "3.10"},  // older than any _Py_DebugOffsets
      {"3.13.15/threads", 0x040000F0, "no CPython 3 release"},
      // 3.16 is read with the newest layout known (3.15) only where the block still lines
      // up with it: 3.13's block does not, 3.15's does (and gets a warning).
      {"3.13.15/threads", 0x031000A1, "Python 3.16.0a1 is newer than 3.15, and its "
                                      "_Py_DebugOffsets block does not match the 3.15 layout"},
      {"3.15.2/threads", 0x031000A1, ""},
  };
  for (const Case& c : cases) {
    LOAD_OR_SKIP(damaged, c.core);
    ASSERT_TRUE(damaged.Put<uint64_t>(damaged.runtime() + version_field, c.hexversion));
    Outcome o = RunOn(damaged, kPyBtAllJson);
    Show(std::string(c.core) + " debug offsets claiming version " + std::to_string(c.hexversion), o);
    if (*c.expect) {
      ExpectOneErrorLine(o, c.expect);
    } else {
      ASSERT_FALSE(o.out.failed) << o.out.text;
      EXPECT_NE(o.out.text.find("newer than the newest"), std::string::npos) << o.out.text;
    }
  }
}

// The debug offsets say free-threaded on a default build, or the reverse.
TEST(BadInputs, FreeThreadedDefaultMismatch) {
  for (const char* name : {"3.14.7/threads", "3.14.7t/threads"}) {
    LOAD_OR_SKIP(core, name);
    const uint64_t flag = core.runtime() + 16;  // cookie, version, free_threaded
    const json intact = Json(RunOn(core, kPyBtAllJson));
    const uint64_t was = core.Get<uint64_t>(flag);
    ASSERT_LE(was, 1u);
    ASSERT_TRUE(core.Put<uint64_t>(flag, 1 - was));
    for (const auto& command : {kPyBtAllJson, {"py-tasks", "--json"}}) {
      Outcome o = RunOn(core, command);
      Show(std::string(name) + " free_threaded flipped to " + std::to_string(1 - was) + ": " +
               command[0],
           o);
      ExpectDataOrOneErrorLine(o);
      if (o.opened && !o.out.failed && command[0] == "py-bt") {
        ExpectNoFrameTheIntactCoreLacks(Json(o), intact);
      }
    }
  }
}

}  // namespace
}  // namespace pyunwind
