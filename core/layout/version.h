// A CPython version as PY_VERSION_HEX encodes it.
#pragma once

#include <cstdint>
#include <string>

namespace pyunwind {

struct PythonVersion {
  uint32_t hexversion = 0;  // PY_VERSION_HEX, e.g. 0x030b02f0 for 3.11.2

  int major() const { return (hexversion >> 24) & 0xff; }
  int minor() const { return (hexversion >> 16) & 0xff; }
  int micro() const { return (hexversion >> 8) & 0xff; }
  int release_level() const { return (hexversion >> 4) & 0xf; }  // 0xA alpha .. 0xF final
  int serial() const { return hexversion & 0xf; }

  // "3.11.2", "3.14.0rc1", "3.15.0a2" (as sys.version starts).
  std::string ToString() const;
  // "3.11"
  std::string MinorString() const;
  bool AtLeast(int want_major, int want_minor) const {
    return major() > want_major || (major() == want_major && minor() >= want_minor);
  }
};

}  // namespace pyunwind
