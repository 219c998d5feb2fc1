#include "tests/e2e/truth_checks.h"

#include <gtest/gtest.h>

#include "tests/e2e/tasks_truth.h"

namespace pyunwind_e2e {

json CallingOf(const json& thread) {
  json calling = json::array();
  for (const json& frame : thread.at("frames")) calling.push_back(frame.at("calling"));
  return calling;
}

void ExpectCallsAsTruth(const json& thread, const json& want, const std::string& text,
                        size_t* named) {
  EXPECT_EQ(CallingOf(thread), want.at("calling")) << thread.at("frames").dump(1);
  for (const json& name : want.at("calling")) {
    if (name.is_null()) continue;
    ++*named;
    EXPECT_NE(text.find("\n    " + name.get<std::string>() + "\n"), std::string::npos) << name;
  }
}

void FindInstallAndSource(const SourceCase& c, const Install** install, const Source** source) {
  if (!c.live && !FileExists(c.CoreDir() + "/core.xz")) {
    GTEST_SKIP() << "no fixture core " << c.CoreDir() << "/core.xz";
  }
  std::string error;
  const Install* found_install = Installed(&error);
  ASSERT_NE(found_install, nullptr) << error;
  const Source* found_source = Sources::Of(c, &error);
  if (!found_source) PYU_SKIP_OR_FAIL(error);
  *install = found_install;
  *source = found_source;
}

void ExpectJsonAsTruth(const RunResult& r, const std::string& command, const std::string& version,
                       const json& truth) {
  ASSERT_TRUE(r.exited && r.exit_code == 0) << version << "\n" << r.Describe();
  std::string error;
  auto doc = ExtractJson(r.out, &error);
  ASSERT_TRUE(doc) << version << ": " << error << "\n" << r.Describe();
  const bool tasks = command.rfind("py-tasks", 0) == 0;
  const std::string mismatch = tasks ? CompareTasks(truth, *doc) : CompareWithTruth(truth, *doc);
  EXPECT_TRUE(mismatch.empty()) << version << ": " << command << " differs from the truth:\n"
                                << mismatch << r.command;
}

}  // namespace pyunwind_e2e
