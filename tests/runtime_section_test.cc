// LocateRuntime's second way, for a binary whose symbols are stripped: CPython
// 3.12+ links _PyRuntime into its own ".PyRuntime" section, which a module's
// ELF file on disk names (docs/commands.md: "-v says where _PyRuntime was found"). Over
// the threads core of every fixture version, read with no symbols: a module
// file made by the test, holding only that section at the address the memory
// scan finds, is used with its load bias; one whose section points elsewhere
// is passed over for the scan.
#include <elf.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/runtime/runtime_locator.h"
#include "core/target/forwarding_target.h"
#include "core/target/memory.h"
#include "fuzz/elf64_header.h"
#include "tests/fixture_cores.h"
#include "tests/opened_core.h"

namespace pyunwind {
namespace {

namespace fs = std::filesystem;

constexpr char kThisFile[] = "tests/runtime_section_test.cc";
constexpr uint64_t kLoadBias = 0x200000;

// A 64-bit ELF file with no code: a section-name table and one allocated
// section `name` at link-time address `address`.
void WriteElfWithSection(const fs::path& path, const std::string& name, uint64_t address) {
  const std::string names = std::string("\0.shstrtab\0", 11) + name + '\0';
  Elf64_Ehdr header = fuzz::X86_64ElfHeader(ET_DYN);
  header.e_shnum = 3;
  header.e_shstrndx = 1;
  header.e_shoff = (sizeof header + names.size() + 7) / 8 * 8;
  Elf64_Shdr sections[3]{};
  sections[1].sh_name = 1;
  sections[1].sh_type = SHT_STRTAB;
  sections[1].sh_offset = sizeof header;
  sections[1].sh_size = names.size();
  sections[2].sh_name = 11;
  sections[2].sh_type = SHT_PROGBITS;
  sections[2].sh_flags = SHF_ALLOC | SHF_WRITE;
  sections[2].sh_addr = address;
  sections[2].sh_size = 0x1000;
  std::string bytes(header.e_shoff, '\0');
  std::memcpy(bytes.data(), &header, sizeof header);
  std::memcpy(bytes.data() + sizeof header, names.data(), names.size());
  bytes.append(reinterpret_cast<const char*>(sections), sizeof sections);
  std::ofstream(path, std::ios::binary) << bytes;
}

// The core's memory and threads, no symbols, and the modules the test names.
class ModulesTarget final : public ForwardingTarget {
 public:
  ModulesTarget(Target& core, std::vector<LoadedModule> modules)
      : ForwardingTarget(&core), modules_(std::move(modules)) {}
  std::optional<uint64_t> FindSymbol(std::string_view) override { return std::nullopt; }
  std::vector<LoadedModule> Modules() override { return modules_; }

 private:
  std::vector<LoadedModule> modules_;
};

TEST(RuntimeSection, FoundThroughAModulesPyRuntimeSection) {
  const std::vector<std::string> versions = testing::VersionsWithScenario(kThisFile, "threads");
  if (versions == std::vector<std::string>{"none"}) {
    GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  }
  const fs::path cores = testing::SharedFixtures(kThisFile) / "cores";
  for (const std::string& version : versions) {
    SCOPED_TRACE(version);
    testing::OpenedCore core(cores / version / "threads", "runtime_section_test");
    ASSERT_EQ(core.error(), "");

    RemoteMemory scan_memory(core.target());
    auto scanned = LocateRuntime(scan_memory);
    ASSERT_TRUE(scanned.ok()) << scanned.error().message;
    ASSERT_NE(scanned->found_by.find("scan"), std::string::npos) << scanned->found_by;

    const fs::path module = testing::TestTempDir() / ("libpython-" + version + ".so");
    WriteElfWithSection(module, ".PyRuntime", scanned->address - kLoadBias);
    ModulesTarget target(core.target(), {{module.string(), kLoadBias}});
    RemoteMemory memory(target);
    auto found = LocateRuntime(memory);
    ASSERT_TRUE(found.ok()) << found.error().message;
    EXPECT_EQ(found->address, scanned->address);
    EXPECT_EQ(found->found_by, "the .PyRuntime section of " + module.string());
    EXPECT_EQ(found->layout.version.hexversion, scanned->layout.version.hexversion);
    EXPECT_LT(memory.stats().target_bytes, scan_memory.stats().target_bytes);  // no scan

    // A section at an address where no runtime is: the scan finds it as before.
    WriteElfWithSection(module, ".PyRuntime", scanned->address - kLoadBias + 0x10000);
    RemoteMemory misled_memory(target);
    auto misled = LocateRuntime(misled_memory);
    ASSERT_TRUE(misled.ok()) << misled.error().message;
    EXPECT_EQ(misled->address, scanned->address);
    EXPECT_EQ(misled->found_by, scanned->found_by);
    fs::remove(module);
  }
}

}  // namespace
}  // namespace pyunwind
