// A fixture core opened without a debugger, as the core-level fixture tests read it:
// <dir>/core.xz decompressed into the test's temporary directory (removed afterwards) and read
// by ElfCoreTarget, with <dir>/truth.json when there is one.
#pragma once

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/target/elf_core_target.h"
#include "tests/fixture_cores.h"

namespace pyunwind::testing {

class OpenedCore {
 public:
  // `name` names the decompressed file: distinct for tests that may run at the same time.
  OpenedCore(const std::filesystem::path& dir, const std::string& name)
      : file_(dir / "core.xz", name) {
    if (!file_.ok()) {
      error_ = "cannot decompress " + (dir / "core.xz").string();
      return;
    }
    auto target = ElfCoreTarget::Open(file_.path().string());
    if (!target.ok()) {
      error_ = target.error().message;
      return;
    }
    target_ = std::move(*target);
    if (std::ifstream truth{dir / "truth.json"}) truth_ = nlohmann::json::parse(truth);
  }

  // Empty once the core is open; else what failed.
  const std::string& error() const { return error_; }
  ElfCoreTarget& target() { return *target_; }
  // <dir>/truth.json, or null when the directory has none.
  const nlohmann::json& truth() const { return truth_; }

 private:
  DecompressedCore file_;
  std::unique_ptr<ElfCoreTarget> target_;
  nlohmann::json truth_;
  std::string error_;
};

}  // namespace pyunwind::testing
