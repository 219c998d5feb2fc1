// What pyunwind knows of each CPython minor version: one file each
// (python27.cc, python36.cc ... python315.cc), listed in minor_versions.cc. They are the
// only places that know a version's numbers; core/layout/README.md says how to add one.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout/layout.h"

namespace pyunwind {

struct MinorVersion {
  int minor = 0;  // of Python `major`
  // 3.13+: the names of the _Py_DebugOffsets fields after its 24-byte
  // header, in order ("thread_state.size", ...). Empty: the version has no
  // block, and add_facts gives the whole layout.
  std::vector<std::string_view> debug_offsets_fields;
  // What the target does not state. 3.11, 3.12: every field. 3.13+: called
  // after the block was read, to complete it with facts of the headers
  // (which may build on the block's offsets).
  void (*add_facts)(Layout&) = nullptr;
  int major = 3;
  // PY_VERSION_HEX of x.y with micro and level 0: 0x03060000.
  uint32_t hexversion() const { return uint32_t(major) << 24 | uint32_t(minor) << 16; }
};

extern const MinorVersion kCPython27;

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

// Every Python 3 version pyunwind has a file for, oldest first.
std::vector<const MinorVersion*> KnownMinorVersions();
// The same with 2.7 first: every version pyunwind reads.
std::vector<const MinorVersion*> AllReadVersions();
// Whether its free-threaded build is read too: where the target states its
// layout (_Py_DebugOffsets says whether the build is free-threaded); the
// tables of older versions describe the default build only.
inline bool ReadsFreeThreaded(const MinorVersion& known) {
  return !known.debug_offsets_fields.empty();
}

// The file for 3.`minor`, or null when pyunwind has none.
const MinorVersion* FindMinorVersion(int minor);
// The file for `version`'s major and minor (2.7 included), or null.
const MinorVersion* FindVersionFile(const PythonVersion& version);
// The newest one (newer targets are read with it, with a warning).
const MinorVersion& NewestMinorVersion();
// The oldest Python 3 one: older Python 3 targets are refused.
const MinorVersion& OldestMinorVersion();
// "2.7 and 3.6 to 3.15": what messages say pyunwind reads (`separator` within
// the Python 3 range).
std::string KnownMinorRange(std::string_view separator = " to ");
// PY_VERSION_HEX (x.y, micro and level 0) of every known version without a
// _Py_DebugOffsets block (2.7 included), oldest first: those a runtime scan tries.
std::vector<uint32_t> VersionsWithoutDebugOffsets();

}  // namespace pyunwind
