// The facts each per-minor file (core/layout/python3XX.cc) and facts.cc add
// for tasks, coroutines, frames, collections, types and free-threaded builds' mimalloc heaps,
// against the debug info of the fixture interpreters
// (../shared/fixtures/layouts/*.tsv). 3.11 and 3.12 layouts come from their
// files alone; 3.13+ from the real _Py_DebugOffsets block of the fixture's
// core (tests/data/debug_offsets) completed by its file.
//
// Facts no fixture layout can check, and so not checked here:
//   - all of 3.15: there is no 3.15 .tsv (its facts are checked only by
//     reading its cores: fixture_cores_core_test, asyncio_core_test, heap_core_test);
//   - PyMethodObject im_func/im_self, PyFunctionObject func_qualname,
//     PyCellObject ob_ref, PyDictValues (the 3.13+ values header, the
//     `valid` byte) and where managed dicts sit before the object: the
//     .tsv files have no rows for them;
//   - enum _framestate values and the awaited-object stack slot: enums and
//     value-stack use are not struct layouts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/layout/debug_offsets.h"
#include "core/layout/layout.h"
#include "tests/fixture_facts.h"

namespace pyunwind {
namespace {

using testing::LayoutFacts;

constexpr char kAnchor[] = "tests/data/debug_offsets/3.14.7.bin";

struct Fixture {
  std::string name;  // "3.13.15t"
  uint32_t hexversion;
  bool has_block;    // 3.13+: a real _Py_DebugOffsets block in tests/data
};

const Fixture kFixtures[] = {
    {"3.11.2", 0x030b02f0, false}, {"3.12.6", 0x030c06f0, false},
    {"3.13.15", 0x030d0ff0, true}, {"3.13.15t", 0x030d0ff0, true},
    {"3.14.7", 0x030e07f0, true},  {"3.14.7t", 0x030e07f0, true},
};

Result<Layout> LayoutOf(const Fixture& fixture) {
  if (!fixture.has_block) return LayoutFromTable(fixture.hexversion);
  const std::string path = "tests/data/debug_offsets/" + fixture.name + ".bin";
  auto block = testing::ReadFileBytes(testing::RunfilePath(path));
  if (!block) return MakeError("cannot read " + path);
  return LayoutFromDebugOffsets(block->data(), block->size());
}

class LayoutFactsTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(LayoutFactsTest, FactsAgreeWithDebugInfo) {
  const Fixture& fixture = GetParam();
  const std::string dir = testing::FixtureLayoutsDir(kAnchor);
  if (dir.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(kAnchor);
  auto facts = LayoutFacts::Load(dir + "/" + fixture.name + ".tsv");
  ASSERT_TRUE(facts.has_value()) << "cannot read " << fixture.name << ".tsv";
  auto layout = LayoutOf(fixture);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  const Layout& l = *layout;
  const LayoutFacts& f = *facts;
  auto expect = [&](const char* field, int64_t actual, int64_t expected) {
    EXPECT_EQ(actual, expected) << "Python " << fixture.name << ": " << field;
  };

  // TaskObj: FutureObj's fields first; 3.11-3.13 state every task field
  // here, 3.14+ take name, coro and awaited_by from _AsyncioDebug and place
  // state and fut_waiter next to them.
  expect("task.loop", l.task.loop, f.Offset("TaskObj", "task_loop"));
  expect("task.callback0", l.task.callback0, f.Offset("TaskObj", "task_callback0"));
  expect("task.callbacks", l.task.callbacks, f.Offset("TaskObj", "task_callbacks"));
  if (l.task.name != kAbsent) {
    expect("task.state", l.task.state, f.Offset("TaskObj", "task_state"));
    expect("task.fut_waiter", l.task.fut_waiter, f.Offset("TaskObj", "task_fut_waiter"));
    expect("task.coro", l.task.coro, f.Offset("TaskObj", "task_coro"));
    expect("task.name", l.task.name, f.Offset("TaskObj", "task_name"));
  } else {
    expect("task.state_after_awaited_by", l.task.state_after_awaited_by,
           f.Offset("TaskObj", "task_state") - f.Offset("TaskObj", "task_awaited_by"));
    expect("task.fut_waiter_before_coro", l.task.fut_waiter_before_coro,
           f.Offset("TaskObj", "task_coro") - f.Offset("TaskObj", "task_fut_waiter"));
  }

  // Coroutines and frames.
  expect("gen.frame_state", l.gen.frame_state, f.Offset("PyCoroObject", "cr_frame_state"));
  expect("gen.iframe", l.gen.iframe, f.Offset("PyCoroObject", "cr_iframe"));
  if (l.frame.stackpointer == kAbsent) {
    expect("frame.stacktop", l.frame.stacktop,
           f.Offset("struct _PyInterpreterFrame", "stacktop"));
  }

  // Collections, modules, weak references.
  expect("set.used", l.set.used, f.Offset("PySetObject", "used"));
  expect("set.mask", l.set.mask, f.Offset("PySetObject", "mask"));
  expect("set.table", l.set.table, f.Offset("PySetObject", "table"));
  expect("weakref.wr_object", l.weakref.wr_object, f.Offset("PyWeakReference", "wr_object"));
  expect("module.md_dict", l.module.md_dict, f.Offset("PyModuleObject", "md_dict"));
  expect("dict.ma_used", l.dict.ma_used, f.Offset("PyDictObject", "ma_used"));

  // Types.
  expect("type.tp_basicsize", l.type.tp_basicsize, f.Offset("PyTypeObject", "tp_basicsize"));
  expect("type.tp_base", l.type.tp_base, f.Offset("PyTypeObject", "tp_base"));
  expect("type.tp_dictoffset", l.type.tp_dictoffset, f.Offset("PyTypeObject", "tp_dictoffset"));
  expect("type.ht_cached_keys", l.type.ht_cached_keys,
         f.Offset("PyHeapTypeObject", "ht_cached_keys"));

  // py-heap: sizes sys.getsizeof counts, and (default builds) the collector's lists.
  expect("type.tp_itemsize", l.type.tp_itemsize, f.Offset("PyTypeObject", "tp_itemsize"));
  expect("list.allocated", l.list.allocated, f.Offset("PyListObject", "allocated"));
  expect("set.smalltable", l.set.smalltable, f.Offset("PySetObject", "smalltable"));
  const char* keys = "struct _dictkeysobject";
  expect("dict_keys.refcnt", l.dict_keys.refcnt, f.Offset(keys, "dk_refcnt"));
  expect("dict_keys.log2_size", l.dict_keys.log2_size, f.Offset(keys, "dk_log2_size"));
  expect("dict_keys.log2_index_bytes", l.dict_keys.log2_index_bytes,
         f.Offset(keys, "dk_log2_index_bytes"));
  expect("dict_keys.kind", l.dict_keys.kind, f.Offset(keys, "dk_kind"));
  expect("dict_keys.usable", l.dict_keys.usable, f.Offset(keys, "dk_usable"));
  expect("dict_keys.nentries", l.dict_keys.nentries, f.Offset(keys, "dk_nentries"));
  expect("dict_keys.header_size", l.dict_keys.header_size, f.Offset(keys, "dk_indices"));
  if (!l.free_threaded) {
    expect("interp.gc", l.interp.gc, f.Offset("struct _is", "gc.trash_delete_later"));
    expect("gc.generations", l.interp.gc + l.gc.generations, f.Offset("struct _is", "gc.generations"));
    expect("gc.permanent", l.interp.gc + l.gc.permanent,
           f.Offset("struct _is", "gc.permanent_generation.head"));
    if (l.gc.generation0 != kAbsent) {
      expect("gc.generation0", l.interp.gc + l.gc.generation0, f.Offset("struct _is", "gc.generation0"));
    }
    expect("gc.generation_size", l.gc.generation_count * l.gc.generation_size,
           f.Get("struct _gc_runtime_state", "generations").value_or(testing::Member{}).size);
  } else {
    expect("gc.generations (free-threaded: none)", l.gc.generations, kAbsent);
    // Where a thread keeps its mimalloc heaps, the data that follows them, and `initialized`
    // after it; the interpreter's pool (the threads' data points at it) after 4 cache lines.
    const char* impl = "struct _PyThreadStateImpl";
    expect("mimalloc.tstate_heaps", l.mimalloc.tstate_heaps, f.Offset(impl, "mimalloc.heaps"));
    expect("mimalloc.heap_count * heap_size", l.mimalloc.heap_count * l.mimalloc.heap_size,
           f.Get(impl, "mimalloc.heaps").value_or(testing::Member{}).size);
    expect("mimalloc.tld_size", l.mimalloc.tld_size,
           f.Get(impl, "mimalloc.tld").value_or(testing::Member{}).size);
    expect("mimalloc.tld", l.mimalloc.tstate_heaps + l.mimalloc.heap_count * l.mimalloc.heap_size,
           f.Offset(impl, "mimalloc.tld"));
    expect("mimalloc.initialized",
           l.mimalloc.tstate_heaps + l.mimalloc.heap_count * l.mimalloc.heap_size +
               l.mimalloc.tld_size,
           f.Offset(impl, "mimalloc.initialized"));
    expect("mimalloc.abandoned_pool size", l.mimalloc.pool_abandoned + 4 * 64,
           f.Get("struct _is", "mimalloc.abandoned_pool").value_or(testing::Member{}).size);
  }

  // Exceptions: being raised, and the innermost item being handled.
  expect("tstate.current_exception", l.tstate.current_exception,
         f.Offset("struct _ts", l.tstate.current_exception_is_type ? "curexc_type" : "current_exception"));
  expect("tstate.exc_info", l.tstate.exc_info, f.Offset("struct _ts", "exc_info"));
  expect("err_stackitem.exc_value", l.err_stackitem.exc_value,
         f.Offset("struct _err_stackitem", "exc_value"));
  expect("err_stackitem.previous_item", l.err_stackitem.previous_item,
         f.Offset("struct _err_stackitem", "previous_item"));

  // What completes a 3.13+ block.
  expect("runtime.interpreters_main", l.runtime.interpreters_main,
         f.Offset("struct pyruntimestate", "interpreters.main"));
  expect("code.firsttraceable", l.code.firsttraceable,
         f.Offset("PyCodeObject", "_co_firsttraceable"));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LayoutFactsTest, ::testing::ValuesIn(kFixtures),
                         [](const auto& info) {
                           std::string name = "Python" + info.param.name;
                           for (char& ch : name) {
                             if (ch == '.') ch = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace pyunwind
