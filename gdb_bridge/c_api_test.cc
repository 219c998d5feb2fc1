// The C ABI with fake callbacks over an in-memory buffer: whatever the
// target looks like, a command returns text, never crashes, and a failure is
// one error line.
#include <dlfcn.h>
#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/target/elf_load_bias.h"
#include "core/target/target.h"
#include "gdb_bridge/callback_target.h"
#include "gdb_bridge/pyunwind_c_api.h"
#include "gdb_bridge/worker_relay.h"

// A global of this executable's own, looked up as _PyRuntime is in python's.
extern "C" {
__attribute__((used, visibility("default"))) int pyunwind_c_api_test_marker = 7;
}

namespace {

struct FakeTarget {
  uint64_t base = 0x10000;
  std::vector<uint8_t> memory = std::vector<uint8_t>(1 << 20, 0);
  bool reads_fail = false;
  uint64_t runtime_address = 0;  // 0: no symbol
  std::string regions;
  std::string threads = "101 102";
  int reads = 0;
};

int ReadMemory(void* ctx, uint64_t addr, void* buf, uint64_t size) {
  auto* t = static_cast<FakeTarget*>(ctx);
  ++t->reads;
  if (t->reads_fail) return 0;
  if (addr < t->base || addr - t->base > t->memory.size() ||
      size > t->memory.size() - (addr - t->base)) {
    return 0;
  }
  std::memcpy(buf, t->memory.data() + (addr - t->base), size);
  return 1;
}

int FindSymbol(void* ctx, const char* name, uint64_t* addr_out) {
  auto* t = static_cast<FakeTarget*>(ctx);
  if (t->runtime_address != 0 && std::strcmp(name, "_PyRuntime") == 0) {
    *addr_out = t->runtime_address;
    return 1;
  }
  return 0;
}

// The target's mappings as GDB's `info proc mappings` rows.
const char* DebuggerCommand(void* ctx, const char* command) {
  auto* t = static_cast<FakeTarget*>(ctx);
  return std::strcmp(command, "info proc mappings") == 0 ? t->regions.c_str() : nullptr;
}
const char* Threads(void* ctx) { return static_cast<FakeTarget*>(ctx)->threads.c_str(); }

pyunwind_callbacks CallbacksFor(FakeTarget& t) {
  pyunwind_callbacks cb{};
  cb.ctx = &t;
  cb.read_memory = ReadMemory;
  cb.find_symbol = FindSymbol;
  cb.debugger_command = DebuggerCommand;
  cb.thread_ids = Threads;
  return cb;
}

struct Ran {
  std::string text;
  int failed = -1;
};

Ran RunCmd(const pyunwind_callbacks* cb, const char* name, const char* args, int64_t thread = -1) {
  Ran ran;
  char* text = pyunwind_run_command(cb, name, args, thread, 0, &ran.failed);
  EXPECT_NE(text, nullptr);
  if (text != nullptr) ran.text = text;
  pyunwind_free(text);
  return ran;
}

void ExpectOneErrorLine(const Ran& ran) {
  EXPECT_EQ(ran.failed, 1) << ran.text;
  ASSERT_FALSE(ran.text.empty());
  EXPECT_EQ(ran.text.back(), '\n') << ran.text;
  EXPECT_EQ(ran.text.find('\n'), ran.text.size() - 1) << ran.text;
  EXPECT_GT(ran.text.size(), 1u);
}

std::vector<std::string> CommandNames() {
  std::vector<std::string> names;
  for (const auto& c : nlohmann::json::parse(pyunwind_commands())) {
    names.push_back(c.at("name").get<std::string>());
  }
  return names;
}

TEST(CApi, CommandsAreAJsonListWithHelp) {
  auto list = nlohmann::json::parse(pyunwind_commands());
  ASSERT_TRUE(list.is_array());
  ASSERT_FALSE(list.empty());
  bool has_py_bt = false;
  for (const auto& c : list) {
    EXPECT_FALSE(c.at("name").get<std::string>().empty());
    EXPECT_TRUE(c.at("summary").is_string());
    EXPECT_TRUE(c.at("help").is_string());
    has_py_bt |= c["name"] == "py-bt";
  }
  EXPECT_TRUE(has_py_bt);
  EXPECT_EQ(pyunwind_abi_version(), PYUNWIND_ABI_VERSION);
}

TEST(CApi, UnknownCommandIsOneErrorLine) {
  FakeTarget t;
  auto cb = CallbacksFor(t);
  ExpectOneErrorLine(RunCmd(&cb, "py-no-such-command", ""));
}

TEST(CApi, MissingCallbacksOrNameAreOneErrorLine) {
  ExpectOneErrorLine(RunCmd(nullptr, "py-bt", ""));
  FakeTarget t;
  auto cb = CallbacksFor(t);
  ExpectOneErrorLine(RunCmd(&cb, "", ""));
  ExpectOneErrorLine(RunCmd(&cb, nullptr, nullptr));
  pyunwind_callbacks no_reader = cb;
  no_reader.read_memory = nullptr;
  ExpectOneErrorLine(RunCmd(&no_reader, "py-bt", ""));
}

TEST(CApi, NoRuntimeIsOneErrorLineForEveryCommand) {
  FakeTarget t;  // zeroed memory, no symbol
  t.regions = "0x10000 0x110000 0x100000 0x0 rw-p\n";
  auto cb = CallbacksFor(t);
  for (const auto& name : CommandNames()) {
    if (name == "version") continue;  // reads no process (VersionNeedsNoProcess)
    SCOPED_TRACE(name);
    ExpectOneErrorLine(RunCmd(&cb, name.c_str(), ""));
  }
  ExpectOneErrorLine(RunCmd(&cb, "py-bt", "--all --json", 101));
}

TEST(CApi, FailedReadsAreOneErrorLine) {
  FakeTarget t;
  t.reads_fail = true;
  t.runtime_address = 0x20000;
  t.regions = "0x10000 0x110000 0x100000 0x0 rw-p /usr/bin/python3.11\n";
  auto cb = CallbacksFor(t);
  ExpectOneErrorLine(RunCmd(&cb, "py-bt", "--all"));
}

TEST(CApi, GarbageRuntimeDoesNotCrash) {
  FakeTarget t;
  for (size_t i = 0; i < t.memory.size(); ++i) t.memory[i] = static_cast<uint8_t>(i * 131 + 7);
  t.runtime_address = 0x20000;
  t.regions = "0x10000 0x110000 0x100000 0x0 rw-p\n";
  auto cb = CallbacksFor(t);
  for (const auto& name : CommandNames()) {
    SCOPED_TRACE(name);
    Ran ran = RunCmd(&cb, name.c_str(), "--all");
    EXPECT_GE(ran.failed, 0);
    EXPECT_FALSE(ran.text.empty());
    if (ran.failed == 1) ExpectOneErrorLine(ran);
  }
}

TEST(CApi, UnbalancedQuotesDoNotCrash) {
  FakeTarget t;
  auto cb = CallbacksFor(t);
  Ran ran = RunCmd(&cb, "py-bt", "\"--all \\");
  EXPECT_EQ(ran.failed, 1);
}

// What a debugger says when it has nothing to read is the library's line, the same for all.
TEST(CApi, ProcessStateIsRefusedInTheCoresWords) {
  FakeTarget t;
  auto cb = CallbacksFor(t);
  for (auto [state, expected] :
       {std::pair{PYUNWIND_NO_PROCESS,
                  "pyunwind: no process: attach to a process or load a core file first\n"},
        std::pair{PYUNWIND_RUNNING, "pyunwind: the process is running: stop it first (Ctrl-C)\n"}}) {
    pyunwind_stop stop{state, 1, 1, 0, 101, -1};
    int failed = -1;
    int64_t native_frame = 7;
    char* text = pyunwind_run_command_at(&cb, "py-bt", "", &stop, 0, &native_frame, &failed);
    ASSERT_NE(text, nullptr);
    EXPECT_EQ(std::string(text), expected);
    EXPECT_EQ(failed, 1);
    EXPECT_EQ(native_frame, -1);
    EXPECT_EQ(t.reads, 0);
    pyunwind_free(text);
  }
}

// A command run from a callback of a command still running (what is kept at the stop is the
// outer one's) fails in one line; the outer one runs to its end, and the next command runs.
// Also where the outer one runs on the library's thread (a live_pid and write_output: the
// callback runs on this thread while that one waits for it).
class NestedCommand : public ::testing::TestWithParam<bool> {};

TEST_P(NestedCommand, IsRefused) {
  const bool on_library_thread = GetParam();
  struct Nested {
    FakeTarget target;
    pyunwind_callbacks callbacks{};
    std::string inner_text;
    int inner_failed = -1;
    bool served = false;
  } nested;
  nested.callbacks = CallbacksFor(nested.target);
  nested.callbacks.ctx = &nested;
  nested.callbacks.read_memory = [](void*, uint64_t, void*, uint64_t) { return 0; };
  nested.callbacks.debugger_command = [](void*, const char*) -> const char* { return ""; };
  nested.callbacks.thread_ids = [](void*) -> const char* { return "101"; };
  if (on_library_thread) {
    nested.callbacks.live_pid = static_cast<uint64_t>(getpid());  // has no _PyRuntime
    nested.callbacks.write_output = [](void*, const char*, uint64_t) {};
  }
  nested.callbacks.find_symbol = [](void* ctx, const char*, uint64_t*) {
    auto* n = static_cast<Nested*>(ctx);
    if (n->inner_failed != -1) return 0;  // asked once
    n->served = pyunwind::gdb::WorkerRelay::Serving();
    pyunwind_stop stop{PYUNWIND_STOPPED, 1, 1, 0, 101, -1};
    char* text = pyunwind_run_command_at(&n->callbacks, "py-bt", "", &stop, 0, nullptr,
                                         &n->inner_failed);
    n->inner_text = text != nullptr ? text : "";
    pyunwind_free(text);
    return 0;
  };
  pyunwind_stop stop{PYUNWIND_STOPPED, 1, 1, 0, 101, -1};
  int failed = -1;
  char* text = pyunwind_run_command_at(&nested.callbacks, "py-bt", "", &stop, 0, nullptr, &failed);
  ASSERT_NE(text, nullptr);
  const std::string outer = text;
  pyunwind_free(text);
  EXPECT_EQ(nested.served, on_library_thread);
  EXPECT_EQ(nested.inner_text, "pyunwind: a pyunwind command is already running\n");
  EXPECT_EQ(nested.inner_failed, 1);
  EXPECT_EQ(failed, 1) << outer;  // no runtime in this target
  EXPECT_EQ(outer.find("already running"), std::string::npos) << outer;
  stop.stop_id = 1;
  failed = -1;
  text = pyunwind_run_command_at(&nested.callbacks, "py-bt", "", &stop, 0, nullptr, &failed);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(std::string(text).find("already running"), std::string::npos) << text;
  pyunwind_free(text);
}

INSTANTIATE_TEST_SUITE_P(CApi, NestedCommand, ::testing::Values(false, true),
                         [](const auto& info) {
                           return info.param ? "OnTheLibrarysThread" : "OnTheCallersThread";
                         });

// `pyunwind version` runs with no process, names the debugger the front-end gives, and
// lists the CPython minors the core knows, free-threaded where _Py_DebugOffsets says so.
TEST(CApi, VersionNeedsNoProcess) {
  FakeTarget t;
  auto cb = CallbacksFor(t);
  cb.debugger_version = [](void*) -> const char* { return "GDB 99.1"; };
  pyunwind_stop stop{PYUNWIND_NO_PROCESS, 0, 0, 0, -1, -1};
  int failed = -1;
  char* text = pyunwind_run_command_at(&cb, "version", "--json", &stop, 0, nullptr, &failed);
  ASSERT_NE(text, nullptr);
  const std::string out = text;
  pyunwind_free(text);
  ASSERT_EQ(failed, 0) << out;
  const auto doc = nlohmann::json::parse(out);
  EXPECT_EQ(doc.at("debugger"), "GDB 99.1");
  EXPECT_TRUE(doc.at("version").is_string());
  const std::string revision = doc.at("git_revision");
  EXPECT_TRUE(revision == "unknown" ||
              revision.find_first_not_of("0123456789abcdef") >= 40)  // 40 hex digits [-dirty]
      << revision;
  std::vector<std::string> versions, free_threaded;
  for (const auto& known : doc.at("cpython")) {
    versions.push_back(known.at("version"));
    for (const auto& build : known.at("builds")) {
      if (build == "free-threaded") free_threaded.push_back(known.at("version"));
    }
  }
  EXPECT_EQ(versions, (std::vector<std::string>{"2.7", "3.6", "3.7", "3.8", "3.9", "3.10", "3.11",
                                                "3.12", "3.13", "3.14", "3.15"}));
  EXPECT_EQ(free_threaded, (std::vector<std::string>{"3.13", "3.14", "3.15"}));
  EXPECT_EQ(t.reads, 0);
  // Text, and no debugger callback: "unknown".
  cb.debugger_version = nullptr;
  Ran ran = RunCmd(&cb, "version", "");
  EXPECT_EQ(ran.failed, 0);
  EXPECT_NE(ran.text.find("running in unknown\n"), std::string::npos) << ran.text;
  ExpectOneErrorLine(RunCmd(&cb, "version", "--bogus"));
  // Only under the prefix: its plain name is the debugger's own `version`.
  for (const auto& c : nlohmann::json::parse(pyunwind_commands())) {
    EXPECT_EQ(c.at("prefix_only").get<bool>(), c.at("name") == "version") << c.at("name");
  }
}

// bt's decoration at a stop: a target without Python says so (the script then
// leaves bt alone in that inferior), and is not searched again at the same stop.
TEST(CApi, FramesAtAStopSayWhetherThereIsPython) {
  FakeTarget t;  // zeroed memory, no symbol
  t.regions = "0x10000 0x110000 0x100000 0x0 rw-p\n";
  auto cb = CallbacksFor(t);
  pyunwind_stop stop{PYUNWIND_STOPPED, 77, 1, 5, 101, -1};
  int has_python = 7;
  char* text = pyunwind_python_frames_by_native_frame_at(&cb, &stop, &has_python);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(std::string(text), "{}");
  pyunwind_free(text);
  EXPECT_EQ(has_python, 0);
  const int reads = t.reads;
  EXPECT_GT(reads, 0);
  text = pyunwind_python_frames_by_native_frame_at(&cb, &stop, &has_python);
  pyunwind_free(text);
  EXPECT_EQ(has_python, 0);
  EXPECT_EQ(t.reads, reads);  // kept for the stop
  stop.stop_id = 6;
  text = pyunwind_python_frames_by_native_frame_at(&cb, &stop, &has_python);
  pyunwind_free(text);
  EXPECT_GT(t.reads, reads);  // the process ran: searched again
  // Not stopped: unknown, nothing read.
  stop.state = PYUNWIND_RUNNING;
  const int before = t.reads;
  text = pyunwind_python_frames_by_native_frame_at(&cb, &stop, &has_python);
  EXPECT_EQ(std::string(text), "{}");
  pyunwind_free(text);
  EXPECT_EQ(has_python, -1);
  EXPECT_EQ(t.reads, before);
  // Unreadable memory with a _PyRuntime symbol is a runtime pyunwind cannot read, not "no Python".
  FakeTarget broken;
  broken.reads_fail = true;
  broken.runtime_address = 0x20000;
  auto broken_cb = CallbacksFor(broken);
  stop = {PYUNWIND_STOPPED, 78, 2, 1, 101, -1};
  text = pyunwind_python_frames_by_native_frame_at(&broken_cb, &stop, &has_python);
  pyunwind_free(text);
  EXPECT_EQ(has_python, -1);
  // No symbol and no regions to search: the message begins "no Python runtime found", but
  // whether there is one is not known.
  FakeTarget unlisted;
  auto unlisted_cb = CallbacksFor(unlisted);
  stop = {PYUNWIND_STOPPED, 79, 3, 1, 101, -1};
  text = pyunwind_python_frames_by_native_frame_at(&unlisted_cb, &stop, &has_python);
  pyunwind_free(text);
  EXPECT_EQ(has_python, -1);
  const Ran ran = RunCmd(&unlisted_cb, "py-bt", "--all");
  EXPECT_EQ(ran.text.rfind("pyunwind: no Python runtime found", 0), 0u) << ran.text;
}

TEST(CApi, NoStackIsAnEmptyObjectForBt) {
  FakeTarget t;
  auto cb = CallbacksFor(t);
  char* text = pyunwind_python_frames_by_native_frame(&cb, 101);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(std::string(text), "{}");
  pyunwind_free(text);
}

// GDB 13's own lines (a live process; a core, whose mappings have no Perms column).
TEST(Parsers, InfoProcMappings) {
  auto mappings = pyunwind::gdb::ParseInfoProcMappings(
      "process 830\nMapped address spaces:\n\n"
      "          Start Addr           End Addr       Size     Offset  Perms  objfile\n"
      "            0x400000           0x41f000    0x1f000        0x0  r--p   /usr/bin/python3.11\n"
      "            0x941000           0xa7f000   0x13e000   0x540000  rw-p   /usr/bin/python3.11\n"
      "      0x7fff5a7b4000     0x7fff5a7d5000    0x21000        0x0  rw-p   [stack]\n"
      "      0x7f0000001000     0x7f0000002000     0x1000        0x0  rw-p   \n"
      "            0x500000           0x501000     0x1000     0x1000 /path with spaces/lib.so  \n");
  ASSERT_EQ(mappings.size(), 5u);
  EXPECT_EQ(mappings[0].start, 0x400000u);
  EXPECT_EQ(mappings[0].end, 0x41f000u);
  EXPECT_EQ(mappings[0].perms, "r--p");
  EXPECT_EQ(mappings[0].name, "/usr/bin/python3.11");
  EXPECT_EQ(mappings[1].offset, 0x540000u);
  EXPECT_EQ(mappings[2].name, "[stack]");
  EXPECT_EQ(mappings[3].name, "");
  EXPECT_EQ(mappings[4].perms, std::nullopt);
  EXPECT_EQ(mappings[4].name, "/path with spaces/lib.so");

  auto regions = pyunwind::gdb::RegionsOf({}, mappings);
  ASSERT_EQ(regions.size(), 5u);
  EXPECT_TRUE(regions[0].readable);
  EXPECT_FALSE(regions[0].writable);
  EXPECT_TRUE(regions[1].writable);
  EXPECT_TRUE(regions[4].readable);  // no Perms column: readable, not writable
  EXPECT_FALSE(regions[4].writable);

  auto files = pyunwind::gdb::FileMappingsOf(mappings);
  ASSERT_EQ(files.size(), 4u);
  EXPECT_EQ(files[1].offset, 0x540000u);
}

TEST(Parsers, CoreSectionsNamedByMappings) {
  auto sections = pyunwind::gdb::ParseCoreSections(
      "Exec file: `/usr/bin/python3.11', file type elf64-x86-64.\n"
      " [0]      0x00400000->0x0041f000 at 0x00000318: .interp ALLOC LOAD READONLY HAS_CONTENTS\n"
      "Core file: `/tmp/core.439', file type elf64-x86-64.\n"
      " [0]      0x00000000->0x00004dd0 at 0x00526698: note0 READONLY HAS_CONTENTS\n"
      " [14]     0x00400000->0x0041f000 at 0x00000698: load1 ALLOC LOAD READONLY HAS_CONTENTS\n"
      " [16]     0x00941000->0x00a7f000 at 0x00020698: load3 ALLOC LOAD HAS_CONTENTS\n"
      " [17]     0x00b00000->0x00b01000 at 0x00020698: load4a ALLOC LOAD READONLY\n");
  ASSERT_EQ(sections.size(), 3u);
  EXPECT_TRUE(sections[0].readable);
  EXPECT_FALSE(sections[0].writable);
  EXPECT_TRUE(sections[1].writable);
  EXPECT_FALSE(sections[2].readable);
  auto regions = pyunwind::gdb::RegionsOf(
      sections, pyunwind::gdb::ParseInfoProcMappings(
                    "  0x941000  0xa7f000  0x13e000  0x540000 /usr/bin/python3.11\n"));
  ASSERT_EQ(regions.size(), 3u);
  EXPECT_EQ(regions[0].name, "");
  EXPECT_EQ(regions[1].name, "/usr/bin/python3.11");
}

// `info files` of an arm64 core opened with its executable (qemu-user's core, GDB 13):
// the executable's sections, a shared library's; the core's own rows are not files.
TEST(Parsers, FileSectionsOfInfoFiles) {
  auto files = pyunwind::gdb::ParseFileSections(
      "Symbols from \"/sysroot/usr/bin/python3.11\".\n"
      "Local core dump file:\n"
      "\t`/tmp/qemu_python3.11.core', file type elf64-littleaarch64.\n"
      "\t0x0000000000400000 - 0x0000000000916000 is load1\n"
      "Local exec file:\n"
      "\t`/sysroot/usr/bin/python3.11', file type elf64-littleaarch64.\n"
      "\tEntry point: 0x41e3c0\n"
      "\t0x0000000000420380 - 0x00000000006c3b04 is .text\n"
      "\t0x00000000006c3b20 - 0x00000000008ac6d0 is .rodata\n"
      "\t0x0000000000a5eb50 - 0x0000000000aa36f8 is .bss\n"
      "\t0x00000055009c7380 - 0x0000005500adadd0 is .text in /sysroot/lib/libc.so.6\n"
      "\t0x0000005500b3cdd0 - 0x0000005500b3ce50 is .tbss in /sysroot/lib/libc.so.6\n");
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].start, 0x420380u);
  EXPECT_EQ(files[0].end, 0x6c3b04u);
  EXPECT_EQ(files[1].name, ".rodata");
  EXPECT_EQ(files[2].start, 0x55009c7380u);
  EXPECT_EQ(files[2].name, ".text");
}

