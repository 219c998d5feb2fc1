// py-heap's census of a synthetic heap of 1,000,000 tracked objects (issue 43: at most 1 s and
// 200 MB more in the debugger): a fake CPython 3.11 process (tests/fake_process311.h) whose
// collector lists hold instances of a class, tuples, lists, dicts and sets, interleaved as an
// allocator would leave them. Runs `py-heap` through RunCommand (locating the runtime, the
// walk, the census, the text) and prints its time and the process's peak RSS before and after.
// With `items`, each tuple holds a float and a str of its own and None (untracked objects
// the census reaches through containers: 0.4 per object: 400,000 of 1,000,000).
//   bazel run -c opt //bench:heap_benchmark [-- OBJECTS [items]]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "tests/fake_process311.h"

namespace {

using pyunwind::testing::fake311::Process;

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;
}

struct Heap {
  Heap(uint64_t objects, bool items) : p(objects * (items ? 120 : 80) + (16 << 20)) {
    p.AddSymbols();
    const pyunwind::Layout& l = p.layout;
    const uint64_t gc = p.interp + l.interp.gc;
    for (int list = 0; list < 4; ++list) {
      const uint64_t head =
          list == 3 ? gc + l.gc.permanent : gc + l.gc.generations + list * l.gc.generation_size;
      p.target.PutU64(head, head);
      p.target.PutU64(head + 8, head);
      heads.push_back(head);
    }
    tail = heads[2];  // the oldest generation, where a long-lived heap sits
    const uint64_t gc_flag = 1u << 14, heap_type = 1u << 9, managed_dict = 1u << 4;
    record = Type("Record", 24, 0, gc_flag | heap_type | managed_dict);
    tuple = Type("tuple", 24, 8, gc_flag | (1u << 26));
    list = Type("list", 40, 0, gc_flag | (1u << 25));
    dict = Type("dict", 48, 0, gc_flag | (1u << 29));
    set = Type("set", 200, 0, gc_flag);
    const uint64_t float_type = Type("float", 24, 0, 0);
    const uint64_t none = p.heap.Alloc(16);
    p.target.PutU64(none, 1);
    p.target.PutU64(none + 8, Type("NoneType", 16, 0, 0));
    const uint64_t str_type = p.objects.str_type();
    p.target.Put<int64_t>(str_type + l.type.tp_basicsize, 80);
    p.target.PutU64(str_type + l.type.tp_flags, 1u << 28);
    for (uint64_t i = 0; i < objects; ++i) {
      switch (i % 20) {
        case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9:
          Object(record, 24, true);
          break;
        case 10: case 11: case 12: case 13: {
          const uint64_t t = Object(tuple, 48);
          p.target.Put<int64_t>(t + 16, 3);
          if (items) {
            const uint64_t number = p.heap.Alloc(24);
            p.target.PutU64(number, 1);
            p.target.PutU64(number + 8, float_type);
            p.target.PutU64(t + l.tuple.ob_item, number);
            p.target.PutU64(t + l.tuple.ob_item + 8, p.objects.Str(std::to_string(i)));
            p.target.PutU64(t + l.tuple.ob_item + 16, none);
          }
          break;
        }
        case 14: case 15: case 16: {
          const uint64_t o = Object(list, 40);
          p.target.Put<int64_t>(o + l.list.allocated, 4);
          break;
        }
        case 17: case 18: {
          const uint64_t d = Object(dict, 48);
          const uint64_t keys = p.heap.Alloc(128);
          p.target.PutU64(keys + l.dict_keys.refcnt, 1);
          p.target.PutU8(keys + l.dict_keys.log2_size, 3);
          p.target.PutU8(keys + l.dict_keys.log2_index_bytes, 3);
          p.target.PutU8(keys + l.dict_keys.kind, 1);
          p.target.PutU64(d + l.dict.ma_keys, keys);
          break;
        }
        default: {
          const uint64_t s = Object(set, 200);
          p.target.PutU64(s + l.set.table, s + l.set.smalltable);
          p.target.Put<int64_t>(s + l.set.mask, 7);
        }
      }
    }
    p.target.PutU64(tail, heads[2]);
    p.target.PutU64(heads[2] + 8, tail);
  }

  uint64_t Type(const char* name, int64_t basicsize, int64_t itemsize, uint64_t flags) {
    const uint64_t type = p.objects.Type(name);
    p.target.Put<int64_t>(type + p.layout.type.tp_basicsize, basicsize);
    p.target.Put<int64_t>(type + p.layout.type.tp_itemsize, itemsize);
    p.target.PutU64(type + p.layout.type.tp_flags, flags);
    return type;
  }
  // A PyGC_Head and the object after it, linked at the end of the oldest generation; with
  // `preheader`, the managed dict's two words before (no dict, no values: attributes unset).
  uint64_t Object(uint64_t type, uint64_t size, bool preheader = false) {
    const uint64_t node = p.heap.Alloc((preheader ? 32 : 16) + size) + (preheader ? 16 : 0);
    const uint64_t object = node + 16;
    p.target.PutU64(object, 1);
    p.target.PutU64(object + 8, type);
    p.target.PutU64(tail, node);
    p.target.PutU64(node + 8, tail);
    tail = node;
    return object;
  }

  Process p;
  std::vector<uint64_t> heads;
  uint64_t tail = 0;
  uint64_t record = 0, tuple = 0, list = 0, dict = 0, set = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t objects = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  Heap heap(objects, argc > 2 && std::string(argv[2]) == "items");
  const double rss_before = PeakRssMiB();
  pyunwind::CommandContext context{heap.p.target, std::nullopt, false, std::nullopt,
                                   std::nullopt};
  const auto start = std::chrono::steady_clock::now();
  const pyunwind::CommandOutput output = pyunwind::RunCommand("py-heap", {"--top", "5"}, context);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const double rss_after = PeakRssMiB();
  std::fputs(output.text.c_str(), stdout);
  std::printf("census of %llu objects: %.0f ms; peak RSS %.0f MiB before the census (the fake "
              "heap), %.0f MiB after: %.0f MiB more\n",
              static_cast<unsigned long long>(objects), ms, rss_before, rss_after,
              rss_after - rss_before);
  return output.failed ? 1 : 0;
}
