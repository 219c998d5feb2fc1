#include "core/asyncio/running_loop.h"

#include <fmt/format.h>

#include <optional>

#include "core/base/address.h"
#include "core/base/printable.h"

namespace pyunwind {
namespace {

Status CheckHolderType(ObjectReader& objects, uint64_t holder) {
  RemoteMemory& memory = objects.memory();
  const Layout& l = objects.layout();
  const Layout::RunningLoop& r = l.running_loop;
  auto name = objects.TypeName(holder);
  if (name.ok()) {
    if (*name == r.holder_type) return Ok{};
    return MakeError(fmt::format("the thread's {} is a {}, not a {}", r.dict_key,
                                 PrintableText(*name), r.holder_type));
  }
  auto type = memory.ReadPointer(holder + l.object.ob_type);
  std::optional<int64_t> size;
  if (type && Aligned(*type)) size = memory.ReadValue<int64_t>(*type + l.type.tp_basicsize);
  if (size && *size == r.holder_size) return Ok{};
  return MakeError(fmt::format("the thread's {} is not a {} ({})", r.dict_key, r.holder_type,
                               name.error().message));
}

// 3.6: asyncio.events._running_loop.loop_pid, a (loop, pid) tuple, that thread's attribute of
// a threading.local: tstate->dict maps the local's key to a dummy keeping the thread's dict.
// 0 where the thread never set it.
Result<uint64_t> ThreadLocalLoop(TaskReader& reader, uint64_t tstate) {
  ObjectReader& objects = reader.objects();
  RemoteMemory& memory = objects.memory();
  RemoteCollections& c = reader.collections();
  const Layout& l = objects.layout();
  auto interp = memory.ReadPointer(tstate + l.tstate.interp);
  auto dict = memory.ReadPointer(tstate + l.tstate.dict);
  if (!interp || !dict) return UnreadableMemory(fmt::format("cannot read thread state {:#x}", tstate));
  if (*dict == 0) return uint64_t{0};  // no thread dict: no threading.local was set here
  auto modules = memory.ReadPointer(*interp + l.interp.modules);
  if (!modules) return UnreadableMemory("cannot read sys.modules");
  PYU_ASSIGN_OR_RETURN(uint64_t events, c.DictGetString(*modules, "asyncio.events"));
  if (events == 0) return uint64_t{0};
  auto events_dict = memory.ReadPointer(events + l.module.md_dict);
  if (!events_dict) return UnreadableMemory("cannot read the dict of asyncio.events");
  PYU_ASSIGN_OR_RETURN(uint64_t local, c.DictGetString(*events_dict, "_running_loop"));
  if (local == 0) return MakeError("asyncio.events has no _running_loop");
  auto key = memory.ReadPointer(local + l.running_loop.local_key);
  if (!key) return UnreadableMemory("cannot read asyncio.events._running_loop");
  PYU_ASSIGN_OR_RETURN(auto entries, c.DictItems(*dict, kMaxContainerEntries));
  for (const auto& [entry_key, dummy] : entries) {
    if (entry_key != *key) continue;
    auto attributes = memory.ReadPointer(dummy + l.running_loop.local_dummy_dict);
    if (!attributes) return UnreadableMemory("cannot read the thread's asyncio.events._running_loop");
    PYU_ASSIGN_OR_RETURN(uint64_t loop_pid, c.DictGetString(*attributes, "loop_pid"));
    if (loop_pid == 0) return uint64_t{0};
    PYU_ASSIGN_OR_RETURN(auto pair, c.TupleItems(loop_pid, 2));
    if (pair.size() != 2) return MakeError("asyncio.events._running_loop.loop_pid is not a pair");
    return pair[0];
  }
  return uint64_t{0};  // the thread never set it
}

}  // namespace

Result<uint64_t> RunningLoopOf(TaskReader& reader, uint64_t tstate) {
  ObjectReader& objects = reader.objects();
  RemoteMemory& memory = objects.memory();
  const Layout& l = objects.layout();
  const int32_t field = reader.layout().tstate_running_loop;
  uint64_t loop = 0;
  if (field != kAbsent) {
    auto value = memory.ReadPointer(tstate + field);
    if (!value) {
      return UnreadableMemory(
          fmt::format("cannot read the running loop of thread state {:#x}", tstate));
    }
    loop = *value;
  } else if (l.running_loop.dict_key != nullptr && l.tstate.dict != kAbsent) {
    auto dict = memory.ReadPointer(tstate + l.tstate.dict);
    if (!dict) {
      return UnreadableMemory(fmt::format("cannot read the dict of thread state {:#x}", tstate));
    }
    if (*dict == 0) return uint64_t{0};  // no thread dict: _asyncio never ran a loop here
    if (!Aligned(*dict)) return MakeError(fmt::format("thread state {:#x} has a bad dict pointer", tstate));
    PYU_ASSIGN_OR_RETURN(uint64_t value, reader.collections().DictGetString(*dict, l.running_loop.dict_key));
    loop = value;
    if (loop != 0 && l.running_loop.holder_type != nullptr) {
      // The holder's type is a tripwire for the table's offset of rl_loop: its
      // name, or where a core lacks the binary's read-only pages that hold
      // it, its instance size (the type object itself is in the data segment).
      PYU_RETURN_IF_ERROR(CheckHolderType(objects, loop));
      auto held = memory.ReadPointer(loop + l.running_loop.holder_loop);
      if (!held) {
        return UnreadableMemory(
            fmt::format("cannot read the {} at {:#x}", l.running_loop.holder_type, loop));
      }
      loop = *held;
    }
  } else if (l.running_loop.local_key != kAbsent && l.tstate.dict != kAbsent) {
    PYU_ASSIGN_OR_RETURN(loop, ThreadLocalLoop(reader, tstate));
  } else {
    return MakeError("this build's layout says nowhere where a thread keeps its running loop");
  }
  if (loop == 0) return uint64_t{0};
  if (!Aligned(loop)) return MakeError(fmt::format("a running loop at the unaligned address {:#x}", loop));
  // Set back to None when the loop stopped. (A core without the binary may
  // not name None's type: such a loop matches no task's loop anyway.)
  auto type = objects.TypeName(loop);
  if (type.ok() && *type == "NoneType") return uint64_t{0};
  return loop;
}

}  // namespace pyunwind
