#include "core/walk/locals.h"

#include <fmt/format.h>

#include "core/objects/remote_collections.h"

namespace pyunwind {
namespace {

// co_localspluskinds bits (Include/internal/pycore_code.h, 3.11-3.15).
constexpr uint8_t kFastHidden = 0x10;  // 3.12+: inlined comprehension variables
constexpr uint8_t kFastCell = 0x40;
constexpr uint8_t kFastFree = 0x80;

}  // namespace

Result<std::vector<LocalSlot>> ReadLocalSlots(ObjectReader& objects, ValueFormatter& values,
                                              uint64_t frame_address, uint64_t code_address) {
  const Layout& l = objects.layout();
  RemoteMemory& memory = objects.memory();
  if (l.code.localsplusnames == kAbsent || l.code.localspluskinds == kAbsent ||
      l.frame.localsplus == kAbsent) {
    return MakeError(fmt::format("Python {} ({}) does not tell where a frame's locals are",
                                 l.version.ToString(), l.source));
  }
  auto names_address = memory.ReadPointer(code_address + l.code.localsplusnames);
  auto kinds_address = memory.ReadPointer(code_address + l.code.localspluskinds);
  if (!names_address || !kinds_address) {
    return MakeError(fmt::format("cannot read the local names of the code object at {:#x}", code_address));
  }
  RemoteCollections collections(objects);
  auto names = collections.TupleItems(*names_address, kMaxLocalsPerFrame);
  if (!names.ok()) return MakeError("cannot read co_localsplusnames: " + names.error().message);
  PYU_ASSIGN_OR_RETURN(std::string kinds, objects.ReadBytes(*kinds_address, kMaxLocalsPerFrame));
  if (kinds.size() != names->size()) {
    return MakeError(fmt::format("co_localspluskinds has {} entries for {} names", kinds.size(),
                                 names->size()));
  }
  std::vector<uint64_t> raw(names->size());
  if (!raw.empty() &&
      !memory.Read(frame_address + l.frame.localsplus, raw.data(), raw.size() * 8)) {
    return MakeError(fmt::format("cannot read the locals of the frame at {:#x}", frame_address));
  }
  // 3.14+ keeps _PyStackRef: the low bits are tags, and both low bits set
  // mark an int stored in the reference itself (value << 2 | 0b11).
  const bool tagged = l.frame.stackref_ints;
  std::vector<LocalSlot> out(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    const auto kind = static_cast<uint8_t>(kinds[i]);
    LocalSlot& slot = out[i];
    auto name = objects.ReadString((*names)[i]);
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

Result<std::vector<LocalVariable>> ReadFrameLocals(ObjectReader& objects, ValueFormatter& values,
                                                   uint64_t frame_address, uint64_t code_address) {
  PYU_ASSIGN_OR_RETURN(std::vector<LocalSlot> slots,
                       ReadLocalSlots(objects, values, frame_address, code_address));
  std::vector<LocalVariable> out;
  for (LocalSlot& slot : slots) {
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
    out.push_back(std::move(variable));
  }
  return out;
}

void AddLocals(ObjectReader& objects, Snapshot& snapshot) {
  for (Interpreter& interp : snapshot.interpreters) {
    ValueFormatter values(objects);
    values.LoadBuiltins(interp.address);
    for (Thread& thread : interp.threads) {
      for (Frame& frame : thread.frames) {
        if (frame.kind != FrameKind::kPython || frame.frame_address == 0) continue;
        auto locals = ReadFrameLocals(objects, values, frame.frame_address, frame.code_address);
        if (locals.ok()) {
          frame.locals = std::move(*locals);
        } else {
          frame.locals_error = locals.error().message;
        }
      }
    }
  }
}

}  // namespace pyunwind
