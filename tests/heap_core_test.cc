// py-heap on the `threads` fixture core of every version (<shared>/fixtures/cores/VERSION/
// threads/core.xz), read by ElfCoreTarget without a debugger or the executable:
//   * default builds (3.11.2, 3.12.6, 3.13.15, 3.14.7, 3.14.7-shared, 3.15.2): the census is
//     complete (no damaged object or link, no warning); its totals are the sums of its groups;
//     every object has at least a PyGC_Head and an object header (32 bytes); the scenario's
//     own classes are counted as threads.py made them: one Thread per truth thread but the
//     main one, one _MainThread, one Service; static types named without their executable
//     (function, dict, tuple, each hundreds); the text's header states the JSON's totals, and
//     --type and --top keep to what they select;
//   * free-threaded builds (3.13.15t, 3.14.7t), whose objects are in mimalloc heaps: the same,
//     and the groups of 15 types the scenario and the interpreter make alike in both builds
//     (Thread, Event, _thread.lock, set, cell, ModuleSpec, ...) have the count and bytes of the
//     default build's core of the same version. 3.13t immortalizes (and so untracks) functions,
//     classes, modules and their dicts once a second thread starts (_Py_SetImmortal), so
//     gc.get_objects() lists few: its `function` count is not checked;
//   * the untracked objects reached through containers: their own groups (str and int
//     among them, hundreds each: the module dicts' keys and values; no type objects), at
//     least 16 bytes each, summed in the through_containers totals; not limited;
//   * the totals against memory: the core's writable segments listed that no file of its
//     NT_FILE note maps (ElfCoreTarget names them from the note, as GDB does), the census's
//     bytes a share of them, in JSON and the text's line;
//   * --limit-objects N stops the census at N objects, says so in one warning and in JSON;
//   * --containers N: the N largest containers, most bytes first, each of a container type and
//     within its type's group; the largest of 1 is the first of 8; who refers to each looked
//     for in full (no scan warning), on the free-threaded cores too.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "tests/fixture_cores.h"
#include "tests/opened_core.h"

