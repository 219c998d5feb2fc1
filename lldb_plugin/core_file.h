// The ELF core file an LLDB process was loaded from, opened again by pyunwind and read with
// pread. LLDB maps the whole core and SBProcess::ReadMemory copies out of that mapping, so
// every page pyunwind reads stays in LLDB's resident memory (+142 MB of a 154 MB core for
// `py-tasks --json` on 100,000 tasks); pread keeps only what pyunwind's bounded cache holds.
//
// The SB API of LLDB 14 does not name a process's core file (SBProcess::GetCoreFile is 19's),
// so the file is found among LLDB's own mappings (/proc/self/maps) and taken only when it
// agrees with the process LLDB shows: the same thread ids and the same bytes at the start,
// middle and end of its memory.
#pragma once

#include <memory>
#include <string>

#include <lldb/API/SBProcess.h>

#include "core/target/elf_core_target.h"
#include "core/target/target.h"

namespace pyunwind_lldb {

struct CoreFile {
  std::string path;
  std::unique_ptr<pyunwind::ElfCoreTarget> reader;
};

// The core file of `process` (an "elf-core" process), or nullptr when it cannot be found or
// does not agree with `lldb_view` (the process as LLDB reads it: its threads and SB reads).
// Found once per process.
std::shared_ptr<const CoreFile> CoreFileOf(lldb::SBProcess process, pyunwind::Target& lldb_view);

}  // namespace pyunwind_lldb