// A core that left out the executable's read-only segment (load1, no HAS_CONTENTS): a read
// there is left out unless a file section covers all of it.
TEST(Parsers, LeftOutOfCore) {
  const auto sections = pyunwind::gdb::ParseCoreSections(
      "Core file: `/tmp/qemu_python3.11.core', file type elf64-littleaarch64.\n"
      " [11]     0x00400000->0x00916000 at 0x00002000: load1 ALLOC READONLY CODE\n"
      " [14]     0x00930000->0x00a5f000 at 0x00003000: load4 ALLOC LOAD HAS_CONTENTS\n");
  ASSERT_EQ(sections.size(), 2u);
  using pyunwind::MemoryRegion;
  const std::vector<MemoryRegion> none;
  EXPECT_TRUE(pyunwind::gdb::LeftOutOfCore(0x6c4000, 16, sections, none));
  EXPECT_TRUE(pyunwind::gdb::LeftOutOfCore(0x915000, 0x2000, sections, none));  // its last page
  EXPECT_FALSE(pyunwind::gdb::LeftOutOfCore(0x930000, 0x1000, sections, none));
  EXPECT_FALSE(pyunwind::gdb::LeftOutOfCore(0x916000, 0x1000, sections, none));  // in no section
  const std::vector<MemoryRegion> files = {{0x420380, 0x6c3b04, true, false, ".text"},
                                           {0x6c3b20, 0x8ac6d0, true, false, ".rodata"}};
  EXPECT_FALSE(pyunwind::gdb::LeftOutOfCore(0x6c4000, 16, sections, files));
  EXPECT_FALSE(pyunwind::gdb::LeftOutOfCore(0x6c3af0, 0x10, sections, files));
  EXPECT_TRUE(pyunwind::gdb::LeftOutOfCore(0x6c3b00, 0x30, sections, files));   // the gap
  EXPECT_TRUE(pyunwind::gdb::LeftOutOfCore(0x8ac000, 0x1000, sections, files));  // past .rodata
  EXPECT_FALSE(pyunwind::gdb::LeftOutOfCore(UINT64_MAX - 8, 16, sections, none));  // wraps
}

