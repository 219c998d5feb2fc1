// py-bt --greenlets over a CPython 3.11 process built in memory (tests/fake_process311.h) with
// greenlet 2.0.x's objects laid out as core/greenlet/greenlet_layout.h says: which greenlets
// are shown and under which thread, their C stack read from greenlet's copy where it was
// copied aside, and what a damaged or unknown target gives (one warning, never a wrong stack).
// The real greenlet and gevent: tests/e2e/greenlets_test.cc.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/base/limits.h"
#include "core/commands/commands.h"
#include "core/greenlet/greenlet_layout.h"
#include "core/greenlet/greenlets.h"
#include "core/target/memory.h"
#include "core/walk/threads.h"
#include "tests/fake_process311.h"

namespace pyunwind {
namespace {

using Json = nlohmann::json;
using namespace testing::fake311;
namespace gl = greenlet_layout;

class GreenletProcess : public Process {
 public:
  GreenletProcess() : Process(16 << 20) {
    AddSymbols();
    AddSysDict();
    thread = AddThread(101, 0x1001);
    SetMainThread(thread);
    other = AddThread(102, 0x1002);
    park = Code("/app/g.py", "park", "park", 10, LineTableBytes(10, {{4, 11}, {4, 12}}), 8);
    outer = Code("/app/g.py", "outer", "outer", 20, LineTableBytes(20, {{4, 21}, {4, 22}}), 8);
    frame_type = objects.Type("frame");
    greenlet_type = objects.Type("greenlet.greenlet");
    for (int list = 0; list < 4; ++list) {
      tails[list] = Head(list);
      Link(Head(list), Head(list));
    }
  }

  uint64_t Head(int list) const {
    const uint64_t gc = interp + layout.interp.gc;
    return list == 3 ? gc + layout.gc.permanent
                     : gc + layout.gc.generations + list * layout.gc.generation_size;
  }
  void Link(uint64_t from, uint64_t to) {
    target.PutU64(from, to);
    target.PutU64(to + 8, from);
  }
  // A tracked object of `size` bytes (past its GC header) on list 0.
  uint64_t Tracked(uint64_t type, uint64_t size) {
    const uint64_t node = heap.Alloc(16 + size);
    objects.Header(node + 16, type);
    Link(tails[0], node);
    Link(node, Head(0));
    tails[0] = node;
    return node + 16;
  }

  // sys.modules["greenlet"], whose __version__ is `version`.
  void Import(const std::string& version) {
    const uint64_t module = heap.Alloc(64);
    objects.Header(module, objects.Type("module"));
    target.PutU64(module + layout.module.md_dict,
                  objects.Dict({{objects.Str("__version__"), objects.Str(version)},
                                {objects.Str("greenlet"), greenlet_type}}));
    target.PutU64(interp + layout.interp.modules,
                  objects.Dict({{objects.Str("greenlet"), module}}));
  }

  // A class derived from greenlet.greenlet.
  uint64_t Subclass(const std::string& name) {
    const uint64_t type = objects.Type(name);
    target.PutU64(type + layout.type.tp_base, greenlet_type);
    return type;
  }

