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
  auto slots = ReadLocalSlots(objects_, values_, frame_address, code_address);
  if (slots.ok() && !slots->slots.empty()) {
    // A method's `self` is its first argument.
    const LocalSlot& first = slots->slots.front();
    if (first.name == "self" && first.bound && !first.error && first.object != 0) {
      qualname = MethodQualname(first.object, code_address, stated);
    }
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
    if (!dict || *dict == 0 || !Aligned(*dict)) continue;
    auto function = collections_.DictGetString(*dict, name);
    if (!function.ok() || *function == 0 || !Aligned(*function)) continue;
    // Told by the code it runs, not by its type's name (which a core alone may lack).
    auto code = memory.ReadPointer(*function + static_cast<uint64_t>(l.function.func_code));
    if (!code || *code != code_address) continue;
    auto qualname = collections_.FunctionQualname(*function);
    return qualname.ok() ? *qualname : "";
  }
  return "";
}

}  // namespace pyunwind
