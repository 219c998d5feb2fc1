// The comparison of pyunwind's `--locals` frames with a `locals` scenario's
// truth, shared by the core-level and the end-to-end tests: the same frames
// and local names, every type name, and the repr of the simple types.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace pyunwind::testing {

// Types whose repr pyunwind must reproduce exactly (others: type name only).
inline const std::set<std::string> kLocalsReprTypes = {
    "NoneType", "bool", "int", "float", "str", "bytes", "tuple", "list", "dict", "set"};

// `frames`: the worker thread's frames in pyunwind's JSON; `truth_locals`:
// the truth's "locals" object. Returns how many reprs were compared.
inline size_t ExpectLocalsMatchTruth(const nlohmann::json& frames, const nlohmann::json& truth_locals) {
  const nlohmann::json& want_frames = truth_locals.at("frames");
  EXPECT_EQ(frames.size(), want_frames.size()) << frames.dump();
  if (frames.size() != want_frames.size()) return 0;
  size_t compared = 0;
  for (size_t i = 0; i < frames.size(); ++i) {
    const nlohmann::json& frame = frames[i];
    const nlohmann::json& want = want_frames[i];
    SCOPED_TRACE("frame " + std::to_string(i) + " " + want.at("qualname").get<std::string>());
    EXPECT_EQ(frame.at("qualname"), want.at("qualname"));
    EXPECT_TRUE(frame.contains("locals")) << frame.dump();
    if (!frame.contains("locals")) continue;
    EXPECT_FALSE(frame.contains("locals_error")) << frame.dump();
    const nlohmann::json& locals = frame.at("locals");
    std::set<std::string> got_names, want_names;
    for (const auto& [name, value] : locals.items()) got_names.insert(name);
    for (const auto& [name, value] : want.at("locals").items()) want_names.insert(name);
    EXPECT_EQ(got_names, want_names);
    for (const auto& [name, value] : want.at("locals").items()) {
      if (!locals.contains(name)) continue;
      SCOPED_TRACE("local " + name);
      const nlohmann::json& mine = locals.at(name);
      EXPECT_EQ(mine.at("type"), value.at("type"));
      if (kLocalsReprTypes.count(value.at("type").get<std::string>())) {
        EXPECT_TRUE(mine.at("repr").is_string()) << mine.dump();
        if (!mine.at("repr").is_string()) continue;
        EXPECT_EQ(mine.at("repr").get<std::string>().substr(0, 120), value.at("repr"));
        ++compared;
      }
    }
  }
  return compared;
}

}  // namespace pyunwind::testing
