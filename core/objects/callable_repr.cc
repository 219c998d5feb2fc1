#include "core/objects/callable_repr.h"

#include <fmt/format.h>

namespace pyunwind {
namespace {

constexpr size_t kMaxNameLength = 256;


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
  if (type_name == "builtin_function_or_method") {
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