  struct Greenlet {
    uint64_t object = 0;
    uint64_t pimpl = 0;
    uint64_t stack = 0;   // its C stack: [stack, stack + 256)
    uint64_t cframe = 0;  // its innermost _PyCFrame, on that stack
    uint64_t frame = 0;   // its innermost _PyInterpreterFrame
  };
  // A greenlet suspended in `t`: frames park <- outer; its C frames (two) end at t's root
  // _PyCFrame. `copied`: the first 64 bytes of its stack were copied aside, and the stack
  // itself holds another greenlet's bytes there.
  Greenlet Suspended(uint64_t type, const Thread311& t, bool copied = false, bool main = false) {
    Greenlet g;
    g.object = Tracked(type, 40);
    g.pimpl = heap.Alloc(gl::kGreenlet20On311.read_size);
    target.PutU64(g.object + gl::kPimpl, g.pimpl);
    target.PutU64(g.pimpl + gl::kGreenlet20On311.self, g.object);
    g.stack = heap.Alloc(256);
    const uint64_t copy = heap.Alloc(64);
    g.cframe = g.stack + 16;
    const uint64_t outer_cframe = g.stack + 128;
    const uint64_t previous = layout.tstate.cframe_previous;
    const uint64_t root = t.tstate + layout.tstate.root_cframe;
    if (copied) {
      target.PutU64(copy + 16 + previous, outer_cframe);
      target.PutU64(g.cframe + previous, 0xdead0);  // another greenlet's bytes
    } else {
      target.PutU64(g.cframe + previous, outer_cframe);
    }
    target.PutU64(outer_cframe + previous, root);
    target.PutU64(g.pimpl + gl::kGreenlet20On311.stack_start, g.stack);
    target.PutU64(g.pimpl + gl::kGreenlet20On311.stack_stop, main ? gl::kMainStackStop : g.stack + 256);
    target.PutU64(g.pimpl + gl::kGreenlet20On311.stack_copy, copy);
    target.PutU64(g.pimpl + gl::kGreenlet20On311.stack_saved, copied ? 64 : 0);
    target.PutU64(g.pimpl + gl::kGreenlet20On311.cframe, g.cframe);
    g.frame = Frame(park, 5, Frame(outer, 1, 0));
    target.PutU64(g.pimpl + gl::kGreenlet20On311.current_frame, g.frame);
    const uint64_t top = heap.Alloc(64);
    objects.Header(top, frame_type);
    target.PutU64(g.pimpl + gl::kGreenlet20On311.top_frame, top);
    return g;
  }

  Json BtJson(std::vector<std::string> args = {"--all", "--greenlets", "--json"}) {
    CommandContext context{target, uint64_t{101}, false, std::nullopt, std::nullopt};
    CommandOutput out = RunCommand("py-bt", args, context);
    EXPECT_FALSE(out.failed) << out.text.substr(0, 500);
    return out.failed ? Json::object() : Json::parse(out.text);
  }