// `info auxv` of qemu-user's arm64 process through its gdbstub (GDB 13).
TEST(Parsers, InfoAuxv) {
  auto auxv = pyunwind::gdb::ParseInfoAuxv(
      "3    AT_PHDR              Program headers for program    0x400040\n"
      "4    AT_PHENT             Size of program header entry   56\n"
      "5    AT_PHNUM             Number of program headers      9\n"
      "16   AT_HWCAP             Machine-dependent CPU capability hints 0xecfffffb\n"
      "31   AT_EXECFN            File name of executable        0x5500800fbb "
      "\"/usr/bin/python3.11\"\n"
      "0    AT_NULL              End of vector                  0x0\n");
  EXPECT_EQ(auxv.phdr, 0x400040u);
  EXPECT_EQ(auxv.phent, 56u);
  EXPECT_EQ(auxv.phnum, 9u);
  EXPECT_EQ(auxv.execfn, "/usr/bin/python3.11");
  EXPECT_FALSE(
      pyunwind::gdb::ParseInfoAuxv("The program has no auxiliary information now.\n").phdr);
}

// A program header table in memory: PT_PHDR places it (a PIE loaded 0x10000 above its
// vaddrs), each PT_LOAD is a page-aligned region with its permissions.
class BytesTarget : public pyunwind::Target {
 public:
  BytesTarget(uint64_t base, std::vector<unsigned char> bytes)
      : base_(base), bytes_(std::move(bytes)) {}
  bool ReadMemory(uint64_t address, void* out, size_t size) override {
    if (address < base_ || address - base_ + size > bytes_.size()) return false;
    std::memcpy(out, bytes_.data() + (address - base_), size);
    return true;
  }
  std::optional<uint64_t> FindSymbol(std::string_view) override { return std::nullopt; }

