// What a thread is doing beyond its stack, where the version tells: an
// exception being raised or handled ("exception"), waiting for the GIL
// ("gil_requested", 3.15).
#pragma once

#include "core/walk/model.h"
#include "core/objects/objects.h"

namespace pyunwind {

// Adds status flags (and Thread::exception) to every thread of `interp`.
void AddThreadStatus(ObjectReader& objects, Interpreter& interp);

// The warning py-bt prints when the GIL is locked by a thread state that none
// of the shown threads is (one per interpreter); empty otherwise.
std::vector<std::string> GilHolderWarnings(const Snapshot& snapshot);

}  // namespace pyunwind
