// The C ABI with fake callbacks over an in-memory buffer: whatever the
// target looks like, a command returns text, never crashes, and a failure is
// one error line.
#include <dlfcn.h>

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "gdb_bridge/callback_target.h"
#include "gdb_bridge/pyunwind_c_api.h"

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

const char* Regions(void* ctx) { return static_cast<FakeTarget*>(ctx)->regions.c_str(); }
const char* Threads(void* ctx) { return static_cast<FakeTarget*>(ctx)->threads.c_str(); }

pyunwind_callbacks CallbacksFor(FakeTarget& t) {
  pyunwind_callbacks cb{};
  cb.ctx = &t;
  cb.read_memory = ReadMemory;
  cb.find_symbol = FindSymbol;
  cb.memory_regions = Regions;
  cb.file_mappings = nullptr;
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
  t.regions = "0x10000 0x110000 rw-p\n";
  auto cb = CallbacksFor(t);
  for (const auto& name : CommandNames()) {
    SCOPED_TRACE(name);
    ExpectOneErrorLine(RunCmd(&cb, name.c_str(), ""));
  }
  ExpectOneErrorLine(RunCmd(&cb, "py-bt", "--all --json", 101));
}

TEST(CApi, FailedReadsAreOneErrorLine) {
  FakeTarget t;
  t.reads_fail = true;
  t.runtime_address = 0x20000;
  t.regions = "10000 110000 rw-p /usr/bin/python3.11\n";
  auto cb = CallbacksFor(t);
  ExpectOneErrorLine(RunCmd(&cb, "py-bt", "--all"));
}

TEST(CApi, GarbageRuntimeDoesNotCrash) {
  FakeTarget t;
  for (size_t i = 0; i < t.memory.size(); ++i) t.memory[i] = static_cast<uint8_t>(i * 131 + 7);
  t.runtime_address = 0x20000;
  t.regions = "0x10000 0x110000 rw-p\n";
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
    pyunwind_stop stop{state, 1, 1, 0, 101};
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

TEST(CApi, NoStackIsAnEmptyObjectForBt) {
  FakeTarget t;
  auto cb = CallbacksFor(t);
  char* text = pyunwind_python_frames_by_native_frame(&cb, 101);
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(std::string(text), "{}");
  pyunwind_free(text);
}

TEST(Parsers, MemoryRegions) {
  auto regions = pyunwind::gdb::ParseMemoryRegions(
      "0x1000 0x2000 r-xp /usr/bin/python3.11\n"
      "3000 4000 rw\n"
      "garbage line\n"
      "0x5000 0x5000 rw\n"  // empty: skipped
      "0x6000 0x7000 - /path with spaces/lib.so  \n");
  ASSERT_EQ(regions.size(), 3u);
  EXPECT_EQ(regions[0].start, 0x1000u);
  EXPECT_EQ(regions[0].end, 0x2000u);
  EXPECT_TRUE(regions[0].readable);
  EXPECT_FALSE(regions[0].writable);
  EXPECT_EQ(regions[0].name, "/usr/bin/python3.11");
  EXPECT_EQ(regions[1].start, 0x3000u);
  EXPECT_TRUE(regions[1].writable);
  EXPECT_EQ(regions[1].name, "");
  EXPECT_FALSE(regions[2].readable);
  EXPECT_EQ(regions[2].name, "/path with spaces/lib.so");
}

TEST(Parsers, ModulesAndThreads) {
  auto mappings = pyunwind::gdb::ParseFileMappings(
      "0x7f0000 0 /usr/lib/libpython3.11.so.1.0\nbad\n400000 1000 /usr/bin/python3.11");
  ASSERT_EQ(mappings.size(), 2u);
  EXPECT_EQ(mappings[0].start, 0x7f0000u);
  EXPECT_EQ(mappings[0].offset, 0u);
  EXPECT_EQ(mappings[1].offset, 0x1000u);
  EXPECT_EQ(mappings[1].path, "/usr/bin/python3.11");
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
  EXPECT_TRUE(target.MemoryRegions().empty());  // no callback
  EXPECT_FALSE(target.FindSymbol("_PyRuntime"));
}

// The shared library exports the C ABI and nothing of the core.
TEST(SharedLibrary, ExportsOnlyTheCApi) {
  void* lib = dlopen("gdb_bridge/libpyunwind_gdb.so", RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  for (const char* name : {"pyunwind_abi_version", "pyunwind_commands", "pyunwind_run_command",
                           "pyunwind_run_command_at", "pyunwind_python_frames_by_native_frame",
                           "pyunwind_free"}) {
    EXPECT_NE(dlsym(lib, name), nullptr) << name;
  }
  EXPECT_EQ(dlsym(lib, "_ZN8pyunwind11AllCommandsEv"), nullptr);
  auto commands = reinterpret_cast<const char* (*)()>(dlsym(lib, "pyunwind_commands"));
  ASSERT_NE(commands, nullptr);
  EXPECT_EQ(std::string(commands()), std::string(pyunwind_commands()));
  // No dlclose: it would leave the library's never-freed commands JSON unreachable, which
  // LeakSanitizer reports under --config=asan. The library stays loaded until exit.
}

}  // namespace
