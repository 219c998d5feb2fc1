// py-heap --containers: names who refers to the largest containers of a census (module
// globals, class attributes, frames' locals: core/heap/container_referrers.h), the frames'
// locals read here, where the walk's frames are known.
#pragma once

#include "core/heap/heap_census.h"
#include "core/objects/objects.h"
#include "core/objects/values.h"
#include "core/walk/model.h"

namespace pyunwind {

// Sets each of census.containers' referrers, from the modules of every interpreter, the
// classes the census met, the Python frames of every thread of `snapshot` and the frames of
// the generators and coroutines the census met that no thread runs; appends the
// scan's warnings to census.warnings. Leaves them null when a budget ran out in the census.
void NameContainerReferrers(ObjectReader& objects, ValueFormatter& values,
                            const Snapshot& snapshot, HeapCensus& census,
                            const ReferrerLimits& limits = {});

}  // namespace pyunwind
