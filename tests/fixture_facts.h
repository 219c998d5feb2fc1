// Test helpers: where the test data lives, and the fixture layout tables
// (../shared/fixtures/layouts/VERSION.tsv: type, member, offset, size).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace pyunwind::testing {

// A file of this workspace, through the test's runfiles.
inline std::string RunfilePath(const std::string& relative) {
  const char* srcdir = std::getenv("TEST_SRCDIR");
  const char* workspace = std::getenv("TEST_WORKSPACE");
  if (srcdir == nullptr) return relative;  // run by hand from the workspace root
  return std::string(srcdir) + "/" + (workspace ? workspace : "pyunwind") + "/" + relative;
}

// Bytes written as hex digits (the JSON test data's code and tables).
inline std::string FromHex(const std::string& hex) {
  std::string bytes;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    bytes += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  }
  return bytes;
}

inline std::optional<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// Where the shared fixtures are looked for: PYUNWIND_SHARED_DIR/fixtures (as
// for the end-to-end tests), else <workspace>/../shared/fixtures, the
// workspace found by resolving the runfile symlink of `anchor` (a data file
// of the test) back to the source tree. Empty if the workspace is not found.
inline std::filesystem::path SharedFixturesLookedAt(const std::string& anchor) {
  namespace fs = std::filesystem;
  if (const char* shared = std::getenv("PYUNWIND_SHARED_DIR")) return fs::path(shared) / "fixtures";
  std::error_code ec;
  fs::path root = fs::canonical(RunfilePath(anchor), ec);
  if (ec) return {};
  // Strip the anchor's own components to reach the workspace root.
  const fs::path anchor_path(anchor);
  for (auto it = anchor_path.begin(); it != anchor_path.end(); ++it) root = root.parent_path();
  return root.parent_path() / "shared" / "fixtures";
}

// The one line a test that needs the shared fixtures (or the file `relative`
// in them) skips with without them: where it looked.
inline std::string SharedFixturesMissing(const std::string& anchor, const std::string& relative = "") {
  const std::filesystem::path looked = SharedFixturesLookedAt(anchor);
  const std::string where = looked.empty() ? "(workspace not found)" : looked.string();
  return (relative.empty() ? "no shared fixtures at " + where : "no " + where + "/" + relative) +
         " (../shared beside the checkout, or $PYUNWIND_SHARED_DIR)";
}

// The folder of the fixture layouts: PYUNWIND_FIXTURE_LAYOUTS, else
// layouts/ of SharedFixturesLookedAt. Empty when the folder does not exist.
inline std::string FixtureLayoutsDir(const std::string& anchor) {
  if (const char* dir = std::getenv("PYUNWIND_FIXTURE_LAYOUTS")) return dir;
  const std::filesystem::path fixtures = SharedFixturesLookedAt(anchor);
  std::error_code ec;
  if (fixtures.empty() || !std::filesystem::is_directory(fixtures / "layouts", ec)) return "";
  return (fixtures / "layouts").string();
}

struct Member {
  int32_t offset = -1;
  int32_t size = -1;
};

// One fixture's table: (type, member) -> offset and size, plus the end of
// each type's last member.
class LayoutFacts {
 public:
  static std::optional<LayoutFacts> Load(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    LayoutFacts facts;
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::stringstream row(line);
      std::string type, member, offset, size;
      std::getline(row, type, '\t');
      std::getline(row, member, '\t');
      std::getline(row, offset, '\t');
      std::getline(row, size, '\t');
      if (type.empty() || offset.empty() || size.empty()) continue;
      Member m{std::stoi(offset), std::stoi(size)};
      facts.members_.emplace(std::make_pair(type, member), m);
      facts.order_.emplace_back(type, member);
      int32_t& end = facts.ends_[type];
      if (m.offset + m.size > end) end = m.offset + m.size;
    }
    return facts;
  }

  std::optional<Member> Get(const std::string& type, const std::string& member) const {
    auto it = members_.find({type, member});
    if (it == members_.end()) return std::nullopt;
    return it->second;
  }
  // Offset of a member, or -2 when the table lacks it (so an EXPECT_EQ
  // against a real offset fails loudly, and kAbsent = -1 never matches).
  int32_t Offset(const std::string& type, const std::string& member) const {
    auto m = Get(type, member);
    return m ? m->offset : -2;
  }
  // sizeof(type) for a struct whose last member the table lists, rounded up
  // to the 8-byte alignment of the structs we read.
  int32_t AlignedEnd(const std::string& type) const {
    auto it = ends_.find(type);
    return it == ends_.end() ? -2 : (it->second + 7) / 8 * 8;
  }
  // The members of one type in table order.
  std::vector<std::pair<std::string, Member>> MembersOf(const std::string& type) const {
    std::vector<std::pair<std::string, Member>> out;
    for (const auto& key : order_) {
      if (key.first == type) out.emplace_back(key.second, members_.at(key));
    }
    return out;
  }

 private:
  std::map<std::pair<std::string, std::string>, Member> members_;
  std::vector<std::pair<std::string, std::string>> order_;
  std::map<std::string, int32_t> ends_;
};

}  // namespace pyunwind::testing
