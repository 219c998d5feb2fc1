#include "core/heap/object_size.h"

#include <algorithm>

#include <fmt/format.h>

#include "core/objects/type_flags.h"

namespace pyunwind {
namespace {

// No real object is larger (a list of 2^40 slots would be 8 TiB): past it a field is garbage.
constexpr uint64_t kMaxObjectBytes = uint64_t{1} << 43;
constexpr int kMaxLog2DictSize = 40;

Error Unreadable(const char* what, uint64_t object) {
  return UnreadableMemory(fmt::format("cannot read the {} of the object at {:#x}", what, object));
}

Error Implausible(const char* what, uint64_t value, uint64_t object) {
  return MakeError(fmt::format("the object at {:#x} has an impossible {} ({})", object, what, value));
}

// list.__sizeof__: the object and its allocated slots.
Result<uint64_t> ListSize(ObjectReader& objects, uint64_t list, const TypeSize& type) {
  auto allocated = objects.memory().ReadValue<int64_t>(list + objects.layout().list.allocated);
  if (!allocated) return Unreadable("allocated slots", list);
  // -1 while list.sort() runs (the items sit in sort's own array): no slots of its own.
  if (*allocated == -1) return type.basicsize;
  if (*allocated < 0 || uint64_t(*allocated) > kMaxObjectBytes / 8) {
    return Implausible("allocated size", uint64_t(*allocated), list);
  }
  return type.basicsize + uint64_t(*allocated) * 8;
}

// _PyDict_KeysSize: the header, the index table and the usable entries.
Result<uint64_t> KeysSize(RemoteMemory& memory, const Layout::DictKeys& k, uint64_t keys,
                          uint64_t dict) {
  uint8_t header[3];  // log2_size, log2_index_bytes, kind
  if (!memory.Read(keys + k.log2_size, header, sizeof header)) return Unreadable("keys", dict);
  const int log2_size = header[0], log2_index_bytes = header[k.log2_index_bytes - k.log2_size];
  if (log2_size > kMaxLog2DictSize || log2_index_bytes > kMaxLog2DictSize + 3) {
    return Implausible("key table size", uint64_t{1} << std::min(log2_size, 63), dict);
  }
  const uint64_t entry = header[k.kind - k.log2_size] == 0 ? k.general_entry_size
                                                           : k.unicode_entry_size;
  const uint64_t usable = ((uint64_t{1} << log2_size) << 1) / 3;  // USABLE_FRACTION
  return uint64_t(k.header_size) + (uint64_t{1} << log2_index_bytes) + usable * entry;
}

// dict.__sizeof__ (_PyDict_SizeOf): the object; a split table's values, as many as its
// shared keys can hold; the keys unless shared (dk_refcnt != 1: a class's, or the
// immortal empty keys).
Result<uint64_t> DictSize(ObjectReader& objects, uint64_t dict, const TypeSize& type) {
  RemoteMemory& memory = objects.memory();
  const Layout& l = objects.layout();
  auto keys = memory.ReadPointer(dict + l.dict.ma_keys);
  auto values = memory.ReadPointer(dict + l.dict.ma_values);
  if (!keys || !values) return Unreadable("keys", dict);
  uint64_t size = type.basicsize;
  const Layout::DictKeys& k = l.dict_keys;
  if (*values != 0) {
    auto nentries = memory.ReadValue<int64_t>(*keys + k.nentries);
    auto usable = memory.ReadValue<int64_t>(*keys + k.usable);
    if (!nentries || !usable) return Unreadable("shared keys", dict);
    const int64_t slots = *nentries + *usable;
    if (*nentries < 0 || *usable < 0 || uint64_t(slots) > kMaxObjectBytes / 8) {
      return Implausible("split table size", uint64_t(slots), dict);
    }
    size += uint64_t(slots) * 8;
  }
  auto refcnt = memory.ReadValue<int64_t>(*keys + k.refcnt);
  if (!refcnt) return Unreadable("keys", dict);
  if (*refcnt == 1) {
    PYU_ASSIGN_OR_RETURN(uint64_t keys_size, KeysSize(memory, k, *keys, dict));
    size += keys_size;
  }
  return size;
}

// set.__sizeof__: the object, and its table once it left the embedded small table.
Result<uint64_t> SetSize(ObjectReader& objects, uint64_t set, const TypeSize& type) {
  RemoteMemory& memory = objects.memory();
  const Layout& l = objects.layout();
  auto table = memory.ReadPointer(set + l.set.table);
  auto mask = memory.ReadValue<int64_t>(set + l.set.mask);
  if (!table || !mask) return Unreadable("table", set);
  if (*table == set + l.set.smalltable) return type.basicsize;
  if (*mask < 0 || uint64_t(*mask) >= kMaxObjectBytes / 16) {
    return Implausible("table mask", uint64_t(*mask), set);
  }
  return type.basicsize + (uint64_t(*mask) + 1) * 16;  // setentry {key, hash}
}

// type.__sizeof__ of a class (static types are on no list): the PyHeapTypeObject, which is
// the metatype's basic size (its items, the __slots__ members, are not counted), and the keys
// its instances' dicts share.
Result<uint64_t> TypeObjectSize(ObjectReader& objects, uint64_t type, const TypeSize& meta) {
  const Layout& l = objects.layout();
  auto keys = objects.memory().ReadPointer(type + l.type.ht_cached_keys);
  if (!keys) return Unreadable("cached keys", type);
  if (*keys == 0) return meta.basicsize;
  PYU_ASSIGN_OR_RETURN(uint64_t keys_size, KeysSize(objects.memory(), l.dict_keys, *keys, type));
  return meta.basicsize + keys_size;
}

// int.__sizeof__ (of an int subclass's instance: plain ints are not tracked): the digits
// after the header, at least one, whatever the subclass adds.
Result<uint64_t> IntSize(ObjectReader& objects, uint64_t object) {
  const Layout& l = objects.layout();
  uint64_t digits = 0;
  if (l.long_object.lv_tag != kAbsent) {  // 3.12+: digit count << 3 | sign bits
    auto tag = objects.memory().ReadValue<uint64_t>(object + l.long_object.lv_tag);
    if (!tag) return Unreadable("digits", object);
    digits = *tag >> 3;
  } else {  // 3.11: the signed digit count
    auto size = objects.memory().ReadValue<int64_t>(object + l.long_object.ob_size);
    if (!size) return Unreadable("digits", object);
    digits = *size < 0 ? uint64_t(0) - uint64_t(*size) : uint64_t(*size);
  }
  if (digits > kMaxObjectBytes / 4) return Implausible("digit count", digits, object);
  return uint64_t(l.long_object.ob_digit) + std::max<uint64_t>(digits, 1) * 4;
}

// str.__sizeof__ (unicode_sizeof_impl): compact ASCII text after a PyASCIIObject, other
// compact kinds after a PyCompactUnicodeObject, a legacy string's separate block, each with
// its terminator; plus a UTF-8 copy kept apart from the text. PyCompactUnicodeObject starts
// with PyASCIIObject, then utf8_length and utf8 (3.3 to 3.15).
Result<uint64_t> StrSize(ObjectReader& objects, uint64_t str) {
  RemoteMemory& memory = objects.memory();
  const Layout::Unicode& u = objects.layout().unicode;
  if (u.state == kAbsent || u.length == kAbsent || u.ascii_data == kAbsent ||
      u.compact_data == kAbsent) {
    return MakeError("the version's str layout is not known");
  }
  auto state = memory.ReadValue<uint32_t>(str + u.state);
  auto length = memory.ReadValue<int64_t>(str + u.length);
  if (!state || !length) return Unreadable("length", str);
  if (*length < 0 || uint64_t(*length) > kMaxObjectBytes / 4) {
    return Implausible("length", uint64_t(*length), str);
  }
  const uint64_t kind = (*state >> u.kind_shift) & 7, chars = uint64_t(*length) + 1;
  const bool compact = (*state >> u.compact_bit) & 1, ascii = (*state >> u.ascii_bit) & 1;
  if (compact && ascii) return uint64_t(u.ascii_data) + chars;
  if (kind != 1 && kind != 2 && kind != 4) return Implausible("kind", kind, str);
  // A legacy string (a str subclass's instance) counts sizeof(PyUnicodeObject): the compact
  // struct and the data pointer, whatever the subclass adds.
  uint64_t size = uint64_t(u.compact_data) + (compact ? chars * kind : 8);
  uint64_t data = 0;
  if (!compact) {
    auto pointer = memory.ReadPointer(str + u.compact_data);
    if (!pointer) return Unreadable("text", str);
    data = *pointer;
    if (data != 0) size += chars * kind;
  }
  uint64_t utf8[2];  // utf8_length, utf8
  if (!memory.Read(str + u.ascii_data, utf8, sizeof utf8)) return Unreadable("UTF-8 copy", str);
  if (utf8[1] != 0 && utf8[1] != data) {
    if (utf8[0] > kMaxObjectBytes) return Implausible("UTF-8 length", utf8[0], str);
    size += utf8[0] + 1;
  }
  return size;
}

// object.__sizeof__: the basic size and the items.
Result<uint64_t> GenericSize(ObjectReader& objects, uint64_t object, const TypeSize& type) {
  if (type.itemsize == 0) return type.basicsize;
  auto size = objects.memory().ReadValue<int64_t>(object + objects.layout().object.ob_size);
  if (!size) return Unreadable("size", object);
  const uint64_t items = *size < 0 ? uint64_t(0) - uint64_t(*size) : uint64_t(*size);
  // A type with items whose instances keep no ob_size (frame objects, whose `f_back` sits
  // there): its basic size, as a lower bound.
  if (items > kMaxObjectBytes / type.itemsize) return type.basicsize;
  return type.basicsize + items * type.itemsize;
}

// gen_sizeof: the object up to its embedded frame's localsplus (tp_basicsize), and a slot
// (tp_itemsize) per local and value-stack entry of the frame's code (co_nlocalsplus +
// co_stacksize, what _PyFrame_NumSlotsForCodeObject counts). Its ob_size field is the first
// of the generator's own fields, no count.
Result<uint64_t> GeneratorSize(ObjectReader& objects, uint64_t object, const TypeSize& type) {
  const Layout& l = objects.layout();
  RemoteMemory& memory = objects.memory();
  auto executable =
      memory.ReadPointer(object + uint64_t(l.gen.iframe) + uint64_t(l.frame.executable));
  if (!executable) return Unreadable("frame's code", object);
  const uint64_t code = *executable & ~uint64_t{7};  // 3.14's _PyStackRef tags the low bits
  auto locals = memory.ReadValue<int32_t>(code + uint64_t(l.code.nlocalsplus));
  auto stack = memory.ReadValue<int32_t>(code + uint64_t(l.code.stacksize));
  if (!locals || !stack) return Unreadable("code's frame size", object);
  if (*locals < 0 || *stack < 0 || uint64_t(*locals) + uint64_t(*stack) > kMaxObjectBytes / 8) {
    return Implausible("frame size", uint64_t(uint32_t(*locals)) + uint64_t(uint32_t(*stack)),
                       object);
  }
  return type.basicsize + (uint64_t(*locals) + uint64_t(*stack)) * type.itemsize;
}

}  // namespace

NamedKind NamedKindOf(std::string_view name) {
  if (name == "set" || name == "frozenset") return NamedKind::kSet;
  if (name == "generator" || name == "coroutine" || name == "async_generator") {
    return NamedKind::kGenerator;
  }
  return NamedKind::kOther;
}

Result<TypeSize> ReadTypeSize(ObjectReader& objects, uint64_t type, NamedKind kind) {
  RemoteMemory& memory = objects.memory();
  const Layout& l = objects.layout();
  auto basicsize = memory.ReadValue<int64_t>(type + l.type.tp_basicsize);
  auto itemsize = memory.ReadValue<int64_t>(type + l.type.tp_itemsize);
  auto flags = memory.ReadValue<uint64_t>(type + l.type.tp_flags);
  if (!basicsize || !itemsize || !flags) {
    return UnreadableMemory(fmt::format("cannot read the type object at {:#x}", type));
  }
  if (*basicsize < 16 || uint64_t(*basicsize) > kMaxObjectBytes || *itemsize < 0 ||
      uint64_t(*itemsize) > (1u << 20)) {
    return MakeError(fmt::format("the type at {:#x} has impossible sizes (basic {}, item {})",
                                 type, *basicsize, *itemsize));
  }
  TypeSize size{uint64_t(*basicsize), uint64_t(*itemsize), *flags, SizeRule::kObject};
  if (*flags & kListSubclassFlag) {
    size.rule = SizeRule::kList;
  } else if (*flags & kDictSubclassFlag) {
    size.rule = SizeRule::kDict;
  } else if (*flags & kLongSubclassFlag && l.long_object.ob_digit != kAbsent) {
    size.rule = SizeRule::kInt;
  } else if (*flags & kTypeSubclassFlag && l.type.ht_cached_keys != kAbsent) {
    size.rule = SizeRule::kType;
  } else if (*flags & kUnicodeSubclassFlag) {
    size.rule = SizeRule::kStr;
  } else if (kind == NamedKind::kSet) {
    size.rule = SizeRule::kSet;
  } else if (kind == NamedKind::kGenerator && *itemsize != 0 && l.gen.iframe != kAbsent &&
             l.frame.executable != kAbsent && l.code.nlocalsplus != kAbsent &&
             l.code.stacksize != kAbsent) {
    size.rule = SizeRule::kGenerator;
  }
  return size;
}

bool IsContainer(const TypeSize& type) {
  return type.rule == SizeRule::kList || type.rule == SizeRule::kDict ||
         type.rule == SizeRule::kSet || (type.flags & kTupleSubclassFlag) != 0;
}

Result<uint64_t> ContainerLength(ObjectReader& objects, uint64_t object, const TypeSize& type) {
  const Layout& l = objects.layout();
  const int32_t field = type.rule == SizeRule::kList   ? l.list.ob_size
                        : type.rule == SizeRule::kDict ? l.dict.ma_used
                        : type.rule == SizeRule::kSet  ? l.set.used
                                                       : l.tuple.ob_size;
  if (field == kAbsent) return MakeError("the version's container lengths are not known");
  auto length = objects.memory().ReadValue<int64_t>(object + uint64_t(field));
  if (!length) return Unreadable("length", object);
  if (*length < 0 || uint64_t(*length) > kMaxObjectBytes / 8) {
    return Implausible("length", uint64_t(*length), object);
  }
  return uint64_t(*length);
}

namespace {

// The object's own __sizeof__, without what sys.getsizeof adds.
Result<uint64_t> OwnSize(ObjectReader& objects, uint64_t object, const TypeSize& type) {
  switch (type.rule) {
    case SizeRule::kList: return ListSize(objects, object, type);
    case SizeRule::kDict: return DictSize(objects, object, type);
    case SizeRule::kSet: return SetSize(objects, object, type);
    case SizeRule::kType: return TypeObjectSize(objects, object, type);
    case SizeRule::kInt: return IntSize(objects, object);
    case SizeRule::kStr: return StrSize(objects, object);
    case SizeRule::kGenerator: return GeneratorSize(objects, object, type);
    case SizeRule::kObject: break;
  }
  return GenericSize(objects, object, type);
}

// What sys.getsizeof adds for an object with a GC header (_PyType_PreHeaderSize).
uint64_t PreHeaderSize(const Layout& l, const TypeSize& type) {
  const uint64_t preheader = (type.flags & l.gc.preheader_flags) ? l.gc.preheader_size : 0;
  return uint64_t(l.gc.head_size) + preheader;
}

}  // namespace

Result<uint64_t> TrackedObjectSize(ObjectReader& objects, uint64_t object, const TypeSize& type) {
  PYU_ASSIGN_OR_RETURN(uint64_t own, OwnSize(objects, object, type));
  return own + PreHeaderSize(objects.layout(), type);
}

Result<uint64_t> UntrackedObjectSize(ObjectReader& objects, uint64_t object, const TypeSize& type) {
  PYU_ASSIGN_OR_RETURN(uint64_t own, OwnSize(objects, object, type));
  return own + ((type.flags & kHaveGcFlag) ? PreHeaderSize(objects.layout(), type) : 0);
}

}  // namespace pyunwind