 private:
  uint64_t base_;
  std::vector<unsigned char> bytes_;
};

TEST(ProgramSegments, FromAuxvProgramHeaders) {
  std::vector<Elf64_Phdr> table(3);
  const uint64_t size = 3 * sizeof(Elf64_Phdr);
  table[0] = Elf64_Phdr{PT_PHDR, PF_R, 0x40, 0x40, 0x40, size, size, 8};
  table[1] = Elf64_Phdr{PT_LOAD, PF_R | PF_X, 0, 0, 0, 0x1234, 0x1234, 0x1000};
  table[2] = Elf64_Phdr{PT_LOAD, PF_R | PF_W, 0x2000, 0x2e10, 0x2e10, 0x100, 0x300, 0x1000};
  std::vector<unsigned char> bytes(sizeof(Elf64_Phdr) * table.size());
  std::memcpy(bytes.data(), table.data(), bytes.size());
  BytesTarget target(0x10040, bytes);
  auto segments = pyunwind::ProgramSegments(target, 0x10040, 3, sizeof(Elf64_Phdr), "/bin/x");
  ASSERT_EQ(segments.size(), 2u);
  EXPECT_EQ(segments[0].start, 0x10000u);
  EXPECT_EQ(segments[0].end, 0x12000u);
  EXPECT_FALSE(segments[0].writable);
  EXPECT_EQ(segments[1].start, 0x12000u);
  EXPECT_EQ(segments[1].end, 0x14000u);  // 0x12e10 + 0x300, rounded up
  EXPECT_TRUE(segments[1].writable);
  EXPECT_EQ(segments[1].name, "/bin/x");
  // Unreadable, insane or without PT_PHDR: nothing.
  EXPECT_TRUE(pyunwind::ProgramSegments(target, 0x20000, 3, sizeof(Elf64_Phdr), "").empty());
  EXPECT_TRUE(pyunwind::ProgramSegments(target, 0x10040, 100000, sizeof(Elf64_Phdr), "").empty());
  EXPECT_TRUE(pyunwind::ProgramSegments(target, 0x10040, 3, 8, "").empty());
  EXPECT_TRUE(pyunwind::ProgramSegments(target, 0x10040 + sizeof(Elf64_Phdr), 2,
                                        sizeof(Elf64_Phdr), "")
                  .empty());
}

