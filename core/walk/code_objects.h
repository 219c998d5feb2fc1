// Code objects, read once per address and kept for the command (and across
// commands while the target has not run): names, file and decoded lines.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/walk/location_table.h"
#include "core/walk/model.h"
#include "core/objects/objects.h"

namespace pyunwind {

struct CodeInfo {
  std::shared_ptr<const CodeNames> names;  // never null
  int first_line = 0;
  uint64_t bytecode_address = 0;  // co_code_adaptive
  int32_t first_traceable = 0;    // 3.11, 3.12: instructions before it set the frame up
  uint64_t tlbc_array = 0;        // free-threaded 3.14+: _PyCodeArray of per-thread copies
  std::vector<LineRange> lines;
  // What finding a call's callee needs (core/walk/calls.h); -1 / 0 where the layout lacks them.
  int64_t code_units = 0;          // Py_SIZE: code units of co_code_adaptive
  int32_t nlocalsplus = -1;        // the value stack starts after this many slots
  int32_t stack_size = -1;         // co_stacksize
  uint64_t exception_table = 0;    // co_exceptiontable (bytes)
};

class CodeCache {
 public:
  explicit CodeCache(ObjectReader& objects) : objects_(objects) {}

  // The code object at `address`, read on first use. Errors are not cached.
  Result<const CodeInfo*> Get(uint64_t address);

  size_t size() const { return cache_.size(); }

  // Where the bytecode that a frame runs starts: co_code_adaptive, or in
  // free-threaded 3.14+ the thread's own copy, entry `tlbc_index` of co_tlbc.
  Result<uint64_t> BytecodeFor(const CodeInfo& code, int32_t tlbc_index);

 private:
  Result<CodeInfo> Read(uint64_t address);
  // Refuses an object whose type is not `code`.
  Status CheckCodeType(uint64_t address);

  ObjectReader& objects_;
  uint64_t code_type_ = 0;  // PyCode_Type, once one code object showed it
  std::unordered_map<uint64_t, std::unique_ptr<CodeInfo>> cache_;
};

}  // namespace pyunwind
