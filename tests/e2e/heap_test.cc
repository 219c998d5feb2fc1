// py-heap against the census tests/data/heap_census.py takes of itself (gc.get_objects(),
// type(o).__name__, sys.getsizeof), on Debian's 3.11, pyenv's 3.12.1 and 3.13.0 and the
// free-threaded 3.13t and 3.14t .ci/fetch-pythons builds by hand (where installed), live and from a gcore core opened alone, in LLDB and GDB. The scenario takes its
// census, then moves every object to the permanent generation (gc.freeze()): both kinds of
// list are walked.
//   * its own class Bulky (20,000), tuple, list, dict and set: counts exact; bytes exact for
//     Bulky and tuple (their size follows from the type), within 1 % for list, dict and set
//     (measured: exact);
//   * function (2,000 closures among the interpreter's own), generator, coroutine and
//     async_generator (500, 300 and 100 suspended at their first yield: a generator's size
//     follows from its code's frame): count and bytes exact. A core
//     opened alone has no tp_name of static types (the executable's read-only data): the
//     `types` module names it (types.FunctionType), or, were it not imported, the group is the
//     one "type at 0x..." whose count and bytes are the truth's;
//   * the totals: objects and bytes are the sums of the groups, and within 0.1 % and 1 % of
//     the process's own totals over every type (an object or two the park holds and the
//     census did not; the few types with a __sizeof__ of their own, such as deque and
//     BufferedReader, measured 0.05 % of the bytes);
//   * the text: the header's totals are the JSON's, and Bulky's row says 20000;
//   * --containers 6: the bytes of the six largest lists, tuples, dicts and sets are the
//     process's own six largest (sys.getsizeof), each (type, len, bytes) one the process
//     recorded among its 20 largest; and who refers to each, of the three kinds py-heap names
//     (a module global, a class attribute, a frame's local), exactly the holders the process
//     recorded for that address (gc.get_referrers, frames' f_locals): three of the four largest
//     are held by __main__.CACHE, Registry.members and `held` of the parked park() and main()
//     (the other, the set of 5,000 str, by a list); the text (--containers 4) says them under
//     their rows.
//   * the untracked objects reached through containers (the scenario's "owned": what its
//     tracked objects hold directly that the collector does not track, each once): per type,
//     float, bytes, tuple and dict (the scenario's own populations: 10,000 floats, 5,000 bytes,
//     5,000 untracked tuples in lists; 6,000 floats and bytes in __slots__ and 3,000 more
//     floats in a subclass's; 2,000 dicts of functions and exceptions at a positive
//     tp_dictoffset) exact in count and bytes; str, int and the total within kOwnedTolerance
//     (what the park's few new objects hold; the 3,000 str and 3,000 ints in __slots__ are
//     more than that);
//   * the totals against memory: live, the writable mappings /proc/PID/maps names no file of
//     (and [heap]), as the test reads them itself, exactly; from a core (alone), the writable
//     PT_LOAD segments of the core's program headers that no file of its NT_FILE note maps
//     where they start, as the test reads them itself, exactly, in LLDB as in GDB (both name
//     the segments from the note; same_output_test compares the two on one core). The
//     census's share is its bytes over that total.
#include <elf.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

// The free-threaded ones (built by hand from Debian's source, not on CI) walk the mimalloc heaps.
const std::vector<std::string> kInterpreters = {"debian_3.11", "3.12.1", "3.13.0", "built_3.13t",
                                                "built_3.14t"};
constexpr double kOwnedTolerance = 0.01;

