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

const MinorVersion* FindMinorVersion(int minor) {
  for (const MinorVersion* known : kMinorVersions) {
    if (known->minor == minor) return known;
  }
  return nullptr;
}

const MinorVersion& NewestMinorVersion() { return *kMinorVersions[std::size(kMinorVersions) - 1]; }

const MinorVersion& OldestMinorVersion() { return *kMinorVersions[0]; }

std::string KnownMinorRange(std::string_view separator) {
  return "3." + std::to_string(OldestMinorVersion().minor) + std::string(separator) + "3." +
         std::to_string(NewestMinorVersion().minor);
}

std::vector<uint32_t> VersionsWithoutDebugOffsets() {
  std::vector<uint32_t> out;
  for (const MinorVersion* known : kMinorVersions) {
    if (known->debug_offsets_fields.empty()) out.push_back(0x03000000u | uint32_t(known->minor) << 16);
  }
  return out;
}

}  // namespace pyunwind
