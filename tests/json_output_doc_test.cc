// docs/json-output.md against the code: every key the JSON commands emit on the fixture cores
// appears in one of the page's ```json examples, and every key an example names is emitted,
// unless it is one of the few listed below that need a debugger or a damaged target. A field
// added, renamed or dropped in the code without the page fails here.
//
// The commands run on the 3.11.2 asyncio_tree and locals cores (<shared>/fixtures/cores), read
// by ElfCoreTarget without a debugger; without ../shared the test skips, saying where it looked.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/commands/commands.h"
#include "tests/fixture_cores.h"
#include "tests/opened_core.h"

namespace pyunwind {
namespace {

using Json = nlohmann::json;

constexpr char kThisFile[] = "tests/json_output_doc_test.cc";
constexpr char kDoc[] = "docs/json-output.md";

// Keys the page documents that these cores cannot make a command emit, and why.
const std::set<std::string> kNotOnTheseCores = {
    "pc", "function", "module",              // native frames: --native needs a debugger's unwind
    "error", "locals_error",                 // a local or a frame's locals the target hides
    "locals_not_shown",                      // a frame of more than 1024 locals
    "coroutines_not_shown", "before_index",  // a coroutine chain of more than 1024
    "workers", "idle_workers",               // a thread waiting for a Future an executor queued
    "greenlets",                             // py-bt --greenlets: these cores have no greenlet
};

// The keys of every ```json block of the page (`"key":`), lower-case names only: a local's
// name in an example is written in capitals (`"NAME"`), as it stands for any name.
std::set<std::string> DocumentedKeys(const std::string& page) {
  std::set<std::string> keys;
  std::istringstream in(page);
  const std::regex key(R"re("([a-z_]+)"\s*:)re");
  bool in_json = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      in_json = line == "```json";
      continue;
    }
    if (!in_json) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), key), end; it != end; ++it) {
      keys.insert((*it)[1]);
    }
  }
  return keys;
}

// Every key of `value`, at any depth. The members of "locals" are variable names, not keys of
// the format: only what each holds is collected.
void CollectKeys(const Json& value, std::set<std::string>& keys) {
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      keys.insert(key);
      if (key == "locals" && member.is_object()) {
        for (const auto& [name, local] : member.items()) CollectKeys(local, keys);
      } else {
        CollectKeys(member, keys);
      }
    }
  } else if (value.is_array()) {
    for (const Json& item : value) CollectKeys(item, keys);
  }
}

// The one JSON document `name args` prints on `target`.
Json RunJson(Target& target, const std::string& name, const std::vector<std::string>& args,
             std::optional<uint64_t> thread = std::nullopt) {
  CommandContext context{target};
  context.selected_thread_id = thread;
  const CommandOutput out = RunCommand(name, args, context);
  EXPECT_FALSE(out.failed) << name << ": " << out.text;
  const Json doc = Json::parse(out.text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(doc.is_discarded()) << name << " printed no JSON document: " << out.text;
  return doc;
}

// The first thread of a py-bt document with a Python frame (py-locals needs one selected).
std::optional<uint64_t> ThreadWithPythonFrame(const Json& py_bt) {
  for (const Json& interp : py_bt.at("interpreters")) {
    for (const Json& thread : interp.at("threads")) {
      for (const Json& frame : thread.at("frames")) {
        if (frame.at("kind") == "python" && thread.at("native_id").is_number()) {
          return thread.at("native_id").get<uint64_t>();
        }
      }
    }
  }
  return std::nullopt;
}

// The keys emitted by every JSON view, over the scenarios' cores.
std::set<std::string> EmittedKeys(const std::filesystem::path& cores) {
  std::set<std::string> keys;
  for (const std::string scenario : {"asyncio_tree", "locals"}) {
    SCOPED_TRACE(scenario);
    testing::OpenedCore core(cores / "3.11.2" / scenario, "json_doc_" + scenario);
    EXPECT_EQ(core.error(), "");
    if (!core.error().empty()) continue;
    Target& target = core.target();
    const Json all =
        RunJson(target, "py-bt", {"--all", "--json", "--locals", "--source", "--stats"});
    CollectKeys(all, keys);
    CollectKeys(RunJson(target, "py-bt", {"--all", "--json", "--limit", "1"}), keys);
    CollectKeys(RunJson(target, "py-bt", {"--all", "--json", "--group"}), keys);
    CollectKeys(RunJson(target, "py-tasks", {"--json", "--all", "--stats"}), keys);
    CollectKeys(RunJson(target, "py-tasks", {"--json", "--summary"}), keys);
    CollectKeys(RunJson(target, "py-waits", {"--json"}), keys);
    CollectKeys(RunJson(target, "py-heap", {"--json", "--containers", "3"}), keys);
    const std::optional<uint64_t> thread = ThreadWithPythonFrame(all);
    EXPECT_TRUE(thread.has_value()) << "no thread with a Python frame";
    if (thread) CollectKeys(RunJson(target, "py-locals", {"--json"}, thread), keys);
    CollectKeys(RunJson(target, "version", {"--json"}), keys);
  }
  return keys;
}

TEST(JsonOutputDoc, EveryKeyTheCodeEmitsIsDocumentedAndBack) {
  const std::filesystem::path fixtures = testing::SharedFixtures(kThisFile);
  if (fixtures.empty()) GTEST_SKIP() << testing::SharedFixturesMissing(kThisFile);
  std::ifstream in(testing::RunfilePath(kDoc));
  ASSERT_TRUE(in) << "cannot read " << kDoc;
  const std::set<std::string> documented =
      DocumentedKeys({std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()});
  ASSERT_GE(documented.size(), 40u) << kDoc << "'s JSON examples were not found";

  const std::set<std::string> emitted = EmittedKeys(fixtures / "cores");
  ASSERT_FALSE(emitted.empty());
  for (const std::string& key : emitted) {
    EXPECT_TRUE(documented.count(key)) << "the code emits \"" << key << "\", which " << kDoc
                                       << " does not document";
  }
  for (const std::string& key : documented) {
    if (kNotOnTheseCores.count(key)) {
      EXPECT_FALSE(emitted.count(key))
          << "\"" << key << "\" is emitted now: take it off kNotOnTheseCores";
      continue;
    }
    EXPECT_TRUE(emitted.count(key))
        << kDoc << " documents \"" << key << "\", which no command emitted";
  }
  for (const std::string& key : kNotOnTheseCores) {
    EXPECT_TRUE(documented.count(key)) << kDoc << " does not document \"" << key << "\"";
  }
}

}  // namespace
}  // namespace pyunwind
