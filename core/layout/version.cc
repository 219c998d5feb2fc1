#include "core/layout/version.h"

#include <fmt/format.h>

namespace pyunwind {

std::string PythonVersion::ToString() const {
  std::string text = fmt::format("{}.{}.{}", major(), minor(), micro());
  switch (release_level()) {
    case 0xA: return text + fmt::format("a{}", serial());
    case 0xB: return text + fmt::format("b{}", serial());
    case 0xC: return text + fmt::format("rc{}", serial());
    default: return text;
  }
}

std::string PythonVersion::MinorString() const { return fmt::format("{}.{}", major(), minor()); }

}  // namespace pyunwind
