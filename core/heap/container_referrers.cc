#include "core/heap/container_referrers.h"

#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "core/objects/remote_collections.h"
#include "core/objects/type_flags.h"

namespace pyunwind {
namespace {

class ReferrerSearch {
 public:
  ReferrerSearch(ObjectReader& objects, const std::vector<uint64_t>& containers,
                 const ReferrerLimits& limits)
      : objects_(objects), collections_(objects), limits_(limits) {
    scan_.referrers.resize(containers.size());
    for (size_t i = 0; i < containers.size(); ++i) index_.emplace(containers[i], i);
  }

  void Modules(uint64_t interp) {
    const Layout& l = objects_.layout();
    if (l.interp.modules == kAbsent || l.module.md_dict == kAbsent) return;
    auto modules = objects_.memory().ReadPointer(interp + l.interp.modules);
    if (!modules || *modules == 0) {
      Damaged(fmt::format("cannot read sys.modules of the interpreter at {:#x}", interp));
      return;
    }
    // The module type: that of `sys`, which every interpreter has imported.
    auto sys = collections_.DictGetString(*modules, "sys");
    auto module_type = sys.ok() && *sys != 0 ? objects_.TypeOf(*sys) : Result<uint64_t>(0);
    if (!module_type.ok() || *module_type == 0) {
      Damaged(fmt::format("no module `sys` in sys.modules at {:#x}", *modules));
      return;
    }
    auto entries = Items(*modules, "sys.modules");
    if (!entries) return;
    for (const auto& [key, module] : *entries) {
      if (Stopped()) return;
      if (!IsModule(module, *module_type)) continue;  // sys.modules may hold any object
      auto dict = objects_.memory().ReadPointer(module + l.module.md_dict);
      if (!dict || *dict == 0) {
        Damaged(fmt::format("cannot read the dict of the module at {:#x}", module));
        continue;
      }
      // Its name as sys.modules has it; read only when it holds one of the containers.
      std::optional<std::string> name;
      LookIn(*dict, "a module's dict", [&](uint64_t attribute, size_t container) {
        if (!name) name = Text(key);
        Add(container, HeapReferrer::Kind::kGlobal, *name + "." + Text(attribute));
      });
    }
  }

  void Classes(const std::vector<uint64_t>& classes) {
    const Layout& l = objects_.layout();
    if (l.type.tp_dict == kAbsent || l.type.tp_flags == kAbsent) return;
    for (uint64_t type : classes) {
      if (Stopped()) return;
      auto flags = objects_.memory().ReadValue<uint64_t>(type + l.type.tp_flags);
      if (!flags) {
        Damaged(fmt::format("cannot read the class at {:#x}", type));
        continue;
      }
      // Static types (3.12+) keep their dict in the interpreter: only heap types are looked in.
      if ((*flags & kHeapTypeFlag) == 0) continue;
      auto dict = objects_.memory().ReadPointer(type + l.type.tp_dict);
      if (!dict) {
        Damaged(fmt::format("cannot read the dict of the class at {:#x}", type));
        continue;
      }
      if (*dict == 0) continue;  // not yet readied
      std::optional<std::string> name;
      LookIn(*dict, "a class's dict", [&](uint64_t attribute, size_t container) {
        if (!name) {
          auto tp_name = objects_.TypeNameOfType(type);
          name = tp_name.ok() ? *tp_name : fmt::format("<class at {:#x}>", type);
        }
        Add(container, HeapReferrer::Kind::kClassAttribute, *name + "." + Text(attribute));
      });
    }
  }

  void Frames(const std::vector<ReferrerFrame>& frames) {
    for (const ReferrerFrame& frame : frames) {
      if (Stopped()) return;
      if (frame.error) {
        Damaged(*frame.error);
        continue;
      }
      if (!Spend(frame.locals.size())) return;
      for (const auto& [name, object] : frame.locals) {
        auto found = index_.find(object);
        if (found == index_.end()) continue;
        Add(found->second, HeapReferrer::Kind::kLocal,
            fmt::format("{} ({}:{}) local {}", frame.function, frame.filename,
                        frame.line ? std::to_string(*frame.line) : "?", name));
      }
    }
  }

  ReferrerScan Finish() {
    if (scan_.damaged != 0) {
      scan_.complete = false;
      scan_.warnings.push_back(fmt::format(
          "{} modules, classes or frames could not be looked in for who refers to the largest "
          "containers; the first: {}",
          scan_.damaged, first_damage_));
    }
    if (objects_.memory().budget().Exhausted() || objects_.memory().BudgetExhausted()) {
      scan_.complete = false;
      scan_.warnings.push_back(objects_.memory().BudgetWarning().value_or(
          "the search for who refers to the largest containers stopped: output is "
          "incomplete...truncated"));
    }
    return std::move(scan_);
  }