// The stack's top as the kernel and qemu-user leave it: argc, argv, envp, then the auxiliary
// vector with AT_PHDR, AT_PHENT, AT_PHNUM in a row; the stack ends where reads fail.
TEST(AuxvProgramHeadersOnStack, FoundAboveTheStackPointer) {
  std::vector<uint64_t> words(600, 0x5500aa00);  // frames, more than a page of them
  const std::vector<uint64_t> top = {1,  0x5500ff00, 0,          0x5500ff20, 0,
                                     33, 0x5500e000, 6,          4096,       AT_PHDR,
                                     0x400040,       AT_PHENT,   sizeof(Elf64_Phdr),
                                     AT_PHNUM,       9,          AT_ENTRY,   0x420000, 0, 0};
  words.insert(words.end(), top.begin(), top.end());
  words.resize(1024);  // the strings up to the stack's end, a page boundary
  std::vector<unsigned char> bytes(words.size() * 8);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  BytesTarget stack(0x7ff000, bytes);
  const auto found = pyunwind::AuxvProgramHeadersOnStack(stack, 0x7ff000 + 8);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->phdr, 0x400040u);
  EXPECT_EQ(found->phent, sizeof(Elf64_Phdr));
  EXPECT_EQ(found->phnum, 9u);
  // Above it, below the stack, or with an entry size that is not Elf64_Phdr's: none.
  EXPECT_FALSE(pyunwind::AuxvProgramHeadersOnStack(stack, 0x7ff000 + 8 * 616).has_value());
  EXPECT_FALSE(pyunwind::AuxvProgramHeadersOnStack(stack, 0x100000).has_value());
  words[600 + 12] = 32;
  std::memcpy(bytes.data(), words.data(), bytes.size());
  BytesTarget odd(0x7ff000, bytes);
  EXPECT_FALSE(pyunwind::AuxvProgramHeadersOnStack(odd, 0x7ff000).has_value());
}

