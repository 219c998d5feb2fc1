#include "core/walk/thread_names.h"

#include <fmt/format.h>

#include <unordered_map>

#include "core/base/address.h"
#include "core/objects/remote_collections.h"

namespace pyunwind {
namespace {

constexpr size_t kMaxThreadName = 256;  // characters kept of a name

// The `_name` of a threading.Thread object (2.7: `_Thread__name`).
Result<std::string> NameOf(RemoteCollections& c, uint64_t thread_object) {
  const char* attribute = c.objects().layout().threading.name_attribute;
  PYU_ASSIGN_OR_RETURN(uint64_t name, c.InstanceAttribute(thread_object, attribute));
  if (name == 0) return MakeError("a Thread without _name");
  return c.objects().ReadString(name, kMaxThreadName);
}

// The main thread's Thread object: threading._main_thread, or 2.7's
// threading._shutdown, the bound method _MainThread()._exitfunc; 0 when there is none.
Result<uint64_t> MainThreadObject(RemoteCollections& c, uint64_t threading_dict) {
  const Layout::Threading& t = c.objects().layout().threading;
  PYU_ASSIGN_OR_RETURN(uint64_t main, c.DictGetString(threading_dict, t.main_thread));
  if (main == 0 || !t.main_thread_is_bound_method) return main;
  PYU_ASSIGN_OR_RETURN(auto function_and_self, c.BoundMethod(main));
  return function_and_self.second;
}

// ident -> Thread object of threading._active, and of the main thread (its `_ident`).
Result<std::unordered_map<uint64_t, uint64_t>> ThreadObjects(RemoteCollections& c,
                                                             uint64_t threading_dict,
                                                             std::optional<uint64_t>& main_ident) {
  std::unordered_map<uint64_t, uint64_t> objects;
  PYU_ASSIGN_OR_RETURN(uint64_t active, c.DictGetString(threading_dict, "_active"));
  if (active != 0) {
    PYU_ASSIGN_OR_RETURN(auto items, c.DictItems(active, kMaxThreadsPerInterpreter));
    for (const auto& [key, thread_object] : items) {
      auto ident = c.objects().ReadInt(key);
      if (ident.ok()) objects.emplace(static_cast<uint64_t>(*ident), thread_object);
    }
  }
  auto main = MainThreadObject(c, threading_dict);
  if (main.ok() && *main != 0) {
    auto ident_object = c.InstanceAttribute(*main, c.objects().layout().threading.ident_attribute);
    if (ident_object.ok() && *ident_object != 0) {
      auto ident = c.objects().ReadInt(*ident_object);
      if (ident.ok()) {
        objects.emplace(static_cast<uint64_t>(*ident), *main);
        main_ident = static_cast<uint64_t>(*ident);
      }
    }
  }
  return objects;
}

}  // namespace

ThreadNames::ThreadNames(ObjectReader& objects, const Interpreter& interp,
                         std::vector<std::string>& warnings)
    : objects_(objects) {
  const Layout& l = objects.layout();
  if (l.interp.modules == kAbsent || l.module.md_dict == kAbsent) return;
  RemoteMemory& memory = objects.memory();
  auto modules = memory.ReadPointer(interp.address + l.interp.modules);
  if (!modules || !Aligned(*modules) || *modules == 0) return;
  RemoteCollections c(objects);
  auto threading = c.DictGetString(*modules, "threading");
  if (!threading.ok() || *threading == 0) return;  // not imported: no names to give
  auto dict = memory.ReadPointer(*threading + l.module.md_dict);
  if (!dict || !Aligned(*dict) || *dict == 0) {
    warnings.push_back(fmt::format("interpreter {}: cannot read the threading module's dict", interp.id));
    return;
  }
  auto thread_objects = ThreadObjects(c, *dict, main_ident_);
  if (!thread_objects.ok()) {
    warnings.push_back(fmt::format("interpreter {}: cannot read threading._active: {}", interp.id,
                                   thread_objects.error().message));
    return;
  }
  thread_objects_ = std::move(*thread_objects);
}

void ThreadNames::Name(Thread& thread) {
  if (!thread.python_id) return;
  auto it = thread_objects_.find(*thread.python_id);
  if (it == thread_objects_.end()) return;
  RemoteCollections c(objects_);
  auto name = NameOf(c, it->second);
  if (name.ok()) thread.name = *name;
}

}  // namespace pyunwind
