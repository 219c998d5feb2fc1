// Each thread's `threading` name (Thread.name), read from the target's own
// threading module: threading._active maps get_ident() to the Thread object
// (dummy threads included), threading._main_thread names the main thread
// when it has left _active. Bounded like every remote read.
#pragma once

#include <string>
#include <vector>

#include "core/objects/objects.h"
#include "core/walk/model.h"

namespace pyunwind {

// Sets Thread::name on every thread of `interp` whose python_id threading
// knows. Nothing when threading is not imported; a damaged module or dict
// adds one warning.
void AddThreadNames(ObjectReader& objects, Interpreter& interp, std::vector<std::string>& warnings);

}  // namespace pyunwind