TEST(Parsers, Threads) {
  auto ids = pyunwind::gdb::ParseThreadIds(" 12\n34 x 56 ");
  EXPECT_EQ(ids, (std::vector<uint64_t>{12, 34, 56}));
}

TEST(CallbackTarget, ListsAreAskedOnce) {
  static int calls = 0;
  pyunwind_callbacks cb{};
  cb.read_memory = ReadMemory;
  cb.thread_ids = [](void*) -> const char* { ++calls; return "7 8"; };
  pyunwind::gdb::CallbackTarget target(cb);
  EXPECT_EQ(target.ThreadIds().size(), 2u);
  EXPECT_EQ(target.ThreadIds().size(), 2u);
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(target.MemoryRegions().empty());  // no debugger_command callback
  EXPECT_FALSE(target.FindSymbol("_PyRuntime"));
}

// ABI 4: the thread's name ("" is none).
TEST(CallbackTarget, ThreadName) {
  pyunwind_callbacks cb{};
  cb.read_memory = ReadMemory;
  pyunwind::gdb::CallbackTarget bare(cb);
  EXPECT_FALSE(bare.ThreadName(7).has_value());
  cb.thread_name = [](void*, uint64_t id) -> const char* { return id == 7 ? "worker" : ""; };
  pyunwind::gdb::CallbackTarget target(cb);
  EXPECT_EQ(target.ThreadName(7), "worker");
  EXPECT_FALSE(target.ThreadName(8).has_value());
}

