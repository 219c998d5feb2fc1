// Code objects, read once per address and kept for the command (and across
// commands while the target has not run): names, file and decoded lines. A line
// table is decoded once per (address, size), whatever the code objects that share it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/walk/location_table.h"
#include "core/walk/model.h"
#include "core/objects/objects.h"

namespace pyunwind {

// The table of a code object whose table is not read (over kMaxLocationTableBytes).
const std::shared_ptr<const LineTable>& NoLineTable();

struct CodeInfo {
  std::shared_ptr<const CodeNames> names;  // never null
  int first_line = 0;
  uint64_t bytecode_address = 0;  // co_code_adaptive
  int32_t first_traceable = 0;    // 3.11, 3.12: instructions before it set the frame up
  uint64_t tlbc_array = 0;        // free-threaded 3.14+: _PyCodeArray of per-thread copies
  // Decoded without the first line, shared by the code objects that share the table; never null
  // (empty where the table is not read).
  std::shared_ptr<const LineTable> lines = NoLineTable();
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
  // Line tables decoded and kept (tests).
  size_t tables() const { return tables_.size(); }

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
  // Each table decoded, by its bytes object's address and size: a target cannot multiply the
  // decoding work by pointing many code objects (any first lines) at one table. As bounded
  // as cache_: at most one table per code object kept, most often fewer.
  struct TableKey {
    uint64_t address = 0;
    uint64_t size = 0;
    bool operator==(const TableKey&) const = default;
  };
  struct TableKeyHash {
    size_t operator()(const TableKey& key) const {
      return std::hash<uint64_t>()(key.address) ^ (std::hash<uint64_t>()(key.size) * 0x9e3779b97f4a7c15ull);
    }
  };
  std::unordered_map<TableKey, std::shared_ptr<const LineTable>, TableKeyHash> tables_;
};

}  // namespace pyunwind
