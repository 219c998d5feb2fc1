#include "core/objects/callable_repr.h"

#include <fmt/format.h>

#include "core/objects/type_flags.h"

namespace pyunwind {
namespace {

constexpr size_t kMaxNameLength = 256;

// PyHeapTypeObject { ...; PyObject *ht_name, *ht_slots, *ht_qualname; struct
// _dictkeysobject *ht_cached_keys; ... } (3.3 to 3.15): the qualname is the word before the
// cached keys. kAbsent where the layout has no heap type (2.7).
int32_t HeapTypeQualname(const Layout& l) {
  return l.type.ht_cached_keys == kAbsent ? kAbsent : l.type.ht_cached_keys - 8;
}


// The C name of a slot: wrapperbase.name (its first member) of a wrapper_descriptor's d_base.
Result<std::string> SlotName(ObjectReader& objects, uint64_t wrapper_descriptor) {
  auto base = objects.memory().ReadPointer(wrapper_descriptor + objects.layout().descriptor.d_base);
  if (!base || *base == 0) return UnreadableMemory("cannot read a slot wrapper's d_base");
  auto name = objects.memory().ReadPointer(*base);
  if (!name || *name == 0) return UnreadableMemory("cannot read a slot wrapper's name");
  return objects.ReadCString(*name, kMaxNameLength);
}

Result<std::string> CFunctionRepr(ObjectReader& objects, uint64_t function) {
  const Layout::CFunction& c = objects.layout().cfunction;
  auto method_def = objects.memory().ReadPointer(function + c.m_ml);
  auto self = objects.memory().ReadPointer(function + c.m_self);
  if (!method_def || !self || *method_def == 0) return UnreadableMemory("cannot read a C function");
  // PyMethodDef.ml_name, its first member.
  auto name_address = objects.memory().ReadPointer(*method_def);
  if (!name_address || *name_address == 0) {
    return UnreadableMemory("cannot read a C function's name");
  }
  PYU_ASSIGN_OR_RETURN(std::string name, objects.ReadCString(*name_address, kMaxNameLength));
  if (*self == 0) return fmt::format("<built-in function {}>", name);
  PYU_ASSIGN_OR_RETURN(std::string self_type, objects.TypeName(*self));
  // Objects/methodobject.c, meth_repr: a module's function has the module as its self.
  if (self_type == "module") return fmt::format("<built-in function {}>", name);
  return fmt::format("<built-in method {} of {} object at {:#x}>", name, self_type, *self);
}

Result<std::string> MethodWrapperRepr(ObjectReader& objects, uint64_t wrapper) {
  const Layout::MethodWrapper& w = objects.layout().method_wrapper;
  auto descriptor = objects.memory().ReadPointer(wrapper + w.descr);
  auto self = objects.memory().ReadPointer(wrapper + w.self);
  if (!descriptor || !self || *descriptor == 0 || *self == 0) {
    return UnreadableMemory("cannot read a method-wrapper");
  }
  PYU_ASSIGN_OR_RETURN(std::string name, SlotName(objects, *descriptor));
  PYU_ASSIGN_OR_RETURN(std::string self_type, objects.TypeName(*self));
  return fmt::format("<method-wrapper '{}' of {} object at {:#x}>", name, self_type, *self);
}

}  // namespace

Result<std::string> TypeReprName(ObjectReader& objects, uint64_t type) {
  const Layout& l = objects.layout();
  RemoteMemory& memory = objects.memory();
  PYU_ASSIGN_OR_RETURN(std::string tp_name, objects.TypeNameOfType(type));
  auto flags = memory.ReadValue<uint64_t>(type + l.type.tp_flags);
  if (!flags) return UnreadableMemory("cannot read a type's flags");
  if (!(*flags & kHeapTypeFlag) || l.type.tp_dict == kAbsent) return tp_name;
  auto dict = memory.ReadPointer(type + l.type.tp_dict);
  if (!dict) return UnreadableMemory("cannot read a class's dict");
  if (*dict == 0) return tp_name;
  PYU_ASSIGN_OR_RETURN(uint64_t module, objects.LookupStringKey(*dict, "__module__"));
  if (module == 0) return tp_name;
  // PyUnicode_Check (2.7: PyString_Check) by the flags: a core without its executable has no
  // tp_name of str.
  PYU_ASSIGN_OR_RETURN(uint64_t module_flags, objects.TypeFlagsOf(module));
  if (!(module_flags & (IsPython2(l) ? kBytesSubclassFlag : kUnicodeSubclassFlag))) return tp_name;
  PYU_ASSIGN_OR_RETURN(std::string module_name, objects.ReadString(module, kMaxNameLength));
  if (module_name == (IsPython2(l) ? "__builtin__" : "builtins")) return tp_name;
  std::string name = tp_name;
  if (const int32_t qualname = HeapTypeQualname(l); qualname != kAbsent) {
    auto text = memory.ReadPointer(type + qualname);
    if (!text || *text == 0) return UnreadableMemory("cannot read a class's qualified name");
    PYU_ASSIGN_OR_RETURN(name, objects.ReadString(*text, kMaxNameLength));
  }
  return module_name + "." + name;
}

Result<std::string> GenericObjectRepr(ObjectReader& objects, uint64_t object) {
  PYU_ASSIGN_OR_RETURN(uint64_t type, objects.TypeOf(object));
  PYU_ASSIGN_OR_RETURN(std::string name, TypeReprName(objects, type));
  return fmt::format("<{} object at {:#x}>", name, object);
}

Result<std::string> ClassRepr(ObjectReader& objects, uint64_t type) {
  PYU_ASSIGN_OR_RETURN(std::string name, TypeReprName(objects, type));
  if (IsPython2(objects.layout())) {
    auto flags = objects.memory().ReadValue<uint64_t>(type + objects.layout().type.tp_flags);
    if (!flags) return UnreadableMemory("cannot read a type's flags");
    return fmt::format("<{} '{}'>", (*flags & kHeapTypeFlag) ? "class" : "type", name);
  }
  return fmt::format("<class '{}'>", name);
}

Result<std::optional<std::string>> CalleeRepr(ObjectReader& objects, uint64_t callee) {
  if (callee == 0 || callee % 8 != 0) return MakeError("no callee");
  PYU_ASSIGN_OR_RETURN(std::string type, objects.TypeName(callee));
  if (type == "function" || type == "method") return std::optional<std::string>();
  PYU_ASSIGN_OR_RETURN(std::optional<std::string> c_callable, CCallableRepr(objects, callee, type));
  if (c_callable) return c_callable;
  if (type == "type") {
    PYU_ASSIGN_OR_RETURN(std::string repr, ClassRepr(objects, callee));
    return std::optional<std::string>(std::move(repr));
  }
  PYU_ASSIGN_OR_RETURN(std::string repr, GenericObjectRepr(objects, callee));
  return std::optional<std::string>(std::move(repr));
}

Result<std::pair<std::string, std::string>> DescriptorNames(ObjectReader& objects,
                                                            uint64_t descriptor) {
  const Layout::Descriptor& d = objects.layout().descriptor;
  auto type = objects.memory().ReadPointer(descriptor + d.d_type);
  auto name = objects.memory().ReadPointer(descriptor + d.d_name);
  if (!type || !name) return UnreadableMemory("cannot read a descriptor");
  PYU_ASSIGN_OR_RETURN(std::string type_name, objects.TypeNameOfType(*type));
  PYU_ASSIGN_OR_RETURN(std::string text, objects.ReadString(*name, kMaxNameLength));
  return std::make_pair(std::move(text), std::move(type_name));
}

Result<std::optional<std::string>> CCallableRepr(ObjectReader& objects, uint64_t callable,
                                                 std::string_view type_name) {
  // builtin_method (3.9+, PyCMethod_Type): a C method that is given its defining class, a
  // PyCFunctionObject underneath, with the same repr.
  if (type_name == "builtin_function_or_method" || type_name == "builtin_method") {
    PYU_ASSIGN_OR_RETURN(std::string repr, CFunctionRepr(objects, callable));
    return std::optional<std::string>(std::move(repr));
  }
  if (type_name == "method-wrapper") {
    PYU_ASSIGN_OR_RETURN(std::string repr, MethodWrapperRepr(objects, callable));
    return std::optional<std::string>(std::move(repr));
  }
  const bool slot = type_name == "wrapper_descriptor";
  if (slot || type_name == "method_descriptor" || type_name == "classmethod_descriptor") {
    PYU_ASSIGN_OR_RETURN(auto names, DescriptorNames(objects, callable));
    return std::optional<std::string>(fmt::format("<{} '{}' of '{}' objects>",
                                                  slot ? "slot wrapper" : "method", names.first,
                                                  names.second));
  }
  return std::optional<std::string>();
}

}  // namespace pyunwind