// The shared library exports the C ABI and nothing of the core.
// ABI 6: given a live PID, the library reads /proc/PID/mem itself and asks read_memory only
// for what that cannot read; without one (a core, a remote target), read_memory only.
TEST(CallbackTarget, LivePidIsReadThroughProcMem) {
  static const char kHere[] = "bytes of this test process";
  int callback_reads = 0;
  pyunwind_callbacks cb{};
  cb.ctx = &callback_reads;
  cb.read_memory = [](void* ctx, uint64_t, void* buf, uint64_t size) {
    ++*static_cast<int*>(ctx);
    std::memset(buf, 'x', size);
    return 1;
  };
  const uint64_t here = reinterpret_cast<uint64_t>(kHere);
  char out[sizeof kHere] = {};

  cb.live_pid = static_cast<uint64_t>(getpid());
  pyunwind::gdb::CallbackTarget live(cb);
  ASSERT_TRUE(live.ReadMemory(here, out, sizeof out));
  EXPECT_STREQ(out, kHere);
  EXPECT_EQ(callback_reads, 0);
  ASSERT_TRUE(live.ReadMemory(16, out, 4));  // no mapping there: read_memory answers
  EXPECT_EQ(callback_reads, 1);

  cb.live_pid = 0;
  pyunwind::gdb::CallbackTarget core(cb);
  ASSERT_TRUE(core.ReadMemory(here, out, sizeof out));
  EXPECT_EQ(std::string(out, 4), "xxxx");
  EXPECT_EQ(callback_reads, 2);
}

// A symbol of a live process on this host comes from its executable's ELF file; only one
// not there is asked of GDB (through Python, slower).
int symbol_questions = 0;
int CountedFindSymbol(void*, const char* name, uint64_t* addr_out) {
  ++symbol_questions;
  if (std::strcmp(name, "in_a_library") != 0) return 0;
  *addr_out = 0x1000;
  return 1;
}

TEST(CallbackTarget, ALiveProcesssSymbolsComeFromItsExecutable) {
  pyunwind_callbacks cb{};
  cb.find_symbol = CountedFindSymbol;
  cb.live_pid = static_cast<uint64_t>(getpid());
  pyunwind::gdb::CallbackTarget live(cb);
  symbol_questions = 0;
  EXPECT_EQ(live.FindSymbol("pyunwind_c_api_test_marker"),
            reinterpret_cast<uint64_t>(&pyunwind_c_api_test_marker));
  EXPECT_EQ(symbol_questions, 0);
  EXPECT_EQ(live.FindSymbol("in_a_library"), 0x1000u);
  EXPECT_EQ(symbol_questions, 1);
  // A core (no live PID) asks GDB for every symbol.
  cb.live_pid = 0;
  pyunwind::gdb::CallbackTarget core(cb);
  EXPECT_EQ(core.FindSymbol("pyunwind_c_api_test_marker"), std::nullopt);
  EXPECT_EQ(symbol_questions, 2);
}

