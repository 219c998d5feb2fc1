#include "core/heap/static_type_names.h"

#include <optional>
#include <string_view>

#include "core/objects/remote_collections.h"

namespace pyunwind {
namespace {

// A module's attribute, and the tp_name of the type it is (Objects/*.c, 3.11-3.15).
struct ModuleAttribute {
  std::string_view module;
  std::string_view attribute;
  std::string_view tp_name;
};

constexpr std::string_view kTypes = "types";
constexpr ModuleAttribute kTypeAttributes[] = {
    {kTypes, "FunctionType", "function"},
    {kTypes, "CodeType", "code"},
    {kTypes, "MethodType", "method"},
    {kTypes, "BuiltinFunctionType", "builtin_function_or_method"},
    {kTypes, "WrapperDescriptorType", "wrapper_descriptor"},
    {kTypes, "MethodWrapperType", "method-wrapper"},
    {kTypes, "MethodDescriptorType", "method_descriptor"},
    {kTypes, "ClassMethodDescriptorType", "classmethod_descriptor"},
    {kTypes, "GetSetDescriptorType", "getset_descriptor"},
    {kTypes, "MemberDescriptorType", "member_descriptor"},
    {kTypes, "ModuleType", "module"},
    {kTypes, "CellType", "cell"},
    {kTypes, "FrameType", "frame"},
    {kTypes, "TracebackType", "traceback"},
    {kTypes, "GeneratorType", "generator"},
    {kTypes, "CoroutineType", "coroutine"},
    {kTypes, "AsyncGeneratorType", "async_generator"},
    {kTypes, "MappingProxyType", "mappingproxy"},
    {kTypes, "SimpleNamespace", "types.SimpleNamespace"},
    {kTypes, "GenericAlias", "types.GenericAlias"},
    {kTypes, "UnionType", "types.UnionType"},
    {"_weakref", "ref", "weakref.ReferenceType"},
    {"_weakref", "ProxyType", "weakref.ProxyType"},
    {"_weakref", "CallableProxyType", "weakref.CallableProxyType"},
    {"_io", "FileIO", "_io.FileIO"},
    {"_io", "BufferedReader", "_io.BufferedReader"},
    {"_io", "BufferedWriter", "_io.BufferedWriter"},
    {"_io", "BufferedRandom", "_io.BufferedRandom"},
    {"_io", "TextIOWrapper", "_io.TextIOWrapper"},
    {"_io", "BytesIO", "_io.BytesIO"},
    {"_io", "StringIO", "_io.StringIO"},
    {"_thread", "_local", "_thread._local"},
    {"_thread", "RLock", "_thread.RLock"},
    {"_collections", "deque", "collections.deque"},
    {"_collections", "defaultdict", "collections.defaultdict"},
    {"_collections", "OrderedDict", "collections.OrderedDict"},
    {"_functools", "partial", "functools.partial"},
    {"itertools", "count", "itertools.count"},
};

}  // namespace

std::unordered_map<uint64_t, std::string> StaticTypeNames(ObjectReader& objects, uint64_t interp) {
  std::unordered_map<uint64_t, std::string> names;
  const Layout& l = objects.layout();
  if (l.interp.modules == kAbsent || l.module.md_dict == kAbsent) return names;
  auto modules = objects.memory().ReadPointer(interp + l.interp.modules);
  if (!modules || *modules == 0) return names;
  RemoteCollections collections(objects);
  std::string_view module_name;
  std::optional<uint64_t> module_dict;  // of module_name; nullopt where unreadable
  for (const ModuleAttribute& entry : kTypeAttributes) {
    if (entry.module != module_name) {
      module_name = entry.module;
      module_dict.reset();
      auto module = collections.DictGetString(*modules, module_name);
      if (module.ok() && *module != 0) {
        auto dict = objects.memory().ReadPointer(*module + l.module.md_dict);
        if (dict && *dict != 0) module_dict = *dict;
      }
    }
    if (!module_dict) continue;
    auto type = collections.DictGetString(*module_dict, entry.attribute);
    if (type.ok() && *type != 0) names.emplace(*type, entry.tp_name);
  }
  return names;
}

}  // namespace pyunwind