// The bytes of the writable mappings of a live process that name no file, and [heap].
uint64_t WritableAnonymousOfMaps(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  uint64_t total = 0;
  std::string line;
  while (std::getline(maps, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (perms.size() < 2 || perms[0] != 'r' || perms[1] != 'w') continue;
    if (!path.empty() && path != "[heap]") continue;
    const size_t dash = range.find('-');
    total += std::stoull(range.substr(dash + 1), nullptr, 16) -
             std::stoull(range.substr(0, dash), nullptr, 16);
  }
  return total;
}

// The bytes of a core's writable PT_LOAD segments (their contents in the file) that start
// in no file its NT_FILE note maps.
uint64_t WritableAnonymousOfCore(const std::string& core) {
  std::ifstream file(core, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  auto at = [&](uint64_t offset, auto value) {
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
  };
  const auto header = at(0, Elf64_Ehdr{});
  std::vector<Elf64_Phdr> segments;
  std::vector<std::pair<uint64_t, uint64_t>> files;  // [start, end)
  for (int i = 0; i < header.e_phnum; ++i) {
    const auto segment = at(header.e_phoff + uint64_t(i) * header.e_phentsize, Elf64_Phdr{});
    if (segment.p_type == PT_LOAD) segments.push_back(segment);
    if (segment.p_type != PT_NOTE) continue;
    for (uint64_t pos = segment.p_offset; pos + 12 <= segment.p_offset + segment.p_filesz;) {
      const auto note = at(pos, Elf64_Nhdr{});
      const uint64_t desc = pos + 12 + ((note.n_namesz + 3) & ~3u);
      if (note.n_type == NT_FILE) {
        const uint64_t count = at(desc, uint64_t{0});
        for (uint64_t k = 0; k < count; ++k) {
          files.emplace_back(at(desc + 16 + 24 * k, uint64_t{0}),
                             at(desc + 24 + 24 * k, uint64_t{0}));
        }
      }
      pos = desc + ((note.n_descsz + 3) & ~3u);
    }
  }
  EXPECT_FALSE(files.empty()) << core << " has no NT_FILE note";
  uint64_t total = 0;
  for (const Elf64_Phdr& segment : segments) {
    if (!(segment.p_flags & PF_W) || segment.p_filesz == 0) continue;
    bool named = false;
    for (const auto& [start, end] : files) named |= start <= segment.p_vaddr && segment.p_vaddr < end;
    if (!named) total += segment.p_filesz;
  }
  return total;
}

// type(o).__name__ from a group's tp_name.
std::string ShortName(const std::string& tp_name) {
  const size_t dot = tp_name.rfind('.');
  return dot == std::string::npos ? tp_name : tp_name.substr(dot + 1);
}

class Heap : public ScenarioMatrixTest {
 protected:
  void SetUp() override { Start("tests/data/heap_census.py"); }
};

TEST_P(Heap, CountsAndBytesMatchTheProcesssOwnCensus) {
  const json& truth = scenario_->truth();
  const json& census = truth.at("census");
  ASSERT_EQ(census.at("Bulky").at(0), 20000) << census.dump();
  ASSERT_GE(truth.at("frozen"), 20000) << "the permanent generation is not walked";
  RunResult run = RunDebugger(GetParam().debugger, *install_, target_,
                              {"py-heap --json --containers 6",
                               "py-heap --type Bulky --containers 4", "py-heap --type float"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::string error;
  auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got) << error << "\n" << run.Describe();
  ASSERT_EQ(got->at("groups_not_shown"), 0) << got->dump();

  std::map<std::string, std::pair<uint64_t, uint64_t>> by_name, owned;
  uint64_t objects = 0, bytes = 0, owned_objects = 0, owned_bytes = 0;
  for (const json& group : got->at("groups")) {
    if (group.at("through_containers")) {
      auto& row = owned[ShortName(group.at("type"))];
      row.first += group.at("count").get<uint64_t>();
      row.second += group.at("bytes").get<uint64_t>();
      owned_objects += group.at("count").get<uint64_t>();
      owned_bytes += group.at("bytes").get<uint64_t>();
      continue;
    }
    auto& row = by_name[ShortName(group.at("type"))];
    row.first += group.at("count").get<uint64_t>();
    row.second += group.at("bytes").get<uint64_t>();
    objects += group.at("count").get<uint64_t>();
    bytes += group.at("bytes").get<uint64_t>();
  }
  EXPECT_EQ(got->at("objects").get<uint64_t>(), objects);
  EXPECT_EQ(got->at("bytes").get<uint64_t>(), bytes);
  EXPECT_EQ(got->at("types").get<size_t>(), got->at("groups").size());
  EXPECT_EQ(got->at("through_containers_objects").get<uint64_t>(), owned_objects);
  EXPECT_EQ(got->at("through_containers_bytes").get<uint64_t>(), owned_bytes);
  EXPECT_EQ(got->at("through_containers_limited"), false);

  auto truth_of = [&](const std::string& name) {
    return std::make_pair(census.at(name).at(0).get<uint64_t>(),
                          census.at(name).at(1).get<uint64_t>());
  };
  for (const std::string name : {"Bulky", "tuple"}) {
    EXPECT_EQ(by_name[name], truth_of(name)) << name << "\n" << got->dump(1);
  }
  for (const std::string name : {"list", "dict", "set"}) {
    const auto [count, size] = truth_of(name);
    EXPECT_EQ(by_name[name].first, count) << name << "\n" << got->dump(1);
    EXPECT_LE(std::fabs(double(by_name[name].second) - double(size)), 0.01 * double(size))
        << name << ": " << by_name[name].second << " bytes, the process says " << size;
  }
  // Static types: named by tp_name, or by the `types` module in a core opened alone; were it
  // not imported, one "type at 0x..." group holds the truth's count and bytes.
  for (const std::string static_type : {"function", "generator", "coroutine", "async_generator"}) {
    const auto truth = truth_of(static_type);
    if (by_name.count(static_type)) {
      EXPECT_EQ(by_name[static_type], truth) << static_type << "\n" << got->dump(1);
      continue;
    }
    ASSERT_FALSE(GetParam().live) << static_type << " unnamed in a live process\n" << got->dump(1);
    int matching = 0;
    for (const auto& [name, row] : by_name) {
      if (name.rfind("type at 0x", 0) == 0 && row == truth) ++matching;
    }
    EXPECT_EQ(matching, 1) << "no unnamed group of " << truth.first << " objects, "
                           << truth.second << " bytes (" << static_type << ")\n" << got->dump(1);
  }

  uint64_t truth_objects = 0, truth_bytes = 0;
  for (const auto& [name, row] : census.items()) {
    truth_objects += row.at(0).get<uint64_t>();
    truth_bytes += row.at(1).get<uint64_t>();
  }
  EXPECT_LE(std::abs(double(objects) - double(truth_objects)), 0.001 * double(truth_objects))
      << objects << " objects, the process counts " << truth_objects;
  EXPECT_LE(std::abs(double(bytes) - double(truth_bytes)), 0.01 * double(truth_bytes))
      << bytes << " bytes, the process counts " << truth_bytes;

  const std::string header = "heap: " + std::to_string(objects) + " objects, " +
                             std::to_string(bytes) + " bytes in ";
  EXPECT_EQ(LinesContaining(run.out, header).size(), 2u)  // both text commands'
      << header << "\n" << run.out;
  const json& containers = got->at("containers");
  const json& recorded = truth.at("containers");
  ASSERT_EQ(containers.size(), 6u) << containers.dump();
  for (size_t i = 0; i < containers.size(); ++i) {
    const json& container = containers[i];
    EXPECT_EQ(container.at("bytes"), recorded.at(i).at(2)) << i << ": " << container.dump()
                                                           << "\n" << recorded.dump();
    bool found = false;
    for (const json& row : recorded) {
      found |= row == json::array({ShortName(container.at("type")), container.at("length"),
                                   container.at("bytes")});
    }
    EXPECT_TRUE(found) << container.dump() << " is not among\n" << recorded.dump();
    const std::string address = container.at("address");
    ASSERT_TRUE(truth.at("referrers").contains(address))
        << address << " is not among the addresses recorded\n" << truth.at("referrers").dump();
    ASSERT_TRUE(container.at("referrers").is_array()) << container.dump();
    std::multiset<std::pair<std::string, std::string>> got_referrers, held_by;
    for (const json& referrer : container.at("referrers")) {
      got_referrers.emplace(referrer.at("kind"), referrer.at("name"));
    }
    for (const json& holder : truth.at("referrers").at(address)) {
      held_by.emplace(holder.at(0), holder.at(1));
    }
    EXPECT_EQ(got_referrers, held_by) << container.dump() << "\n" << truth.at("referrers").dump();
  }
  // The scenario's three: the set of a class attribute, the dict of a global, the list of two
  // locals, each named on the line under its row.
  for (const std::string said : {"  referenced by: Registry.members\n",
                                 "  referenced by: __main__.CACHE\n", " local held, "}) {
    EXPECT_NE(run.out.find(said), std::string::npos) << said << "\n" << run.out;
  }
  // The untracked objects reached through containers.
  const json& recorded_owned = truth.at("owned");
  auto owned_truth = [&](const std::string& name) {
    return recorded_owned.contains(name)
               ? std::make_pair(recorded_owned.at(name).at(0).get<uint64_t>(),
                                recorded_owned.at(name).at(1).get<uint64_t>())
               : std::make_pair(uint64_t{0}, uint64_t{0});
  };
  EXPECT_GE(owned_truth("float").first, 10000u) << recorded_owned.dump();
  EXPECT_GE(owned_truth("bytes").first, 5000u) << recorded_owned.dump();
  EXPECT_GE(owned_truth("tuple").first, 5000u) << recorded_owned.dump();
  // Through __slots__ (Slotted, SlottedMore) and dicts at a positive tp_dictoffset.
  EXPECT_GE(owned_truth("float").first, 10000u + 3000 + 2 * 3000) << recorded_owned.dump();
  EXPECT_GE(owned_truth("bytes").first, 5000u + 2 * 3000) << recorded_owned.dump();
  EXPECT_GE(owned_truth("dict").first, 2000u) << recorded_owned.dump();
  for (const std::string name : {"float", "bytes", "tuple", "dict"}) {
    EXPECT_EQ(owned[name], owned_truth(name)) << name << "\n" << recorded_owned.dump();
  }
  auto near = [](uint64_t got, uint64_t want) {
    return std::fabs(double(got) - double(want)) <= kOwnedTolerance * double(want);
  };
  uint64_t truth_owned = 0, truth_owned_bytes = 0;
  for (const auto& [name, row] : recorded_owned.items()) {
    truth_owned += row.at(0).get<uint64_t>();
    truth_owned_bytes += row.at(1).get<uint64_t>();
  }
  for (const std::string name : {"str", "int"}) {
    const auto [count, size] = owned_truth(name);
    EXPECT_TRUE(near(owned[name].first, count) && near(owned[name].second, size))
        << name << ": " << owned[name].first << " objects, " << owned[name].second
        << " bytes; the process says " << count << ", " << size;
  }
  EXPECT_TRUE(near(owned_objects, truth_owned) && near(owned_bytes, truth_owned_bytes))
      << owned_objects << " objects, " << owned_bytes << " bytes; the process says "
      << truth_owned << ", " << truth_owned_bytes << "\n" << recorded_owned.dump();
  bool owned_row = false;
  for (const std::string& line : LinesContaining(run.out, "float *")) {
    if (line.find(" " + std::to_string(owned["float"].first) + " ") != std::string::npos) {
      owned_row = true;
    }
  }
  EXPECT_TRUE(owned_row) << run.out;
  EXPECT_EQ(LinesContaining(run.out, "*: objects the collector does not track").size(), 1u)
      << run.out;

  // The totals against memory.
  const json& memory = got->at("memory");
  ASSERT_TRUE(memory.at("writable_anonymous_bytes").is_number()) << memory.dump();
  const uint64_t mapped = memory.at("writable_anonymous_bytes");
  if (GetParam().live) {
    EXPECT_EQ(mapped, WritableAnonymousOfMaps(target_.pid)) << memory.dump();
  } else {
    EXPECT_EQ(mapped, WritableAnonymousOfCore(target_.core)) << memory.dump();
  }
  EXPECT_EQ(memory.at("census_bytes").get<uint64_t>(), bytes + owned_bytes) << memory.dump();
  EXPECT_NEAR(memory.at("census_percent").get<double>(),
              100.0 * double(bytes + owned_bytes) / double(mapped), 0.001)
      << memory.dump();
  EXPECT_EQ(LinesContaining(run.out, " MiB in writable anonymous mappings (").size(), 2u)
      << run.out;  // one per py-heap in text

  bool bulky_row = false;
  for (const std::string& line : LinesContaining(run.out, "Bulky ")) {
    if (line.find(" 20000 ") != std::string::npos) bulky_row = true;
  }
  EXPECT_TRUE(bulky_row) << run.out;
}

INSTANTIATE_TEST_SUITE_P(Interpreters, Heap, ::testing::ValuesIn(MatrixCells(kInterpreters)),
                         MatrixCellName);

}  // namespace
}  // namespace pyunwind_e2e
