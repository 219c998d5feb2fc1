// PythonInModuleFiles: a process's module files tell whether it runs Python, by their names or
// by an ELF string table naming _PyRuntime; files that cannot be read leave it open.
#include "core/target/python_files.h"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/special_files.h"
#include "tests/temp_dir.h"

namespace pyunwind {
namespace {

constexpr char kPython[] = "/usr/bin/python3.11";  // Debian's, with _PyRuntime in .dynsym

std::string ThisProgram() { return std::filesystem::read_symlink("/proc/self/exe").string(); }

TEST(PythonFiles, TheirNamesAloneSayPython) {
  // Not read: these files do not exist.
  EXPECT_EQ(PythonInModuleFiles({"/nowhere/libpython3.13t.so.1.0"}), PythonInFiles::kYes);
  EXPECT_EQ(PythonInModuleFiles({"/nowhere/python3.14", "/nowhere/libc.so.6"}),
            PythonInFiles::kYes);
  EXPECT_EQ(PythonInModuleFiles({"/nowhere/pythonic"}), PythonInFiles::kUnknown);
  EXPECT_EQ(PythonInModuleFiles({"/nowhere/python"}), PythonInFiles::kUnknown);
}

TEST(PythonFiles, AnInterpreterUnderAnotherNameIsFoundByItsStringTable) {
  if (access(kPython, R_OK) != 0) GTEST_SKIP() << kPython << " is not installed";
  const std::string copy = testing::TestTempPath("server");
  std::filesystem::copy_file(kPython, copy, std::filesystem::copy_options::overwrite_existing);
  EXPECT_EQ(PythonInModuleFiles({ThisProgram(), copy}), PythonInFiles::kYes);
}

TEST(PythonFiles, ProgramsWithoutPythonSayNo) {
  // This test's own executable and the C library it runs with.
  EXPECT_EQ(PythonInModuleFiles({ThisProgram(), "/lib/x86_64-linux-gnu/libc.so.6"}),
            PythonInFiles::kNo);
}

TEST(PythonFiles, FilesThatCannotBeReadLeaveItOpen) {
  EXPECT_EQ(PythonInModuleFiles({}), PythonInFiles::kUnknown);
  EXPECT_EQ(PythonInModuleFiles({ThisProgram(), "/nowhere/server"}), PythonInFiles::kUnknown);
  // A FIFO is not waited on, a terminal is not opened as one, a directory is not a file.
  SpecialFiles special("module.so");
  for (const std::string& path : special.paths()) {
    EXPECT_EQ(PythonInModuleFiles({ThisProgram(), path}), PythonInFiles::kUnknown) << path;
  }
  // A file that is not ELF.
  const std::string text = testing::TestTempPath("notes.txt");
  FILE* file = fopen(text.c_str(), "w");
  ASSERT_NE(file, nullptr);
  fputs("_PyRuntime\n", file);
  fclose(file);
  EXPECT_EQ(PythonInModuleFiles({text}), PythonInFiles::kUnknown);
}

}  // namespace
}  // namespace pyunwind
