// Python's repr() of the C-level callables, read from their objects: C functions and
// methods (PyCFunctionObject), method-wrappers (a slot bound to its self), slot wrappers and
// method descriptors (PyDescr_COMMON); of classes, and object.__repr__'s generic form, whose
// names both come from the type (TypeReprName). A bound method's repr needs its self's, which
// the value formatter gives (values.cc). py-bt's C-call line is CalleeRepr's.
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
//   builtin_function_or_method (and 3.9+'s builtin_method): <built-in function NAME> (no
//     self, or a module), else <built-in method NAME of TYPE object at 0x...> (TYPE: its
//     self's tp_name);
//   method-wrapper: <method-wrapper 'NAME' of TYPE object at 0x...>;
//   wrapper_descriptor: <slot wrapper 'NAME' of 'TYPE' objects>;
//   method_descriptor, classmethod_descriptor: <method 'NAME' of 'TYPE' objects>.
// nullopt for any other type; an error where the object cannot be read.
Result<std::optional<std::string>> CCallableRepr(ObjectReader& objects, uint64_t callable,
                                                 std::string_view type_name);

// The name object.__repr__ and type.__repr__ give a type (Objects/typeobject.c, object_repr
// and type_repr): a heap type's __module__ (a str in its dict) and its qualified name
// (ht_qualname; 2.7: its name) joined by a dot, unless that module is builtins (2.7:
// __builtin__) or is not a str; else its tp_name, which for a static type already carries its
// module ("_thread.lock", "list"). Each read bounded; an error where one fails.
Result<std::string> TypeReprName(ObjectReader& objects, uint64_t type);

// object.__repr__ of `object`: <NAME object at 0x...>, NAME as TypeReprName gives it.
Result<std::string> GenericObjectRepr(ObjectReader& objects, uint64_t object);

// type.__repr__ of the class at `type`: <class 'NAME'> (2.7: <class 'NAME'> for a heap type,
// <type 'NAME'> for a static one).
Result<std::string> ClassRepr(ObjectReader& objects, uint64_t type);

// What py-bt prints under a frame that is calling `callee` (its C-call line): nullopt for a
// Python function or a bound method (their own frame shows them); repr() of a C-level callable
// (CCallableRepr) or of a class (ClassRepr); object.__repr__ of any other object (a
// functools.partial, an instance with __call__: their own __repr__ would run code).
Result<std::optional<std::string>> CalleeRepr(ObjectReader& objects, uint64_t callee);

// PyDescr_COMMON's d_name (a str) and its d_type's tp_name: (name, type name).
Result<std::pair<std::string, std::string>> DescriptorNames(ObjectReader& objects,
                                                            uint64_t descriptor);

}  // namespace pyunwind
