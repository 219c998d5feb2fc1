// What sys.getsizeof says of one object the collector tracks, rebuilt from its memory:
// its type's __sizeof__ (object's: tp_basicsize + tp_itemsize * |ob_size|; list's, dict's and
// set's own, which add the storage they own; type's: the PyHeapTypeObject and the shared
// keys of its instances' dicts; int's: its digits, for the int subclasses a collector tracks,
// such as enum.IntFlag members) plus the PyGC_Head and the managed dict/weakref
// pre-header (_PyType_PreHeaderSize). A generator's, coroutine's or async generator's
// (3.11+) is its own: the object up to its embedded frame's locals, then one slot per local
// and stack entry its code has. Other types with a __sizeof__ of their own (code, frames,
// ...) get object's formula: a lower bound. str's __sizeof__ is its own
// (the struct of its kind, its characters and a cached UTF-8 copy; 3.11's wchar_t copy,
// which only legacy C APIs make, is not counted).
#pragma once

#include <cstdint>
#include <string_view>

#include "core/base/result.h"
#include "core/objects/objects.h"

namespace pyunwind {

// Which __sizeof__ an object's type uses.
enum class SizeRule { kObject, kList, kDict, kSet, kType, kInt, kStr, kGenerator };

// What no type flag says of a type, told by its name: set or frozenset, or a generator,
// coroutine or async generator.
enum class NamedKind { kOther, kSet, kGenerator };

// What the size of every instance of one type is made of.
struct TypeSize {
  uint64_t basicsize = 0;
  uint64_t itemsize = 0;
  uint64_t flags = 0;
  SizeRule rule = SizeRule::kObject;
};

// The type's sizes.
Result<TypeSize> ReadTypeSize(ObjectReader& objects, uint64_t type, NamedKind kind);
// The kind the type named `name` (tp_name, or what the `types` module calls it) is.
NamedKind NamedKindOf(std::string_view name);

// sys.getsizeof(object) for a tracked object of that type; an error when a field it needs
// cannot be read or is out of bounds.
Result<uint64_t> TrackedObjectSize(ObjectReader& objects, uint64_t object, const TypeSize& type);
// sys.getsizeof(object) for an object the collector does not track: the GC header and
// pre-header only where its type has them (an untracked tuple or dict), none for str, int, ...
Result<uint64_t> UntrackedObjectSize(ObjectReader& objects, uint64_t object, const TypeSize& type);

// Whether instances of the type are containers py-heap --containers ranks: lists, tuples,
// dicts, sets and frozensets (and their subclasses).
bool IsContainer(const TypeSize& type);
// len() of such a container: its items, keys or elements.
Result<uint64_t> ContainerLength(ObjectReader& objects, uint64_t object, const TypeSize& type);

}  // namespace pyunwind