// Single pages per cache miss where reads are preads of /proc/PID/mem, four where each is a
// Python call.
TEST(CallbackTarget, PagesPerFetchFollowTheCostOfARead) {
  pyunwind_callbacks cb{};
  cb.live_pid = static_cast<uint64_t>(getpid());
  EXPECT_EQ(pyunwind::gdb::CallbackTarget(cb).PagesPerFetch(), 1u);
  cb.live_pid = 0;
  EXPECT_EQ(pyunwind::gdb::CallbackTarget(cb).PagesPerFetch(), 4u);
}

// ABI 8: PythonInModuleFiles's three answers (tests/python_files_test.cc has its cases).
TEST(CApi, PythonInModuleFilesAnswersOneZeroOrMinusOne) {
  const char* named[] = {"/nowhere/libpython3.12.so.1.0"};
  EXPECT_EQ(pyunwind_python_in_module_files(named, 1), 1);
  const char* without[] = {"/lib/x86_64-linux-gnu/libc.so.6"};
  EXPECT_EQ(pyunwind_python_in_module_files(without, 1), 0);
  const char* unreadable[] = {"/lib/x86_64-linux-gnu/libc.so.6", "/nowhere/server", nullptr};
  EXPECT_EQ(pyunwind_python_in_module_files(unreadable, 3), -1);
  EXPECT_EQ(pyunwind_python_in_module_files(nullptr, 0), -1);
}

TEST(SharedLibrary, ExportsOnlyTheCApi) {
  void* lib = dlopen("gdb_bridge/libpyunwind_gdb.so", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const char* name : {"pyunwind_abi_version", "pyunwind_commands", "pyunwind_run_command",
                           "pyunwind_run_command_at", "pyunwind_python_frames_by_native_frame",
                           "pyunwind_python_frames_by_native_frame_at",
                           "pyunwind_python_in_module_files", "pyunwind_free"}) {
    EXPECT_NE(dlsym(lib, name), nullptr) << name;
  }
  // Every export the GDB script's package calls (lib.pyunwind_*) is there.
  std::string text;
  for (const auto& entry : std::filesystem::directory_iterator("gdb_bridge/script/pyunwind_gdb")) {
    if (entry.path().extension() != ".py") continue;
    std::ifstream module(entry.path());
    ASSERT_TRUE(module) << entry.path();
    text.append(std::istreambuf_iterator<char>(module), {});
  }
  ASSERT_NE(text.find("def install("), std::string::npos)
      << "gdb_bridge/script/pyunwind_gdb/ is not in the test's runfiles";
  const std::regex call(R"(lib\.(pyunwind_[a-z_0-9]+))");
  int calls = 0;
  for (std::sregex_iterator m(text.begin(), text.end(), call), end; m != end; ++m, ++calls) {
    EXPECT_NE(dlsym(lib, (*m)[1].str().c_str()), nullptr) << "the script calls " << (*m)[1];
  }
  EXPECT_GT(calls, 0) << "found no lib.pyunwind_* call in the script";
  // The package (abi.py) wants this header's ABI and declares as many callback fields (all
  // 8 bytes): a field added on one side only would shift every later one.
  std::smatch wants;
  ASSERT_TRUE(std::regex_search(text, wants, std::regex(R"(\nABI_VERSION = (\d+)\n)")));
  EXPECT_EQ(std::stoi(wants[1].str()), PYUNWIND_ABI_VERSION);
  const size_t fields = text.find("class Callbacks(ctypes.Structure):");
  ASSERT_NE(fields, std::string::npos);
  const std::string declared = text.substr(fields, text.find(']', fields) - fields);
  const std::regex field(R"(\("[a-z_]+", )");
  const auto count = std::distance(std::sregex_iterator(declared.begin(), declared.end(), field),
                                   std::sregex_iterator());
  EXPECT_EQ(static_cast<size_t>(count) * 8, sizeof(pyunwind_callbacks));
  EXPECT_EQ(dlsym(lib, "_ZN8pyunwind11AllCommandsEv"), nullptr);
  auto commands = reinterpret_cast<const char* (*)()>(dlsym(lib, "pyunwind_commands"));
  ASSERT_NE(commands, nullptr);
  EXPECT_EQ(std::string(commands()), std::string(pyunwind_commands()));
  // No dlclose: it would leave the library's never-freed commands JSON unreachable, which
  // LeakSanitizer reports under --config=asan. The library stays loaded until exit.
}

}  // namespace
