// What pyunwind knows of each CPython minor version: one file each
// (python311.cc ... python315.cc), listed in minor_versions.cc. They are the
// only places that know a version's numbers; core/layout/README.md says how to add one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout/layout.h"

namespace pyunwind {

struct MinorVersion {
  int minor = 0;  // of Python 3
  // 3.13+: the names of the _Py_DebugOffsets fields after its 24-byte
  // header, in order ("thread_state.size", ...). Empty: the version has no
  // block, and add_facts gives the whole layout.
  std::vector<std::string_view> debug_offsets_fields;
  // What the target does not state. 3.11, 3.12: every field. 3.13+: called
  // after the block was read, to complete it with facts of the headers
  // (which may build on the block's offsets).
  void (*add_facts)(Layout&) = nullptr;
};

extern const MinorVersion kCPython36;
extern const MinorVersion kCPython37;
extern const MinorVersion kCPython38;
extern const MinorVersion kCPython39;
extern const MinorVersion kCPython310;
extern const MinorVersion kCPython311;
extern const MinorVersion kCPython312;
extern const MinorVersion kCPython313;
extern const MinorVersion kCPython314;
extern const MinorVersion kCPython315;

// Every version pyunwind has a file for, oldest first.
std::vector<const MinorVersion*> KnownMinorVersions();
// Whether its free-threaded build is read too: where the target states its
// layout (_Py_DebugOffsets says whether the build is free-threaded); the
// tables of older versions describe the default build only.
inline bool ReadsFreeThreaded(const MinorVersion& known) {
  return !known.debug_offsets_fields.empty();
}

// The file for 3.`minor`, or null when pyunwind has none.
const MinorVersion* FindMinorVersion(int minor);
// The newest one (newer targets are read with it, with a warning).
const MinorVersion& NewestMinorVersion();
// The oldest one: older targets are refused.
const MinorVersion& OldestMinorVersion();
// "3.7 to 3.15": what messages say pyunwind reads (`separator` between the two).
std::string KnownMinorRange(std::string_view separator = " to ");
// PY_VERSION_HEX (3.x, micro and level 0) of every known version without a
// _Py_DebugOffsets block, oldest first: those a runtime scan tries.
std::vector<uint32_t> VersionsWithoutDebugOffsets();

}  // namespace pyunwind
