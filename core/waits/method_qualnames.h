// The qualified names py-waits tells stdlib waits by ("Thread.join", "Condition.wait"). 3.11+
// code objects state theirs (co_qualname); before 3.11 code records its bare name ("join",
// "wait"), so a method's is found from the frame's `self`: the function along type(self)'s
// MRO whose code the frame runs, and that function's __qualname__ (2.7, which has none: its
// class's name and its own; a classic class's instance: along its class and bases).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include "core/objects/remote_collections.h"
#include "core/objects/values.h"
#include "core/walk/model.h"

namespace pyunwind {

class MethodQualnames {
 public:
  explicit MethodQualnames(ObjectReader& objects);

  // The qualname of what `frame` runs: its code's own where the version states one, else the
  // method's found from its `self`, else the code's name. Looked up once per code object
  // (kMaxCodeObjectsCached of them).
  std::string Of(const Frame& frame);
  // The same for a frame known by its addresses and its code's stated qualname.
  std::string Of(uint64_t frame_address, uint64_t code_address, const std::string& stated);

 private:
  // The __qualname__ of the function of self's class (or a base) that runs `code_address`
  // under the name `name`; "" when none does.
  std::string MethodQualname(uint64_t self, uint64_t code_address, const std::string& name);
  // The same for 2.7's instance of a classic class (Queue.Queue): "Class.name".
  std::string ClassicMethodQualname(uint64_t self, uint64_t code_address, const std::string& name);
  // Whether the class dict `dict` maps `name` to a function running `code_address`.
  bool RunsCode(uint64_t dict, const std::string& name, uint64_t code_address);

  ObjectReader& objects_;
  RemoteCollections collections_;
  ValueFormatter values_;
  bool stated_ = true;  // the version's code objects state their qualnames
  std::unordered_map<uint64_t, std::string> found_;  // by code object
};

}  // namespace pyunwind
