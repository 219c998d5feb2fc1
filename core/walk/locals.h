// The arguments and locals of one _PyInterpreterFrame, by name
// (co_localsplusnames / co_localspluskinds), with short reprs
// (core/objects/values.h). Cells and free variables show what the cell holds;
// 3.14+ tagged stack references are untagged, tagged ints shown as ints.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/walk/model.h"
#include "core/objects/objects.h"
#include "core/base/result.h"
#include "core/objects/values.h"

namespace pyunwind {

// One slot of a frame's fast locals (co_localsplusnames order), cells and
// free variables already looked through.
struct LocalSlot {
  std::string name;
  bool cell_or_free = false;
  bool bound = false;          // false: unbound (not yet assigned, or deleted)
  uint64_t object = 0;         // the value, when bound and not a tagged int
  std::optional<int64_t> tagged_int;  // 3.14+: an int held in the reference itself
  std::optional<std::string> error;   // why the value cannot be read
};

// The first kMaxLocalsPerFrame slots, bound or not, and how many further
// slots the frame has (not read).
struct LocalSlots {
  std::vector<LocalSlot> slots;
  size_t not_shown = 0;
};

// Fails only when the code object's names cannot be read. Reads at most `first_slots` slots
// (the rest count as not shown): a caller after a method's `self` needs the first alone.
Result<LocalSlots> ReadLocalSlots(ObjectReader& objects, ValueFormatter& values,
                                  uint64_t frame_address, uint64_t code_address,
                                  size_t first_slots = SIZE_MAX);

// The objects bound to the locals `names` of a frame, in that order: 0 for a name that is
// not among its first `first_slots` slots, unbound, a tagged int, or unreadable.
std::vector<uint64_t> LocalObjects(ObjectReader& objects, ValueFormatter& values,
                                   uint64_t frame_address, uint64_t code_address,
                                   const std::vector<std::string_view>& names,
                                   size_t first_slots = SIZE_MAX);

// A method's `self`: its first slot, when that is named self; else 0.
uint64_t SelfOf(ObjectReader& objects, ValueFormatter& values, uint64_t frame_address,
                uint64_t code_address);

// A frame's locals (model.h, FrameLocals). A value that cannot be read gets a
// null repr and the reason; when the code object's names cannot be read,
// FrameLocals::error says so and nothing is shown.
FrameLocals ReadFrameLocals(ObjectReader& objects, ValueFormatter& values,
                            uint64_t frame_address, uint64_t code_address);

// Reads the locals of one frame at a time, as a command shows them (py-bt --locals): a frame
// the output budget leaves out is never read. A hostile frame's locals print megabytes
// (1,024 names of 4,096 characters), so reading every frame first held gigabytes that were
// never shown.
class FrameLocalsReader {
 public:
  explicit FrameLocalsReader(ObjectReader& objects) : objects_(objects) {}

  // The locals of `frame`, a frame of `interp` (whose builtins tell which types are
  // which); null for a frame that is not a Python frame.
  std::shared_ptr<const FrameLocals> Read(const Interpreter& interp, const Frame& frame);

 private:
  ObjectReader& objects_;
  uint64_t interp_ = 0;
  std::unique_ptr<ValueFormatter> values_;  // for interp_
};

}  // namespace pyunwind
