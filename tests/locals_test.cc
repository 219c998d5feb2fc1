// A frame's locals read by name (core/walk/locals.h) on the fake 3.11 process: LocalObjects
// finds each name's object, and SelfOf reads the first slot alone -- a method's `self` -- so
// a frame whose later names cannot be read still gives it.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/objects/objects.h"
#include "core/objects/values.h"
#include "core/target/memory.h"
#include "core/walk/locals.h"
#include "tests/fake_process311.h"

namespace pyunwind {
namespace {

using testing::fake311::Process;

constexpr uint64_t kUnreadable = 0xdead0000;

class FrameWithLocals {
 public:
  // A frame of a code object whose slots are named `names` (kUnreadable: a name whose string
  // cannot be read), holding `values`.
  FrameWithLocals(Process& p, const std::vector<uint64_t>& names, const std::vector<uint64_t>& values) {
    const Layout& l = p.layout;
    code = p.Code("m.py", "f", "f", 1, "", 1);
    const uint64_t tuple = p.heap.Alloc(l.tuple.ob_item + 8 * names.size());
    p.objects.Header(tuple, p.objects.Type("tuple"));
    p.target.Put<int64_t>(tuple + l.tuple.ob_size, int64_t(names.size()));
    for (size_t i = 0; i < names.size(); ++i) p.target.PutU64(tuple + l.tuple.ob_item + 8 * i, names[i]);
    p.target.PutU64(code + l.code.localsplusnames, tuple);
    p.target.PutU64(code + l.code.localspluskinds, p.objects.Bytes(std::string(names.size(), '\0')));
    frame = p.heap.Alloc(l.frame.localsplus + 8 * values.size());
    for (size_t i = 0; i < values.size(); ++i) p.target.PutU64(frame + l.frame.localsplus + 8 * i, values[i]);
  }
  uint64_t code = 0;
  uint64_t frame = 0;
};

TEST(Locals, ObjectsByNameAndSelfFromTheFirstSlotAlone) {
  Process p;
  const uint64_t self = p.objects.Int(1), other = p.objects.Int(2);
  FrameWithLocals method(p, {p.objects.Str("self"), kUnreadable, p.objects.Str("x")}, {self, 0, other});
  // `self` that is not the first slot is no method's self.
  FrameWithLocals function(p, {p.objects.Str("x"), p.objects.Str("self")}, {other, self});
  RemoteMemory memory(p.target, kMaxBytesReadPerCommand);  // caches pages: made after the frames
  ObjectReader objects(memory, p.layout);
  ValueFormatter values(objects);

  auto all = ReadLocalSlots(objects, values, method.frame, method.code);
  ASSERT_TRUE(all.ok()) << all.error().message;
  ASSERT_EQ(all->slots.size(), 3u);
  EXPECT_EQ(all->slots[1].name, "<local 1>") << "its name was read, and could not be";
  auto first = ReadLocalSlots(objects, values, method.frame, method.code, 1);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->slots.size(), 1u);
  EXPECT_EQ(first->not_shown, 2u);
  EXPECT_EQ(first->slots[0].name, "self");

  EXPECT_EQ(SelfOf(objects, values, method.frame, method.code), self);
  EXPECT_EQ(LocalObjects(objects, values, method.frame, method.code, {"x", "self", "none"}),
            (std::vector<uint64_t>{other, self, 0}));

  EXPECT_EQ(SelfOf(objects, values, function.frame, function.code), 0u);
  EXPECT_EQ(LocalObjects(objects, values, function.frame, function.code, {"self"})[0], self);
}

}  // namespace
}  // namespace pyunwind
