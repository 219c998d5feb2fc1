#include "core/waits/method_qualnames.h"

#include <vector>

#include "core/base/address.h"
#include "core/base/limits.h"
#include "core/walk/locals.h"

namespace pyunwind {

MethodQualnames::MethodQualnames(ObjectReader& objects)
    : objects_(objects), collections_(objects), values_(objects) {
  const Layout& l = objects.layout();
  stated_ = l.code.qualname != kAbsent || l.function.func_code == kAbsent ||
            l.type.tp_mro == kAbsent || l.type.tp_dict == kAbsent ||
            l.function.func_qualname == kAbsent;
}

std::string MethodQualnames::Of(const Frame& frame) {
  return Of(frame.frame_address, frame.code_address, frame.qualname());
}

std::string MethodQualnames::Of(uint64_t frame_address, uint64_t code_address,
                                const std::string& stated) {
  if (stated_ || code_address == 0) return stated;
  if (auto found = found_.find(code_address); found != found_.end()) {
    return found->second.empty() ? stated : found->second;
  }
  std::string qualname;
  if (const uint64_t self = SelfOf(objects_, values_, frame_address, code_address)) {
    qualname = MethodQualname(self, code_address, stated);
  }
  if (found_.size() < kMaxCodeObjectsCached) found_.emplace(code_address, qualname);
  return qualname.empty() ? stated : qualname;
}

std::string MethodQualnames::MethodQualname(uint64_t self, uint64_t code_address,
                                            const std::string& name) {
  const Layout& l = objects_.layout();
  RemoteMemory& memory = objects_.memory();
  auto type = objects_.TypeOf(self);
  if (!type.ok()) return "";
  auto mro = memory.ReadPointer(*type + static_cast<uint64_t>(l.type.tp_mro));
  if (!mro || !Aligned(*mro)) return "";
  // The first kMaxBaseClasses classes: a stdlib wait's method is on the class or near it.
  auto classes = collections_.TupleFirstItems(*mro, kMaxBaseClasses, kMaxContainerEntries);
  if (!classes.ok()) return "";
  for (uint64_t cls : classes->items) {
    auto dict = memory.ReadPointer(cls + static_cast<uint64_t>(l.type.tp_dict));
    if (!dict || *dict == 0 || !Aligned(*dict) || !RunsCode(*dict, name, code_address)) continue;
    if (IsPython2(l)) {
      // 2.7's functions have no __qualname__: the class's name (a heap type's tp_name is its
      // __name__, in the heap, so a core alone has it too) and the method's.
      auto class_name = objects_.TypeNameOfType(cls);
      return class_name.ok() ? *class_name + "." + name : "";
    }
    auto function = collections_.DictGetString(*dict, name);
    auto qualname = collections_.FunctionQualname(*function);
    return qualname.ok() ? *qualname : "";
  }
  return ClassicMethodQualname(self, code_address, name);
}

bool MethodQualnames::RunsCode(uint64_t dict, const std::string& name, uint64_t code_address) {
  auto function = collections_.DictGetString(dict, name);
  if (!function.ok() || *function == 0 || !Aligned(*function)) return false;
  // Told by the code it runs, not by its type's name (which a core alone may lack).
  const auto func_code = static_cast<uint64_t>(objects_.layout().function.func_code);
  auto code = objects_.memory().ReadPointer(*function + func_code);
  return code && *code == code_address;
}

std::string MethodQualnames::ClassicMethodQualname(uint64_t self, uint64_t code_address,
                                                   const std::string& name) {
  const Layout::ClassicClass& c = objects_.layout().classic;
  if (c.in_class == kAbsent) return "";
  RemoteMemory& memory = objects_.memory();
  // self's class, then its bases depth first, as 2.7 looks a classic method up; the first
  // kMaxBaseClasses classes (an instance of a new-style class gives no class dict here).
  auto first = memory.ReadPointer(self + static_cast<uint64_t>(c.in_class));
  if (!first || *first == 0 || !Aligned(*first)) return "";
  std::vector<uint64_t> pending = {*first};
  for (size_t seen = 0; !pending.empty() && seen < kMaxBaseClasses; ++seen) {
    const uint64_t cls = pending.back();
    pending.pop_back();
    auto dict = memory.ReadPointer(cls + static_cast<uint64_t>(c.cl_dict));
    if (dict && *dict != 0 && Aligned(*dict) && RunsCode(*dict, name, code_address)) {
      auto name_object = memory.ReadPointer(cls + static_cast<uint64_t>(c.cl_name));
      if (!name_object) return "";
      auto class_name = objects_.ReadString(*name_object);
      return class_name.ok() ? *class_name + "." + name : "";
    }
    auto bases = memory.ReadPointer(cls + static_cast<uint64_t>(c.cl_bases));
    if (!bases || *bases == 0) continue;
    auto items = collections_.TupleFirstItems(*bases, kMaxBaseClasses, kMaxContainerEntries);
    if (!items.ok()) continue;
    for (auto it = items->items.rbegin(); it != items->items.rend(); ++it) pending.push_back(*it);
  }
  return "";
}

}  // namespace pyunwind
