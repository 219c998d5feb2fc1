// py-heap against the census tests/data/heap_census.py takes of itself (gc.get_objects(),
// type(o).__name__, sys.getsizeof), on Debian's 3.11 and pyenv's 3.12.1 and 3.13.0 (where
// installed), live and from a gcore core opened alone, in LLDB and GDB. The scenario takes its
// census, then moves every object to the permanent generation (gc.freeze()): both kinds of
// list are walked.
//   * its own class Bulky (20,000), tuple, list, dict and set: counts exact; bytes exact for
//     Bulky and tuple (their size follows from the type), within 1 % for list, dict and set
//     (measured: exact);
//   * function (2,000 closures among the interpreter's own): count and bytes exact. A core
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
//     recorded for that address (gc.get_referrers, frames' f_locals): the three largest are
//     held by __main__.CACHE, Registry.members and `held` of the parked park() and main(); the
//     text says them under their rows.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/e2e/harness.h"
#include "tests/e2e/scenario_matrix.h"

namespace pyunwind_e2e {
namespace {

const std::vector<std::string> kInterpreters = {"debian_3.11", "3.12.1", "3.13.0"};

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
                               "py-heap --type Bulky --containers 3"});
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.Describe();
  std::string error;
  auto got = ExtractJson(run.out, &error);
  ASSERT_TRUE(got) << error << "\n" << run.Describe();
  ASSERT_EQ(got->at("groups_not_shown"), 0) << got->dump();

  std::map<std::string, std::pair<uint64_t, uint64_t>> by_name;
  uint64_t objects = 0, bytes = 0;
  for (const json& group : got->at("groups")) {
    auto& row = by_name[ShortName(group.at("type"))];
    row.first += group.at("count").get<uint64_t>();
    row.second += group.at("bytes").get<uint64_t>();
    objects += group.at("count").get<uint64_t>();
    bytes += group.at("bytes").get<uint64_t>();
  }
  EXPECT_EQ(got->at("objects").get<uint64_t>(), objects);
  EXPECT_EQ(got->at("bytes").get<uint64_t>(), bytes);
  EXPECT_EQ(got->at("types").get<size_t>(), got->at("groups").size());

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
  const auto function = truth_of("function");
  if (by_name.count("function")) {
    EXPECT_EQ(by_name["function"], function) << got->dump(1);
  } else {
    ASSERT_FALSE(GetParam().live) << "function unnamed in a live process\n" << got->dump(1);
    int matching = 0;
    for (const auto& [name, row] : by_name) {
      if (name.rfind("type at 0x", 0) == 0 && row == function) ++matching;
    }
    EXPECT_EQ(matching, 1) << "no unnamed group of " << function.first << " objects, "
                           << function.second << " bytes\n" << got->dump(1);
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
  EXPECT_EQ(LinesContaining(run.out, header).size(), 1u) << header << "\n" << run.out;
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
