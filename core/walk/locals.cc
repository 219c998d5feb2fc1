#include "core/walk/locals.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>

#include "core/objects/remote_collections.h"

namespace pyunwind {
namespace {

// co_localspluskinds bits (Include/internal/pycore_code.h, 3.11-3.15).
constexpr uint8_t kFastHidden = 0x10;  // 3.12+: inlined comprehension variables
constexpr uint8_t kFastCell = 0x40;
constexpr uint8_t kFastFree = 0x80;

// A read of the frame's or code object's memory failed: the work budget's own reason when
// that is what stopped it (a command that spent its budget reads nothing more), else `what`.
Error ReadFailed(RemoteMemory& memory, std::string what) {
  if (memory.budget().Exhausted()) return memory.budget().StopError();
  return UnreadableMemory(std::move(what));
}

// The command was stopped (budget, Ctrl-C): the error says so by itself.
bool Stopped(const Error& error) {
  return error.kind == ErrorKind::kBudgetExhausted || error.kind == ErrorKind::kInterrupted;
}

// A frame's slot names (the first kMaxLocalsPerFrame) and kinds (one
// co_localspluskinds byte each), and how many slots there are in all.
struct SlotNames {
  std::vector<uint64_t> names;
  std::string kinds;
  uint64_t size = 0;
};

// 3.11+: co_localsplusnames and co_localspluskinds.
Result<SlotNames> LocalsPlusNames(ObjectReader& objects, uint64_t code_address) {
  const Layout& l = objects.layout();
  RemoteMemory& memory = objects.memory();
  auto names_address = memory.ReadPointer(code_address + l.code.localsplusnames);
  auto kinds_address = memory.ReadPointer(code_address + l.code.localspluskinds);
  if (!names_address || !kinds_address) {
    return ReadFailed(memory,
        fmt::format("cannot read the local names of the code object at {:#x}", code_address));
  }
  // co_nlocalsplus is a C int: any size up to INT_MAX is a real frame; the
  // first kMaxLocalsPerFrame names are read and the rest counted.
  RemoteCollections collections(objects);
  auto names = collections.TupleFirstItems(*names_address, kMaxLocalsPerFrame, INT32_MAX);
  if (!names.ok()) return Stopped(names.error()) ? names.error() : names.error().WithContext("cannot read co_localsplusnames: ");
  const size_t count = names->items.size();
  auto kinds_size = memory.ReadValue<int64_t>(*kinds_address + l.bytes.ob_size);
  if (!kinds_size) {
    return ReadFailed(memory, fmt::format("cannot read co_localspluskinds at {:#x}", *kinds_address));
  }
  if (static_cast<uint64_t>(*kinds_size) != names->size) {
    return MakeError(fmt::format("co_localspluskinds has {} entries for {} names", *kinds_size,
                                 names->size));
  }
  SlotNames out{std::move(names->items), std::string(count, '\0'), names->size};
  if (count > 0 && !memory.Read(*kinds_address + l.bytes.ob_sval, out.kinds.data(), count)) {
    return ReadFailed(memory, fmt::format("cannot read co_localspluskinds at {:#x}", *kinds_address));
  }
  return out;
}

// 3.10 and older: f_localsplus holds co_varnames' locals, then a cell for each
// of co_cellvars, then one for each of co_freevars.
Result<SlotNames> VarnamesCellsAndFrees(ObjectReader& objects, uint64_t code_address) {
  const Layout& l = objects.layout();
  RemoteCollections collections(objects);
  SlotNames out;
  const std::pair<int32_t, uint8_t> parts[] = {
      {l.code.varnames, 0}, {l.code.cellvars, kFastCell}, {l.code.freevars, kFastFree}};
  for (const auto& [field, kind] : parts) {
    auto tuple = objects.memory().ReadPointer(code_address + field);
    if (!tuple) {
      return ReadFailed(objects.memory(),
          fmt::format("cannot read the local names of the code object at {:#x}", code_address));
    }
    const size_t room = kMaxLocalsPerFrame - out.names.size();
    auto names = collections.TupleFirstItems(*tuple, room, INT32_MAX);
    if (!names.ok()) {
      return Stopped(names.error()) ? names.error()
                                    : names.error().WithContext("cannot read the code object's local names: ");
    }
    out.names.insert(out.names.end(), names->items.begin(), names->items.end());
    out.kinds.append(names->items.size(), static_cast<char>(kind));
    out.size += names->size;
  }
  return out;
}

}  // namespace

Result<LocalSlots> ReadLocalSlots(ObjectReader& objects, ValueFormatter& values,
                                  uint64_t frame_address, uint64_t code_address,
                                  size_t first_slots) {
  const Layout& l = objects.layout();
  RemoteMemory& memory = objects.memory();
  const bool frame_objects = UsesFrameObjects(l);
  if (l.frame.localsplus == kAbsent ||
      (frame_objects ? l.code.varnames == kAbsent || l.code.cellvars == kAbsent ||
                           l.code.freevars == kAbsent
                     : l.code.localsplusnames == kAbsent || l.code.localspluskinds == kAbsent)) {
    return MakeError(fmt::format("Python {} ({}) does not tell where a frame's locals are",
                                 l.version.ToString(), DescribeLayoutSource(l)));
  }
  PYU_ASSIGN_OR_RETURN(SlotNames slot_names, frame_objects
                                                 ? VarnamesCellsAndFrees(objects, code_address)
                                                 : LocalsPlusNames(objects, code_address));
  const size_t count = std::min(slot_names.names.size(), first_slots);
  const std::string& kinds = slot_names.kinds;
  LocalSlots out;
  out.not_shown = slot_names.size - count;
  std::vector<uint64_t> raw(count);
  if (!raw.empty() &&
      !memory.Read(frame_address + l.frame.localsplus, raw.data(), raw.size() * 8)) {
    return ReadFailed(memory,
        fmt::format("cannot read the locals of the frame at {:#x}", frame_address));
  }
  // 3.14+ keeps _PyStackRef: the low bits are tags, and both low bits set
  // mark an int stored in the reference itself (value << 2 | 0b11).
  const bool tagged = l.frame.stackref_ints;
  out.slots.resize(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto kind = static_cast<uint8_t>(kinds[i]);
    LocalSlot& slot = out.slots[i];
    auto name = objects.ReadString(slot_names.names[i]);
    slot.name = name.ok() ? *name : fmt::format("<local {}>", i);
    slot.cell_or_free = (kind & (kFastCell | kFastFree)) != 0;
    uint64_t value = raw[i];
    if (tagged && (value & 3) == 3) {
      slot.bound = true;
      slot.tagged_int = static_cast<int64_t>(value) >> 2;
      continue;
    }
    value &= ~l.frame.stackref_tag_mask;
    if (value == 0) continue;  // unbound
    if (slot.cell_or_free) {
      // A cell once MAKE_CELL / COPY_FREE_VARS ran (every frame the walk shows).
      // Free variables always hold one; a cell variable may still hold its
      // argument before MAKE_CELL ran, so there the type decides (a type
      // whose name a core does not hold counts as the cell type).
      if (kind & kFastFree) values.NoteCell(value);
      auto type = values.TypeOf(value);
      if (type.ok() && (type->kind == ValueFormatter::Kind::kCell || !type->named)) {
        auto contents = values.CellContents(value);
        if (!contents.ok()) {
          slot.bound = true;
          slot.error = contents.error().message;
          continue;
        }
        if (*contents == 0) continue;  // an empty cell: unbound
        value = *contents;
      }
    }
    if ((kind & kFastHidden) && value == 0) continue;
    slot.bound = true;
    slot.object = value;
  }
  return out;
}

std::vector<uint64_t> LocalObjects(ObjectReader& objects, ValueFormatter& values,
                                   uint64_t frame_address, uint64_t code_address,
                                   const std::vector<std::string_view>& names,
                                   size_t first_slots) {
  std::vector<uint64_t> found(names.size(), 0);
  auto slots = ReadLocalSlots(objects, values, frame_address, code_address, first_slots);
  if (!slots.ok()) return found;
  for (const LocalSlot& slot : slots->slots) {
    if (!slot.bound || slot.error) continue;
    for (size_t i = 0; i < names.size(); ++i) {
      if (slot.name == names[i]) found[i] = slot.object;
    }
  }
  return found;
}

uint64_t SelfOf(ObjectReader& objects, ValueFormatter& values, uint64_t frame_address,
                uint64_t code_address) {
  return LocalObjects(objects, values, frame_address, code_address, {"self"}, 1)[0];
}

FrameLocals ReadFrameLocals(ObjectReader& objects, ValueFormatter& values,
                            uint64_t frame_address, uint64_t code_address) {
  FrameLocals out;
  auto slots = ReadLocalSlots(objects, values, frame_address, code_address);
  if (!slots.ok()) {
    out.error = slots.error().message;
    return out;
  }
  out.not_shown = slots->not_shown;
  for (LocalSlot& slot : slots->slots) {
    if (!slot.bound) continue;
    LocalVariable variable;
    variable.name = std::move(slot.name);
    if (slot.error) {
      variable.error = std::move(slot.error);
    } else {
      ValueDescription d = slot.tagged_int ? ValueFormatter::TaggedInt(*slot.tagged_int)
                                           : values.Describe(slot.object);
      variable.type = std::move(d.type);
      variable.repr = std::move(d.repr);
      variable.error = std::move(d.error);
    }
    out.shown.push_back(std::move(variable));
  }
  return out;
}

std::shared_ptr<const FrameLocals> FrameLocalsReader::Read(const Interpreter& interp,
                                                           const Frame& frame) {
  if (frame.kind != FrameKind::kPython || frame.frame_address == 0) return nullptr;
  if (!values_ || interp_ != interp.address) {
    values_ = std::make_unique<ValueFormatter>(objects_);
    values_->UseBuiltinsOf(interp.address);
    interp_ = interp.address;
  }
  return std::make_shared<const FrameLocals>(
      ReadFrameLocals(objects_, *values_, frame.frame_address, frame.code_address));
}

}  // namespace pyunwind
