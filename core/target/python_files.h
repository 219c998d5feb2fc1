// Whether a process runs Python, told by the files of its modules alone (no memory read):
// how GDB's frame filter and LLDB's frame provider leave a program without Python alone.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace pyunwind {

// The values are the front-ends' C ABI (pyunwind_python_in_module_files).
enum class PythonInFiles : int { kNo = 0, kYes = 1, kUnknown = -1 };

// kYes when one of the module files at `paths` (a process's executable and shared
// libraries) is a libpython or pythonX.Y file, or has an ELF string table that names
// _PyRuntime (the interpreter defines it; extension modules refer to it); kNo when every
// file was read and none does; kUnknown when one cannot be read as a 64-bit ELF file (a
// core's files that are not on this machine) or there are none: then only a search of the
// process's memory can tell.
PythonInFiles PythonInModuleFiles(const std::vector<std::string>& paths);

// PythonInModuleFiles for a C caller, as the front-ends export it
// (pyunwind_python_in_module_files): `count` C strings at `paths`, null entries skipped;
// the answer's value, kUnknown when memory runs out.
int PythonInModuleFilesForC(const char* const* paths, size_t count) noexcept;

}  // namespace pyunwind