 private:
  // The dict's items, or nullopt (counted, or said once when too large).
  std::optional<std::vector<std::pair<uint64_t, uint64_t>>> Items(uint64_t dict,
                                                                  const char* what) {
    const Layout& l = objects_.layout();
    auto used = objects_.memory().ReadValue<int64_t>(dict + l.dict.ma_used);
    if (used && *used > 0 && static_cast<uint64_t>(*used) > limits_.max_dict_entries) {
      Cut(fmt::format("{} of more than {} entries was not looked in for who refers to the "
                      "largest containers...truncated",
                      what, limits_.max_dict_entries),
          big_dict_said_);
      return std::nullopt;
    }
    auto items = collections_.DictItems(dict, limits_.max_dict_entries);
    if (!items.ok()) {
      Damaged(items.error().message);
      return std::nullopt;
    }
    if (!Spend(items->size())) return std::nullopt;
    return std::move(*items);
  }

  template <typename Found>
  void LookIn(uint64_t dict, const char* what, const Found& found) {
    auto items = Items(dict, what);
    if (!items) return;
    for (const auto& [key, value] : *items) {
      auto container = index_.find(value);
      if (container != index_.end()) found(key, container->second);
    }
  }

  // A module, or an instance of a module subclass (its bases followed kMaxBaseClasses deep).
  bool IsModule(uint64_t object, uint64_t module_type) {
    auto type = objects_.TypeOf(object);
    if (!type.ok()) return false;
    if (*type == module_type) return true;
    auto known = module_types_.find(*type);
    if (known != module_types_.end()) return known->second;
    bool is_module = false;
    uint64_t base = *type;
    const Layout& l = objects_.layout();
    for (size_t depth = 0; depth < kMaxBaseClasses && base != 0 && l.type.tp_base != kAbsent;
         ++depth) {
      auto next = objects_.memory().ReadPointer(base + l.type.tp_base);
      if (!next) break;
      base = *next;
      if (base == module_type) {
        is_module = true;
        break;
      }
    }
    if (module_types_.size() < kMaxHeapTypes) module_types_.emplace(*type, is_module);
    return is_module;
  }

  // A key as text: a str's, else a placeholder (a non-str key is rare and says so).
  std::string Text(uint64_t key) {
    auto text = objects_.ReadString(key);
    return text.ok() ? *text : fmt::format("<key at {:#x}>", key);
  }

  void Add(size_t container, HeapReferrer::Kind kind, std::string name) {
    std::vector<HeapReferrer>& referrers = scan_.referrers[container];
    if (referrers.size() >= limits_.max_per_container) {
      Cut(fmt::format("a container has more than {} referrers: the rest are not "
                      "named...truncated",
                      limits_.max_per_container),
          per_container_said_);
      return;
    }
    referrers.push_back({kind, std::move(name)});
  }

  // Counts `entries` looked at; false (said once) past the cap.
  bool Spend(uint64_t entries) {
    if (entries > limits_.max_entries - spent_) {
      spent_ = limits_.max_entries;
      Cut(fmt::format("more than {} entries looked in for who refers to the largest "
                      "containers: the rest are not looked in...truncated",
                      limits_.max_entries),
          entries_said_);
      stopped_ = true;
      return false;
    }
    spent_ += entries;
    return true;
  }

  void Cut(std::string warning, bool& said) {
    scan_.complete = false;
    if (said) return;
    said = true;
    scan_.warnings.push_back(std::move(warning));
  }

  void Damaged(std::string what) {
    if (objects_.memory().budget().Exhausted() || objects_.memory().BudgetExhausted()) {
      stopped_ = true;
      return;
    }
    if (scan_.damaged++ == 0) first_damage_ = std::move(what);
  }

  bool Stopped() {
    if (objects_.memory().budget().Exhausted() || objects_.memory().BudgetExhausted()) {
      stopped_ = true;
    }
    return stopped_;
  }

  ObjectReader& objects_;
  RemoteCollections collections_;
  const ReferrerLimits& limits_;
  std::unordered_map<uint64_t, size_t> index_;  // container address -> its index
  std::unordered_map<uint64_t, bool> module_types_;
  ReferrerScan scan_;
  std::string first_damage_;
  uint64_t spent_ = 0;
  bool stopped_ = false;
  bool big_dict_said_ = false;
  bool per_container_said_ = false;
  bool entries_said_ = false;
};

}  // namespace

const char* ReferrerKindName(HeapReferrer::Kind kind) {
  switch (kind) {
    case HeapReferrer::Kind::kGlobal:
      return "global";
    case HeapReferrer::Kind::kClassAttribute:
      return "class_attribute";
    case HeapReferrer::Kind::kLocal:
      return "local";
  }
  return "global";
}

ReferrerScan FindContainerReferrers(ObjectReader& objects, const std::vector<uint64_t>& containers,
                                    const std::vector<uint64_t>& interpreters,
                                    const std::vector<uint64_t>& classes,
                                    const std::vector<ReferrerFrame>& frames,
                                    const ReferrerLimits& limits) {
  ReferrerSearch search(objects, containers, limits);
  if (!containers.empty()) {
    for (uint64_t interp : interpreters) search.Modules(interp);
    search.Classes(classes);
    search.Frames(frames);
  }
  return search.Finish();
}

}  // namespace pyunwind
