// Py_TPFLAGS_* (Include/object.h): the bits a builtin type and its subclasses
// carry, alike in 2.7 and 3.x (2.7's bit 27 marks str, which is 3's bytes),
// and 2.7's int.
#pragma once

#include <cstdint>

namespace pyunwind {

inline constexpr uint64_t kInlineValuesFlag = 1ull << 2;  // Py_TPFLAGS_INLINE_VALUES (3.13+)
inline constexpr uint64_t kManagedDictFlag = 1ull << 4;   // Py_TPFLAGS_MANAGED_DICT (3.11+)
inline constexpr uint64_t kHeapTypeFlag = 1ull << 9;
inline constexpr uint64_t kHaveGcFlag = 1ull << 14;  // instances have a PyGC_Head
inline constexpr uint64_t kIntSubclassFlag = 1ull << 23;  // 2.7 only: PyIntObject
inline constexpr uint64_t kLongSubclassFlag = 1ull << 24;
inline constexpr uint64_t kListSubclassFlag = 1ull << 25;
inline constexpr uint64_t kTupleSubclassFlag = 1ull << 26;
inline constexpr uint64_t kBytesSubclassFlag = 1ull << 27;  // 2.7: str (PyStringObject)
inline constexpr uint64_t kUnicodeSubclassFlag = 1ull << 28;
inline constexpr uint64_t kDictSubclassFlag = 1ull << 29;
inline constexpr uint64_t kTypeSubclassFlag = 1ull << 31;

}  // namespace pyunwind
