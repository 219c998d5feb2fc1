#include "core/pysource/source_policy.h"

#include <sys/stat.h>
#include <sys/vfs.h>

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <sstream>

#include "core/base/limits.h"

namespace pyunwind {
namespace {

// statfs f_type values (linux/magic.h; a few are not in every kernel's headers).
// devtmpfs reports tmpfs's own, so /dev cannot be told from /tmp by it: its files are
// devices, which the regular-file rule refuses.
constexpr uint64_t kPseudoFileSystems[] = {
    0x9fa0,      // proc
    0x62656572,  // sysfs
    0x64626720,  // debugfs
    0x74726163,  // tracefs
    0x0027e0eb,  // cgroup
    0x63677270,  // cgroup2
    0x73636673,  // securityfs
    0x62656570,  // configfs
    0x6165676c,  // pstore
    0xcafe4a11,  // bpf
    0xde5e81e4,  // efivarfs
    0xf97cff8c,  // selinuxfs
    0x43415d53,  // smackfs
    0x65735543,  // fusectl
    0x00001cd1,  // devpts
    0x19800202,  // mqueue
    0x958458f6,  // hugetlbfs
    0x42494e4d,  // binfmt_misc
    0x00000187,  // autofs
    0x6e736673,  // nsfs
    0x07655821,  // resctrl
};
constexpr uint64_t kNetworkFileSystems[] = {
    0x6969,      // nfs
    0x517b,      // smb
    0xff534d42,  // cifs
    0xfe534d42,  // smb2
    0x5346414f,  // afs
    0x6b414653,  // kafs
    0x00c36400,  // ceph
    0x73757245,  // coda
    0x564c,      // ncp
    0x01021997,  // 9p (v9fs)
};

// CPython's own names for code without a file: "<string>", "<frozen importlib._bootstrap>".
bool IsPseudoName(const std::string& name) {
  return name.size() >= 2 && name.front() == '<' && name.back() == '>';
}

std::optional<std::string> RealPath(const std::string& path) {
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return std::nullopt;
  std::string out(resolved);
  std::free(resolved);
  return out;
}

const char* Describe(SourceRefusal reason) {
  switch (reason) {
    case SourceRefusal::kNotPythonName: return "not named *.py or *.pyw";
    case SourceRefusal::kRelativeName: return "a relative name and no live process to resolve it in";
    case SourceRefusal::kOutsideSourceDir: return "leading out of its --source-dir";
    case SourceRefusal::kNotRegular: return "not a regular file";
    case SourceRefusal::kPseudoFileSystem: return "on a pseudo file system (proc, sysfs, ...)";
    case SourceRefusal::kNetworkFileSystem: return "on a network file system";
    case SourceRefusal::kTooLarge: return "larger than 64 MiB";
    case SourceRefusal::kUserCannotRead: return "not readable by the target's user";
    case SourceRefusal::kCount: break;
  }
  return "?";
}

}  // namespace

std::optional<SourceRefusal> FileSystemRefusal(int fd) {
  struct statfs fs;
  if (::fstatfs(fd, &fs) != 0) return SourceRefusal::kPseudoFileSystem;  // cannot tell: refused
  const auto type = static_cast<uint64_t>(static_cast<uint32_t>(fs.f_type));
  const auto in = [type](const auto& list) {
    return std::find(std::begin(list), std::end(list), type) != std::end(list);
  };
  if (in(kPseudoFileSystems)) return SourceRefusal::kPseudoFileSystem;
  if (in(kNetworkFileSystems)) return SourceRefusal::kNetworkFileSystem;
  return std::nullopt;
}

bool UserMayRead(const struct stat& st, const std::optional<FileUser>& user) {
  if (!user) return (st.st_mode & S_IROTH) != 0;
  if (user->uid == 0) return true;
  if (user->uid == st.st_uid) return (st.st_mode & S_IRUSR) != 0;
  if (std::find(user->gids.begin(), user->gids.end(), st.st_gid) != user->gids.end()) {
    return (st.st_mode & S_IRGRP) != 0;
  }
  return (st.st_mode & S_IROTH) != 0;
}

std::optional<FileUser> ParseProcStatusUser(const std::string& status) {
  // "Uid:\treal\teffective\tsaved\tfs": the fs ids are what the kernel checks a file against.
  auto ids_of = [&](const std::string& key) {
    std::vector<uint32_t> ids;
    const size_t at = status.find("\n" + key);
    const size_t start = status.compare(0, key.size(), key) == 0 ? key.size()
                         : at == std::string::npos             ? std::string::npos
                                                               : at + 1 + key.size();
    if (start == std::string::npos) return ids;
    std::istringstream line(status.substr(start, status.find('\n', start) - start));
    unsigned long id;
    while (line >> id) {
      if (id > UINT32_MAX) return std::vector<uint32_t>{};
      ids.push_back(static_cast<uint32_t>(id));
    }
    return ids;
  };
  const std::vector<uint32_t> uids = ids_of("Uid:");
  const std::vector<uint32_t> gids = ids_of("Gid:");
  if (uids.size() != 4 || gids.size() != 4) return std::nullopt;
  FileUser user{uids[3], {gids[3]}};
  for (uint32_t gid : ids_of("Groups:")) user.gids.push_back(gid);
  return user;
}

SourcePolicy::SourcePolicy(SourceOrigin origin) : origin_(std::move(origin)) {}

Result<RegularFile> SourcePolicy::Refuse(SourceRefusal reason, const std::string& filename) {
  ++refused_[static_cast<size_t>(reason)];
  return MakeError(fmt::format("'{}' is not here, or not a file pyunwind reads", filename));
}

const std::optional<FileUser>& SourcePolicy::User() {
  if (!user_known_) {
    user_known_ = true;
    if (origin_.live_pid) {
      user_ = ParseProcStatusUser(
          ReadFileStart(fmt::format("/proc/{}/status", *origin_.live_pid), 1 << 14));
    } else {
      user_ = origin_.core_user;
    }
  }
  return user_;
}

Result<RegularFile> SourcePolicy::OpenChecked(const std::string& path, const std::string& filename,
                                              bool check_user) {
  RegularFile file = RegularFile::Open(path);
  switch (file.failure()) {
    case RegularFile::Failure::kCannotOpen:  // absent or not allowed: not a refusal
      return MakeError(fmt::format("'{}' is not here, or not a file pyunwind reads", filename));
    case RegularFile::Failure::kNotRegular:
      return Refuse(SourceRefusal::kNotRegular, filename);
    case RegularFile::Failure::kNone:
      break;
  }
  if (auto refusal = FileSystemRefusal(file.fd())) return Refuse(*refusal, filename);
  if (file.size() > kMaxSourceFileBytes) return Refuse(SourceRefusal::kTooLarge, filename);
  struct stat st;
  if (check_user && (::fstat(file.fd(), &st) != 0 || !UserMayRead(st, User()))) {
    return Refuse(SourceRefusal::kUserCannotRead, filename);
  }
  return file;
}

Result<RegularFile> SourcePolicy::Open(const std::string& filename) {
  if (filename.empty() || IsPseudoName(filename)) {
    return MakeError(fmt::format("'{}' is not here, or not a file pyunwind reads", filename));
  }
  if (!filename.ends_with(".py") && !filename.ends_with(".pyw")) {
    return Refuse(SourceRefusal::kNotPythonName, filename);
  }
  // The analyst's directories: DIR/<base name>, inside DIR once its symlinks are resolved.
  const size_t slash = filename.rfind('/');
  const std::string base = slash == std::string::npos ? filename : filename.substr(slash + 1);
  for (const std::string& directory : origin_.directories) {
    const std::optional<std::string> real_dir = RealPath(directory);
    const std::optional<std::string> real = RealPath(directory + "/" + base);
    if (!real_dir || !real) continue;  // not there
    if (real->compare(0, real_dir->size() + 1, *real_dir + "/") != 0 &&
        !(*real_dir == "/" && real->size() > 1)) {
      (void)Refuse(SourceRefusal::kOutsideSourceDir, filename);
      continue;
    }
    auto file = OpenChecked(*real, filename, /*check_user=*/false);
    if (file.ok()) return file;
  }
  // The name itself, as the target sees it.
  if (filename.front() != '/') {
    if (!origin_.live_pid) return Refuse(SourceRefusal::kRelativeName, filename);
    return OpenChecked(fmt::format("/proc/{}/cwd/{}", *origin_.live_pid, filename), filename, true);
  }
  if (origin_.live_pid) {
    return OpenChecked(fmt::format("/proc/{}/root{}", *origin_.live_pid, filename), filename, true);
  }
  return OpenChecked(filename, filename, true);
}

std::optional<std::string> SourcePolicy::RefusalNote() const {
  std::string parts;
  for (size_t i = 0; i < refused_.size(); ++i) {
    if (refused_[i] == 0) continue;
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", refused_[i],
                         Describe(static_cast<SourceRefusal>(i)));
  }
  if (parts.empty()) return std::nullopt;
  return "source files not read (docs/commands.md, \"Which files are read\"): " + parts;
}

}  // namespace pyunwind
