// Python's repr() of the C-level callables, read from their objects: C functions and
// methods (PyCFunctionObject), method-wrappers (a slot bound to its self), slot wrappers and
// method descriptors (PyDescr_COMMON). A bound method's repr needs its self's, which the
// value formatter gives (values.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/base/result.h"
#include "core/objects/objects.h"

namespace pyunwind {

// repr() of `callable`, whose type's tp_name is `type_name`, where it is one of:
//   builtin_function_or_method: <built-in function NAME> (no self, or a module), else
//     <built-in method NAME of TYPE object at 0x...> (TYPE: its self's tp_name);
//   method-wrapper: <method-wrapper 'NAME' of TYPE object at 0x...>;
//   wrapper_descriptor: <slot wrapper 'NAME' of 'TYPE' objects>;
//   method_descriptor, classmethod_descriptor: <method 'NAME' of 'TYPE' objects>.
// nullopt for any other type; an error where the object cannot be read.
Result<std::optional<std::string>> CCallableRepr(ObjectReader& objects, uint64_t callable,
                                                 std::string_view type_name);

// PyDescr_COMMON's d_name (a str) and its d_type's tp_name: (name, type name).
Result<std::pair<std::string, std::string>> DescriptorNames(ObjectReader& objects,
                                                            uint64_t descriptor);

}  // namespace pyunwind
