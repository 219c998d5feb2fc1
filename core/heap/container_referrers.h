// py-heap --containers: who refers to each of the largest containers, of the three kinds a
// person can act on: a module's global (`module.name`), a class's attribute (`Class.attr`)
// and a frame's local (`function (file:line) local NAME`: a thread's frame, or a suspended
// generator's or coroutine's). One pass over the candidates (each
// module of sys.modules, each class the census met, each frame given), every value looked up
// in a hash set of the containers' addresses. Other holders (a list, an instance) are not
// named: the answer is "who of these three", not every referrer.
//
// Bounded (core/base/limits.h): referrers named per container, entries looked at in all, the
// size of one dict looked in. A module, class or frame that cannot be read is skipped and
// counted (one warning), and the scan goes on.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/base/limits.h"
#include "core/objects/objects.h"

namespace pyunwind {

struct HeapReferrer {
  enum class Kind { kGlobal, kClassAttribute, kLocal };
  Kind kind = Kind::kGlobal;
  // "module.name", "Class.attr", "function (file:line) local NAME": text the target chose.
  std::string name;
};

// The JSON name of a kind: "global", "class_attribute", "local".
const char* ReferrerKindName(HeapReferrer::Kind kind);

// A Python frame whose fast locals are looked in. The command reads them (core/walk), as
// the heap package knows no frames.
struct ReferrerFrame {
  std::string function;  // co_qualname
  std::string filename;
  std::optional<int> line;
  std::vector<std::pair<std::string, uint64_t>> locals;  // the bound ones: name, object
  std::optional<std::string> error;  // why its locals cannot be read (counted as damaged)
};

struct ReferrerLimits {
  size_t max_per_container = kMaxContainerReferrers;
  uint64_t max_entries = kMaxReferrerEntries;       // dict entries and locals, in all
  size_t max_dict_entries = kMaxReferrerDictEntries;  // a larger dict is not looked in
};

struct ReferrerScan {
  // The referrers of each container given, in its order: modules first (sys.modules order),
  // then classes, then frames.
  std::vector<std::vector<HeapReferrer>> referrers;
  uint64_t damaged = 0;  // modules, classes and frames that could not be looked in
  bool complete = true;  // false when a cap cut the scan or damage skipped a candidate
  std::vector<std::string> warnings;
};

// The referrers of `containers` among the modules of each interpreter's sys.modules, the
// `classes` (type objects; heap types are looked in, whose tp_dict holds their attributes)
// and the locals of `frames`.
ReferrerScan FindContainerReferrers(ObjectReader& objects, const std::vector<uint64_t>& containers,
                                    const std::vector<uint64_t>& interpreters,
                                    const std::vector<uint64_t>& classes,
                                    const std::vector<ReferrerFrame>& frames,
                                    const ReferrerLimits& limits = {});

}  // namespace pyunwind
