#include "core/layout/minor_versions.h"

#include <iterator>

namespace pyunwind {
namespace {

// Oldest first; the last is the newest.
const MinorVersion* const kMinorVersions[] = {&kCPython36,  &kCPython37,  &kCPython38,
                                              &kCPython39,  &kCPython310, &kCPython311, &kCPython312, &kCPython313, &kCPython314,
                                              &kCPython315};

}  // namespace

std::vector<const MinorVersion*> KnownMinorVersions() {
  return {std::begin(kMinorVersions), std::end(kMinorVersions)};
}

std::vector<const MinorVersion*> AllReadVersions() {
  std::vector<const MinorVersion*> all = {&kCPython27};
  all.insert(all.end(), std::begin(kMinorVersions), std::end(kMinorVersions));
  return all;
}

const MinorVersion* FindVersionFile(const PythonVersion& version) {
  if (version.major() == 2) return version.minor() == kCPython27.minor ? &kCPython27 : nullptr;
  return version.major() == 3 ? FindMinorVersion(version.minor()) : nullptr;
}

const MinorVersion* FindMinorVersion(int minor) {
  for (const MinorVersion* known : kMinorVersions) {
    if (known->minor == minor) return known;
  }
  return nullptr;
}

const MinorVersion& NewestMinorVersion() { return *kMinorVersions[std::size(kMinorVersions) - 1]; }

const MinorVersion& OldestMinorVersion() { return *kMinorVersions[0]; }

std::string KnownMinorRange(std::string_view separator) {
  return "2.7 and 3." + std::to_string(OldestMinorVersion().minor) + std::string(separator) + "3." +
         std::to_string(NewestMinorVersion().minor);
}

std::vector<uint32_t> VersionsWithoutDebugOffsets() {
  std::vector<uint32_t> out;
  for (const MinorVersion* known : AllReadVersions()) {
    if (known->debug_offsets_fields.empty()) out.push_back(known->hexversion());
  }
  return out;
}

}  // namespace pyunwind
