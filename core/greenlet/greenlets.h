// py-bt --greenlets: the Python stacks of the greenlets suspended in each thread, where the
// `greenlet` module is imported (the releases and Pythons of greenlet_layout.h).
//
// The greenlets are the instances of greenlet.greenlet and its subclasses (gevent's
// Greenlet, its Hub) on the collector's lists (core/heap/tracked_objects.h). A suspended one
// (started, not dead, not running) keeps its innermost _PyInterpreterFrame, walked as a
// thread's (core/walk/frames.h). Its thread: on 3.11, its innermost _PyCFrame's chain ends at
// its thread state's root_cframe (the C frames lie on the greenlet's C stack, part of which
// greenlet has copied aside to stack_copy; they are read from there); on 3.14+, its saved
// stack lies within the C stack bounds the thread state keeps; on 3.12 and 3.13, which keep
// neither, within the memory region that holds the thread's stack pointer (Target).
#pragma once

#include <string>

#include "core/target/target.h"
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
// `target` tells each thread's C stack where the Python keeps no way to tell a greenlet's
// thread (3.12, 3.13): its stack pointer and memory regions.
void AddGreenletStacks(ObjectReader& objects, CodeCache& codes, Target& target,
                       Snapshot& snapshot);

}  // namespace pyunwind
