// Names for static types whose tp_name a core does not hold (it points into the executable's
// read-only data, which a core opened without its executable lacks): the `types` module
// holds most of the interpreter's own (types.FunctionType is the type `function`), `_weakref`,
// `_io`, `_thread`, `_collections`, `_functools` and `itertools` a few more, and CPython gives
// each the same tp_name in 3.11-3.15. Best effort:
// the types of a module never imported, or whose dict cannot be read, stay unnamed.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "core/objects/objects.h"

namespace pyunwind {

// tp_name by type object address, from sys.modules of the interpreter at `interp`.
std::unordered_map<uint64_t, std::string> StaticTypeNames(ObjectReader& objects, uint64_t interp);

}  // namespace pyunwind
