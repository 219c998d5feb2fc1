// py-bt --greenlets: the Python stacks of the greenlets suspended in each thread, where the
// `greenlet` module is imported (greenlet 2.0.x on CPython 3.11, greenlet_layout.h).
//
// The greenlets are the instances of greenlet.greenlet and its subclasses (gevent's
// Greenlet, its Hub) on the collector's lists (core/heap/tracked_objects.h). A suspended one
// (started, not dead, not running) keeps its innermost _PyInterpreterFrame, walked as a
// thread's (core/walk/frames.h), and its innermost _PyCFrame: that chain ends at its thread
// state's root_cframe, which says the thread. The C frames lie on the greenlet's C stack,
// part of which greenlet has copied aside (stack_copy); they are read from there.
#pragma once

#include <string>

#include "core/walk/code_objects.h"
#include "core/walk/model.h"

namespace pyunwind {

// Whether an interpreter of `snapshot` has imported `greenlet` (a look-up in sys.modules):
// py-bt --all then says that --greenlets would show more.
bool GreenletImported(ObjectReader& objects, const Snapshot& snapshot);

// Fills Thread::greenlets of every thread of `snapshot`, and sets greenlets_read. Where it
// cannot (greenlet not imported, a version or a Python it does not know, damage) it says so
// in one warning of the snapshot; greenlets whose thread is not among the snapshot's are
// counted in a warning.
void AddGreenletStacks(ObjectReader& objects, CodeCache& codes, Snapshot& snapshot);

}  // namespace pyunwind
