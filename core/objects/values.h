// Short, safe reprs of Python objects read out of the target, for --locals
// and py-locals (values.cc; the text of str and bytes reprs in
// repr_text.cc, numbers in number_repr.cc, which builtin a type is in
// type_kinds.cc). Nothing here calls into the target: the repr is rebuilt
// from the object's memory for None, bool, int (any size), float, str (every
// kind), bytes, tuple, list, dict, set and frozenset, and is
// Python's own for C-level callables, bound methods and classes, and object.__repr__'s
// "<module.QualName object at 0x...>" for everything else (callable_repr.h). Nesting, item counts and
// length are cut at the bounds of core/base/limits.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/limits.h"
#include "core/objects/objects.h"
#include "core/objects/remote_collections.h"

namespace pyunwind {

struct ValueDescription {
  std::string type;                  // type(value).__name__; empty when unreadable
  std::optional<std::string> repr;   // null when the value cannot be read safely
  std::optional<std::string> error;  // why repr is null
};

// How much of a value a repr shows: --locals and py-locals use the defaults
// of core/base/limits.h; py-print raises them (still bounded).
struct ReprLimits {
  size_t max_length = kMaxReprLength;  // bytes of repr text, then "..."
  size_t max_items = kMaxReprItems;    // items of one container, then ", ..."
  int max_depth = kMaxReprDepth;       // nesting, then "[...]"
};

class ValueFormatter {
 public:
  explicit ValueFormatter(ObjectReader& objects, ReprLimits limits = {});

  // Names the builtin types from the builtins dict of the interpreter at
  // `interp` ("int", "str", ..., and NoneType / bool / ellipsis from None,
  // True, Ellipsis): a core holds no read-only data of the executable, so the
  // tp_name of a static type is often unreadable there. Best effort, and read
  // when first needed (a type looked up, None asked for): the dict and its
  // ~150 names cost ~60 page reads, which a stack with no exception to name
  // does not need.
  void UseBuiltinsOf(uint64_t interp) { builtins_interp_ = interp; }

  // The object at `address` (a plain PyObject*, tags already removed).
  ValueDescription Describe(uint64_t address);

  // A 3.14+ tagged int held directly in a stack reference.
  static ValueDescription TaggedInt(int64_t value);

  // The repr alone: an error when the top object cannot be read.
  Result<std::string> Repr(uint64_t address);

  // Python's repr of a float (shortest round-trip digits, repr's rules for
  // when to use an exponent) and of text given as code points.
  static std::string FloatRepr(double value);
  // `ascii_only`: escape every character past ASCII, as 2.7's unicode repr does.
  static std::string StrRepr(const std::u32string& text, bool truncated = false,
                             bool ascii_only = false);
  static std::string BytesRepr(const std::string& data, bool truncated = false);
  // Decimal digits of a magnitude given as little-endian 30-bit digits.
  static std::string DigitsToDecimal(std::vector<uint32_t> digits);

  // What kind of builtin a type is, by its tp_name and flags.
  enum class Kind { kNone, kBool, kInt, kFloat, kStr, kBytes, kTuple, kList, kDict, kSet,
                    kFrozenSet, kCell, kOther };
  struct TypeInfo {
    std::string name;  // tp_name
    bool named = true;  // false: tp_name unreadable, `name` is "type at 0x..."
    uint64_t flags = 0;
    Kind kind = Kind::kOther;
  };
  Result<TypeInfo> TypeOf(uint64_t address);
  // The same for a type object's own address.
  Result<TypeInfo> TypeInfoAt(uint64_t type);
  // Whether the object at `address` is None: by its type's tp_name where that
  // is readable (a live process, a core with its executable), else by the
  // builtins dict's None, so that asking does not read the whole dict.
  bool IsNone(uint64_t address);

  // Records that `object` is a cell (a free variable's slot always holds
  // one), so that its type is known by name where tp_name is unreadable.
  void NoteCell(uint64_t object);

  // The referent of a cell object (0 when empty).
  Result<uint64_t> CellContents(uint64_t cell);

  // The value of a float, or of an int of at most 60 bits, as a double.
  Result<double> ReadReal(uint64_t address);

 private:
  // Appends the repr of `address` to `out`; errors only for the outermost object.
  Status Append(uint64_t address, int depth, std::string& out);
  Status AppendInt(uint64_t address, std::string& out);
  // 2.7's unicode: u'...', escaped to ASCII.
  Status AppendPython2Unicode(uint64_t address, std::string& out);
  Status AppendStr(uint64_t address, std::string& out);
  // The __qualname__ of a bound method's function (a Python function only).
  std::optional<std::string> BoundMethodQualname(uint64_t method);
  static constexpr size_t kMaxQualnameInRepr = 256;
  // Reads the builtins dict UseBuiltinsOf named, the first time only.
  void ReadBuiltins();
  // The type object at `type` as its own memory describes it: no builtins, no cache.
  Result<TypeInfo> ReadTypeInfo(uint64_t type);
  bool Full(const std::string& out) const { return out.size() > limits_.max_length; }

  ObjectReader& objects_;
  ReprLimits limits_;
  RemoteCollections collections_;
  std::unordered_map<uint64_t, TypeInfo> types_;
  std::unordered_map<uint64_t, std::string> repr_names_;  // heap types' TypeReprName
  uint64_t none_ = 0;
  uint64_t builtins_interp_ = 0;  // the interpreter whose builtins are still to be read
  std::unordered_set<uint64_t> active_;  // containers being printed (cycles show as "...")
};

// The short name Python shows as type(x).__name__: tp_name after its last dot.
std::string ShortTypeName(const std::string& tp_name);

}  // namespace pyunwind