namespace pyunwind {
namespace {

using Json = nlohmann::json;

constexpr char kThisFile[] = "tests/heap_core_test.cc";

class HeapCore : public ::testing::TestWithParam<std::string> {};

// Of the tracked groups of that type, or (`through_containers`) of the untracked ones.
uint64_t SumOf(const Json& heap, const std::string& type, const char* field,
               bool through_containers = false) {
  uint64_t sum = 0;
  for (const Json& group : heap.at("groups")) {
    if (group.at("type") == type && group.at("through_containers") == through_containers) {
      sum += group.at(field).get<uint64_t>();
    }
  }
  return sum;
}

uint64_t CountOf(const Json& heap, const std::string& type, bool through_containers = false) {
  return SumOf(heap, type, "count", through_containers);
}

// The census of one fixture core, as JSON ("" when it cannot be had: the test then fails).
Json CensusOf(const std::filesystem::path& dir, const std::string& name) {
  testing::OpenedCore core(dir, name);
  EXPECT_EQ(core.error(), "");
  if (!core.error().empty()) return Json::object();
  CommandContext context{core.target(), std::nullopt, false, std::nullopt, std::nullopt};
  const CommandOutput json = RunCommand("py-heap", {"--json"}, context);
  EXPECT_FALSE(json.failed) << json.text;
  return json.failed ? Json::object() : Json::parse(json.text);
}

TEST_P(HeapCore, CensusIsWholeAndCountsTheScenariosObjects) {
  const std::string version = GetParam();
  const std::filesystem::path fixtures = testing::SharedFixtures(kThisFile);
  if (version == "none" || fixtures.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  const std::filesystem::path dir = fixtures / "cores" / version / "threads";
  testing::OpenedCore core(dir, "heap-" + version);
  ASSERT_EQ(core.error(), "");
  const Json& truth = core.truth();
  CommandContext context{core.target(), std::nullopt, false, std::nullopt, std::nullopt};

  const CommandOutput json = RunCommand("py-heap", {"--json"}, context);
  ASSERT_FALSE(json.failed) << json.text;
  const Json heap = Json::parse(json.text);
  EXPECT_EQ(heap.at("interpreters"), 1);
  EXPECT_EQ(heap.at("damaged"), 0) << heap.at("warnings");
  EXPECT_EQ(heap.at("complete"), true);
  EXPECT_TRUE(heap.at("warnings").empty()) << heap.at("warnings");
  EXPECT_EQ(heap.at("groups_not_shown"), 0);
  EXPECT_EQ(heap.at("types").get<size_t>(), heap.at("groups").size());
  uint64_t objects = 0, bytes = 0, previous = UINT64_MAX, owned = 0, owned_bytes = 0;
  for (const Json& group : heap.at("groups")) {
    const uint64_t count = group.at("count"), size = group.at("bytes");
    EXPECT_GT(count, 0u) << group;
    EXPECT_LE(size, previous) << "not largest first: " << group;
    previous = size;
    if (group.at("through_containers")) {
      EXPECT_GE(size, 16 * count) << group;  // an object header at least
      EXPECT_NE(group.at("type"), "type") << group;
      owned += count;
      owned_bytes += size;
      continue;
    }
    EXPECT_GE(size, 32 * count) << group;
    objects += count;
    bytes += size;
  }
  EXPECT_EQ(heap.at("objects").get<uint64_t>(), objects);
  EXPECT_EQ(heap.at("bytes").get<uint64_t>(), bytes);
  EXPECT_EQ(heap.at("through_containers_objects").get<uint64_t>(), owned);
  EXPECT_EQ(heap.at("through_containers_bytes").get<uint64_t>(), owned_bytes);
  EXPECT_EQ(heap.at("through_containers_limited"), false);
  EXPECT_GT(CountOf(heap, "str", true), 500u) << heap.at("groups");
  EXPECT_GT(CountOf(heap, "int", true), 100u) << heap.at("groups");
  const Json& memory = heap.at("memory");
  EXPECT_GT(memory.at("regions").get<uint64_t>(), 0u) << memory;
  EXPECT_EQ(memory.at("census_bytes").get<uint64_t>(), bytes + owned_bytes) << memory;
  EXPECT_GE(memory.at("writable_anonymous_bytes").get<uint64_t>(), bytes + owned_bytes) << memory;
  EXPECT_GT(memory.at("census_percent").get<double>(), 0.0) << memory;
  EXPECT_EQ(memory.at("unknown_reason"), nullptr) << memory;
  EXPECT_GT(objects, 5000u);  // the interpreter's own modules, types and functions

  uint64_t workers = 0;
  for (const Json& thread : truth.at("threads")) workers += thread.at("is_main") ? 0 : 1;
  EXPECT_EQ(workers, 7u);
  EXPECT_EQ(CountOf(heap, "Thread"), workers);
  EXPECT_EQ(CountOf(heap, "_MainThread"), 1u);
  EXPECT_EQ(CountOf(heap, "Service"), 1u);
  // No executable: the static type `function` is named by the `types` module (the scenario's
  // imports bring it in every fixture version), the builtins by the builtins module.
  const bool free_threaded = truth.at("python").at("free_threaded");
  if (version != "3.13.15t") {
    EXPECT_GT(CountOf(heap, "function"), 1000u);
  }
  EXPECT_GT(CountOf(heap, "dict"), 500u);
  EXPECT_GT(CountOf(heap, "tuple"), 500u);

  const CommandOutput text = RunCommand("py-heap", {"--top", "3"}, context);
  ASSERT_FALSE(text.failed) << text.text;
  const std::string header = "heap: " + std::to_string(objects) + " objects, " +
                             std::to_string(bytes) + " bytes in " +
                             std::to_string(heap.at("groups").size()) + " types (1 interpreter;";
  EXPECT_EQ(text.text.rfind(header, 0), 0u) << text.text;
  EXPECT_NE(text.text.find(" MiB in writable anonymous mappings ("), std::string::npos)
      << text.text;
  EXPECT_NE(text.text.find("\n... " + std::to_string(heap.at("groups").size() - 3) +
                           " more types not shown\n"),
            std::string::npos)
      << text.text;
  const CommandOutput only = RunCommand("py-heap", {"--json", "--type", "Thread"}, context);
  ASSERT_FALSE(only.failed) << only.text;
  const Json threads = Json::parse(only.text);
  ASSERT_EQ(threads.at("groups").size(), 1u) << threads;
  EXPECT_EQ(threads.at("groups").at(0).at("count"), workers);
  EXPECT_EQ(threads.at("objects"), objects);  // the totals stay the whole heap's

  const CommandOutput limited = RunCommand("py-heap", {"--json", "--limit-objects", "1000"}, context);
  ASSERT_FALSE(limited.failed) << limited.text;
  const Json first = Json::parse(limited.text);
  EXPECT_EQ(first.at("objects"), 1000);
  EXPECT_EQ(first.at("limited"), true);
  EXPECT_EQ(first.at("complete"), false);
  EXPECT_EQ(first.at("warnings"), Json::array({"the census stopped after 1000 objects "
                                               "(--limit-objects): the rest are not "
                                               "counted...truncated"}));
  EXPECT_EQ(heap.at("limited"), false);

  // The largest containers: ranked, of container types, each within its type's group, the
  // first of 1 the first of 8.
  const CommandOutput ranked = RunCommand("py-heap", {"--json", "--containers", "8"}, context);
  ASSERT_FALSE(ranked.failed) << ranked.text;
  const Json containers = Json::parse(ranked.text).at("containers");
  ASSERT_EQ(containers.size(), 8u) << containers;
  uint64_t larger = UINT64_MAX;
  for (const Json& container : containers) {
    const std::string type = container.at("type");
    const uint64_t size = container.at("bytes"), length = container.at("length");
    EXPECT_LE(size, larger) << container;
    larger = size;
    EXPECT_LE(size, SumOf(heap, type, "bytes")) << container;
    EXPECT_TRUE(type == "dict" || type == "list" || type == "tuple" || type == "set" ||
                type == "frozenset")
        << container;
    EXPECT_GE(size, 8 * length) << container;  // every item, key or element takes a slot
    // Who refers to it was looked for (modules, classes, every thread's frames), in full.
    EXPECT_TRUE(container.at("referrers").is_array()) << container;
  }
  const Json ranked_doc = Json::parse(ranked.text);  // kept: the loop walks into it
  for (const Json& warning : ranked_doc.at("warnings")) {
    EXPECT_EQ(warning.get<std::string>().find("who refers to the largest containers"),
              std::string::npos)
        << warning;
  }
  const CommandOutput one = RunCommand("py-heap", {"--json", "--containers", "1"}, context);
  ASSERT_FALSE(one.failed) << one.text;
  EXPECT_EQ(Json::parse(one.text).at("containers"), Json::array({containers.at(0)}));
  EXPECT_EQ(heap.at("containers"), Json::array());
  const CommandOutput shown = RunCommand("py-heap", {"--top", "1", "--containers", "2"}, context);
  EXPECT_NE(shown.text.find("\nlargest containers:\n"), std::string::npos) << shown.text;

  if (!free_threaded) return;
  // The same scenario's core of the default build of this version.
  const std::string default_build = version.substr(0, version.size() - 1);
  const Json other = CensusOf(fixtures / "cores" / default_build / "threads", "heap-" + default_build);
  for (const char* type : {"Thread", "Event", "Condition", "_thread.lock", "FileFinder", "set",
                           "cell", "ModuleSpec", "SourceFileLoader", "re.Pattern", "property",
                           "classmethod", "staticmethod", "_abc._abc_data",
                           "collections._tuplegetter"}) {
    SCOPED_TRACE(type);
    EXPECT_GT(CountOf(heap, type), 0u);
    EXPECT_EQ(CountOf(heap, type), CountOf(other, type));
    EXPECT_EQ(SumOf(heap, type, "bytes"), SumOf(other, type, "bytes"));
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, HeapCore,
                         ::testing::ValuesIn(testing::VersionsWithScenario(kThisFile, "threads")),
                         [](const auto& info) {
                           std::string name = "v" + info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace pyunwind