  Thread311 thread;
  Thread311 other;
  uint64_t park = 0;
  uint64_t outer = 0;
  uint64_t frame_type = 0;
  uint64_t greenlet_type = 0;
  uint64_t tails[4] = {};
};

Json ThreadOf(const Json& doc, uint64_t native_id) {
  for (const Json& t : doc.at("interpreters").at(0).at("threads")) {
    if (t.at("native_id") == native_id) return t;
  }
  return Json();
}

std::string Hex(uint64_t address) { return fmt::format("{:#x}", address); }

std::vector<std::string> Addresses(const Json& thread) {
  std::vector<std::string> out;
  for (const Json& g : thread.at("greenlets")) out.push_back(g.at("address"));
  return out;
}

TEST(GreenletStacks, SuspendedGreenletsUnderTheirThreads) {
  GreenletProcess p;
  p.Import("2.0.2");
  const uint64_t worker = p.Subclass("Worker");
  const auto plain = p.Suspended(p.greenlet_type, p.thread);
  const auto copied = p.Suspended(worker, p.thread, /*copied=*/true);
  const auto main = p.Suspended(p.greenlet_type, p.other, false, /*main=*/true);
  // Not suspended: running (no top frame), dead (no stack_start), not started (no stack_stop).
  const auto running = p.Suspended(p.greenlet_type, p.thread);
  p.target.PutU64(running.pimpl + gl::kGreenlet20On311.top_frame, 0);
  const auto dead = p.Suspended(p.greenlet_type, p.thread);
  p.target.PutU64(dead.pimpl + gl::kGreenlet20On311.stack_start, 0);
  const auto unstarted = p.Suspended(p.greenlet_type, p.thread);
  p.target.PutU64(unstarted.pimpl + gl::kGreenlet20On311.stack_stop, 0);
  p.Tracked(p.objects.Type("list"), 40);  // not a greenlet

  const Json doc = p.BtJson();
  EXPECT_EQ(doc.at("warnings"), Json::array()) << doc.dump(1);
  const Json first = ThreadOf(doc, 101);
  EXPECT_EQ(Addresses(first), (std::vector<std::string>{Hex(plain.object), Hex(copied.object)}))
      << first.dump(1);
  const Json second = ThreadOf(doc, 102);
  ASSERT_EQ(Addresses(second), std::vector<std::string>{Hex(main.object)}) << second.dump(1);
  EXPECT_TRUE(second.at("greenlets").at(0).at("is_main"));
  const Json& g = first.at("greenlets").at(1);
  EXPECT_EQ(g.at("type"), "Worker");
  EXPECT_FALSE(g.at("is_main"));
  ASSERT_EQ(g.at("frames").size(), 2u) << g.dump(1);
  EXPECT_EQ(g.at("frames").at(0).at("name"), "park");
  EXPECT_EQ(g.at("frames").at(0).at("line"), 12);
  EXPECT_EQ(g.at("frames").at(1).at("name"), "outer");
  EXPECT_EQ(g.at("frames").at(1).at("line"), 21);
  EXPECT_FALSE(g.contains("truncated"));

  // Without --greenlets: no field, nothing read.
  const Json plain_doc = p.BtJson({"--all", "--json"});
  EXPECT_FALSE(ThreadOf(plain_doc, 101).contains("greenlets"));
  // The text: a header per greenlet under its thread.
  CommandContext context{p.target, uint64_t{101}, false, std::nullopt, std::nullopt};
  const CommandOutput text = RunCommand("py-bt", {"--all", "--greenlets", "--no-source"}, context);
  EXPECT_NE(text.text.find(fmt::format("Greenlet {:#x} (Worker) suspended in thread 101", copied.object)),
            std::string::npos)
      << text.text;
  EXPECT_NE(text.text.find(fmt::format("Greenlet {:#x} (greenlet.greenlet), its main greenlet, "
                                       "suspended in thread 102",
                                       main.object)),
            std::string::npos)
      << text.text;
  // Without it, the text says it would show more.
  const CommandOutput hint = RunCommand("py-bt", {"--all", "--no-source"}, context);
  EXPECT_NE(hint.text.find("warning: greenlet is imported: py-bt --all --greenlets also shows each "
                           "thread's suspended greenlets\n"),
            std::string::npos)
      << hint.text;
  EXPECT_EQ(hint.text.find("Greenlet 0x"), std::string::npos) << hint.text;
  // --group refuses it.
  const CommandOutput group = RunCommand("py-bt", {"--all", "--group", "--greenlets"}, context);
  EXPECT_TRUE(group.failed);
}

TEST(GreenletStacks, UnknownVersionsAndNoGreenletAreOneWarning) {
  GreenletProcess p;
  p.Suspended(p.greenlet_type, p.thread);
  CommandContext context{p.target, uint64_t{101}, false, std::nullopt, std::nullopt};
  EXPECT_EQ(RunCommand("py-bt", {"--all", "--no-source"}, context).text.find("greenlet"),
            std::string::npos);
  Json doc = p.BtJson();
  EXPECT_EQ(doc.at("warnings"),
            Json::array({"--greenlets: the greenlet module is not imported"}));
  EXPECT_EQ(ThreadOf(doc, 101).at("greenlets"), Json::array());
  p.Import("3.0.3");
  doc = p.BtJson();
  EXPECT_EQ(doc.at("warnings"),
            Json::array({"--greenlets: greenlet 3.0.3 on Python 3.11 is not read (greenlet 2.0.x "
                         "on 3.11, 3.1.x on 3.13, 3.3.x on 3.14 and 3.15 are)"}));
  EXPECT_EQ(ThreadOf(doc, 101).at("greenlets"), Json::array());
}

// Damage: a C object that does not point back, a top frame that is not a frame object, C frames
// that loop or lead nowhere, saved frames that loop. Each is said, none gives a wrong stack.
TEST(GreenletStacks, DamagedGreenletsAreCountedNotShown) {
  GreenletProcess p;
  p.Import("2.0.2");
  const auto not_back = p.Suspended(p.greenlet_type, p.thread);
  p.target.PutU64(not_back.pimpl + gl::kGreenlet20On311.self, 0x1000);
  const auto not_frame = p.Suspended(p.greenlet_type, p.thread);
  p.target.PutU64(not_frame.pimpl + gl::kGreenlet20On311.top_frame, not_frame.object);  // a greenlet, not a frame
  const auto looping = p.Suspended(p.greenlet_type, p.thread);
  p.target.PutU64(looping.cframe + p.layout.tstate.cframe_previous, looping.cframe);
  const auto nowhere = p.Suspended(p.greenlet_type, p.thread);
  p.target.PutU64(nowhere.cframe + p.layout.tstate.cframe_previous, 0x10);
  const auto frames_loop = p.Suspended(p.greenlet_type, p.thread);
  p.SetPrevious(frames_loop.frame, frames_loop.frame);

  const Json doc = p.BtJson();
  const Json thread = ThreadOf(doc, 101);
  ASSERT_EQ(Addresses(thread), std::vector<std::string>{Hex(frames_loop.object)}) << doc.dump(1);
  const Json& g = thread.at("greenlets").at(0);
  EXPECT_EQ(g.at("frames").size(), 1u) << g.dump(1);
  EXPECT_EQ(g.at("truncated"), fmt::format("the frame chain loops back to {:#x}", frames_loop.frame));
  EXPECT_EQ(doc.at("warnings"),
            Json::array({"2 suspended greenlets belong to no thread shown (their thread ended, or "
                         "their C frames or stack cannot be followed to it): their stacks are not shown",
                         fmt::format("2 greenlets could not be read (greenlet's layout differs "
                                     "from 2.0.x's?); the first, {:#x}: its C++ object does not "
                                     "point back at it",
                                     not_back.object)}))
      << doc.dump(1);
}

// The greenlets and warnings AddGreenletStacks gives with `layout` (p's, changed).
struct Read {
  std::map<uint64_t, std::vector<uint64_t>> greenlets;  // native id -> greenlets, in order
  std::vector<std::string> warnings;
};
Read ReadGreenlets(GreenletProcess& p, const Layout& layout) {
  RemoteMemory memory(p.target);
  ObjectReader objects(memory, layout);
  CodeCache codes(objects);
  auto snapshot = WalkRuntime(objects, codes, p.runtime, {});
  EXPECT_TRUE(snapshot.ok()) << snapshot.error().message;
  Read out;
  if (!snapshot.ok()) return out;
  AddGreenletStacks(objects, codes, p.target, *snapshot);
  for (const Thread& t : snapshot->interpreters.at(0).threads) {
    for (const GreenletStack& g : t.greenlets) {
      out.greenlets[t.native_id.value_or(0)].push_back(g.address);
    }
  }
  out.warnings = snapshot->warnings;
  return out;
}

// Where the Python keeps neither C frames nor C stack bounds (3.12, 3.13; here a 3.11 layout
// without root_cframe): a greenlet belongs to the thread whose SP lies in the memory region
// that holds its saved stack, however deep in it; a stack in no thread's region, in a guard
// page, or in a region two threads' SPs lie in belongs to none, counted in the warning.
TEST(GreenletStacks, ThreadsToldByTheRegionOfTheirStackPointer) {
  GreenletProcess p;
  p.Import("2.0.2");
  Layout layout = p.layout;
  layout.tstate.root_cframe = kAbsent;
  constexpr uint64_t kStackSize = 0x10000, kGuard = 0x1000;
  const uint64_t first_stack = 0x7f2000000000 + kGuard;
  const uint64_t second_stack = first_stack + kStackSize + kGuard;
  for (uint64_t stack : {first_stack, second_stack}) {
    p.target.Map(stack - kGuard, kGuard, /*writable=*/false, /*readable=*/false, "");
    p.target.Map(stack, kStackSize, /*writable=*/true, /*readable=*/true, "");
  }
  p.target.stack_pointers[101] = first_stack + 0x8000;
  p.target.stack_pointers[102] = second_stack + 0x200;
  // Its saved stack at [start, stop), on the C stack at `start`.
  auto on_stack = [&](const GreenletProcess::Greenlet& g, uint64_t start, uint64_t stop) {
    p.target.PutU64(g.pimpl + gl::kGreenlet20On311.stack_start, start);
    p.target.PutU64(g.pimpl + gl::kGreenlet20On311.stack_stop, stop);
    return g.object;
  };
  const uint64_t above_sp = on_stack(p.Suspended(p.greenlet_type, p.thread), first_stack + 0x9000,
                                     first_stack + 0xa000);
  const uint64_t below_sp = on_stack(p.Suspended(p.greenlet_type, p.thread), first_stack + 0x1000,
                                     first_stack + 0x2000);  // deeper than the thread is now
  const uint64_t second = on_stack(p.Suspended(p.greenlet_type, p.thread), second_stack + 0x8,
                                   second_stack + 0x100);
  const uint64_t main = on_stack(p.Suspended(p.greenlet_type, p.thread), second_stack + 0x300,
                                 gl::kMainStackStop);
  on_stack(p.Suspended(p.greenlet_type, p.thread), second_stack - 0x800, second_stack);  // guard
  on_stack(p.Suspended(p.greenlet_type, p.thread), 0x7f3000000000, 0x7f3000001000);   // no region

  const std::string threadless =
      "2 suspended greenlets belong to no thread shown (their thread ended, or their C frames or "
      "stack cannot be followed to it): their stacks are not shown";
  Read read = ReadGreenlets(p, layout);
  EXPECT_EQ(read.greenlets[101], (std::vector<uint64_t>{std::min(above_sp, below_sp),
                                                        std::max(above_sp, below_sp)}));
  EXPECT_EQ(read.greenlets[102], (std::vector<uint64_t>{main, second}));
  EXPECT_EQ(read.warnings, std::vector<std::string>{threadless});

  // A thread without an SP has no greenlet; its stack's are counted.
  p.target.stack_pointers.erase(102);
  read = ReadGreenlets(p, layout);
  EXPECT_EQ(read.greenlets[101].size(), 2u);
  EXPECT_TRUE(read.greenlets[102].empty());
  EXPECT_EQ(read.warnings.at(0).substr(0, 2), "4 ");
  // Two threads' SPs in one region: it is neither's.
  p.target.stack_pointers[102] = first_stack + 0x20;
  read = ReadGreenlets(p, layout);
  EXPECT_TRUE(read.greenlets.empty());
  const std::string none_told =
      " (the debugger told no thread's stack: no stack pointer, or no memory region holding it)";
  EXPECT_EQ(read.warnings, std::vector<std::string>{"6" + threadless.substr(1) + none_told});
  // No SP at all (a host that cannot say): the same.
  p.target.stack_pointers.clear();
  read = ReadGreenlets(p, layout);
  EXPECT_EQ(read.warnings, std::vector<std::string>{"6" + threadless.substr(1) + none_told});
}

// kMaxGreenlets stacks are read; the ones past it are counted in one warning.
TEST(GreenletStacks, GreenletsAtAndOverTheCap) {
  for (size_t count : {kMaxGreenlets, kMaxGreenlets + 1}) {
    SCOPED_TRACE(count);
    GreenletProcess p;
    p.Import("2.0.2");
    const auto first = p.Suspended(p.greenlet_type, p.thread);
    // The others share its C++ object's saved state (stack, frames), each with its own self.
    for (size_t i = 1; i < count; ++i) {
      const uint64_t object = p.Tracked(p.greenlet_type, 40);
      const uint64_t pimpl = p.heap.Alloc(gl::kGreenlet20On311.read_size);
      std::vector<uint8_t> state(gl::kGreenlet20On311.read_size);
      ASSERT_TRUE(p.target.ReadMemory(first.pimpl, state.data(), state.size()));
      p.target.PutBytes(pimpl, std::string(state.begin(), state.end()));
      p.target.PutU64(pimpl + gl::kGreenlet20On311.self, object);
      p.target.PutU64(object + gl::kPimpl, pimpl);
    }
    RemoteMemory memory(p.target);
    ObjectReader objects(memory, p.layout);
    CodeCache codes(objects);
    auto snapshot = WalkRuntime(objects, codes, p.runtime, {});
    ASSERT_TRUE(snapshot.ok()) << snapshot.error().message;
    AddGreenletStacks(objects, codes, p.target, *snapshot);
    size_t shown = 0;
    for (const Thread& t : snapshot->interpreters.at(0).threads) shown += t.greenlets.size();
    EXPECT_EQ(shown, kMaxGreenlets);
    if (count == kMaxGreenlets) {
      EXPECT_TRUE(snapshot->warnings.empty()) << snapshot->warnings.at(0);
    } else {
      EXPECT_EQ(snapshot->warnings,
                std::vector<std::string>{fmt::format(
                    "more than {} suspended greenlets: 1 more are not shown...truncated",
                    kMaxGreenlets)});
    }
  }
}

}  // namespace
}  // namespace pyunwind
