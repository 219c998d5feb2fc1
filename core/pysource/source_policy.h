// Which local file the source of a code object is read from, and whether it is read at all:
// the one place that decides it (py-bt's source lines, py-list, py-up/py-down/py-frame).
// A code object's file name (co_filename) is the target's choice: a hostile process or core
// names /proc/self/environ, /etc/shadow, a relative name meant for the debugger's working
// directory, a FIFO. The rules (docs/commands.md, "Which files are read"):
//  - the name must end in .py or .pyw (what importlib loads as source);
//  - a relative name is never resolved against the debugger's working directory: for a live
//    process on this host it is resolved against its own (/proc/PID/cwd), else refused;
//  - an absolute name of a live process on this host is read as the process sees it
//    (/proc/PID/root/NAME: right inside containers), and only if the process's own user could
//    read it (the fs uid, gid and groups of /proc/PID/status; uid 0 reads anything); of a core
//    whose user is known (NT_PRPSINFO), if that user could; else only a world-readable file;
//  - --source-dir DIR (the analyst's) maps the name's base name to DIR/<base name>, only
//    where that path, its symlinks resolved, stays inside DIR;
//  - the file opened (symlinks followed) must be a regular file of at most
//    kMaxSourceFileBytes, on no pseudo file system (proc, sysfs, debugfs, ...) nor network
//    file system (NFS, SMB, AFS, Ceph, 9p, ...); opening never blocks or takes a terminal.
// Each refusal is counted by its reason, for py-bt -v; the commands say the same for a
// file refused as for a file that is not there.
#pragma once

#include <sys/stat.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/base/regular_file.h"
#include "core/base/result.h"

namespace pyunwind {

// Who a file must be readable by: a user and its groups.
struct FileUser {
  uint32_t uid = 0;
  std::vector<uint32_t> gids;  // the primary group and the supplementary ones
};

// What the source files are resolved against: given by the command from its Target.
struct SourceOrigin {
  // A live process on this host (Target::LocalProcessId): its /proc/PID/{root,cwd,status}.
  std::optional<uint64_t> live_pid;
  // The user a core's process ran as (Target::CoreUser), where known.
  std::optional<FileUser> core_user;
  // --source-dir: searched in order, by base name, before the name itself.
  std::vector<std::string> directories;
};

enum class SourceRefusal {
  kNotPythonName,     // does not end in .py or .pyw
  kRelativeName,      // relative, and no live process to resolve it against
  kOutsideSourceDir,  // DIR/<base name> leads out of DIR through a symlink
  kNotRegular,        // a FIFO, a device, a directory, ...
  kPseudoFileSystem,  // on proc, sysfs, debugfs, cgroup, ...
  kNetworkFileSystem, // on NFS, SMB, AFS, Ceph, 9p, ...
  kTooLarge,          // over kMaxSourceFileBytes
  kUserCannotRead,    // the target's user could not read it (or, user unknown, not world-readable)
  kCount,
};

// The file system `fd` is on refused by its kind: kPseudoFileSystem, kNetworkFileSystem, or
// nullopt (a disk, tmpfs, overlayfs, FUSE, ...).
std::optional<SourceRefusal> FileSystemRefusal(int fd);

// Whether `user` may read a file of `st`'s owner, group and mode, by the permission bits (no
// ACLs, no capabilities but uid 0's); `user` unknown: only a world-readable file.
bool UserMayRead(const struct stat& st, const std::optional<FileUser>& user);

// The fs uid, fs gid and groups of /proc/PID/status's text; nullopt where it has none.
std::optional<FileUser> ParseProcStatusUser(const std::string& status);

class SourcePolicy {
 public:
  explicit SourcePolicy(SourceOrigin origin);

  // The source file of a code object named `filename`, open for reading; else an error
  // whose message is the same whether the file is absent or refused.
  Result<RegularFile> Open(const std::string& filename);

  size_t refused(SourceRefusal reason) const { return refused_[static_cast<size_t>(reason)]; }
  // One line for py-bt -v counting the refusals by reason ("source files not read: 2 not
  // named .py or .pyw, 1 on a pseudo file system"); nullopt where there were none.
  std::optional<std::string> RefusalNote() const;

 private:
  Result<RegularFile> Refuse(SourceRefusal reason, const std::string& filename);
  // `path` opened and checked; the user is checked only where `check_user`.
  Result<RegularFile> OpenChecked(const std::string& path, const std::string& filename,
                                  bool check_user);
  const std::optional<FileUser>& User();

  const SourceOrigin origin_;
  std::array<size_t, static_cast<size_t>(SourceRefusal::kCount)> refused_{};
  bool user_known_ = false;  // user_ is filled (read once per command)
  std::optional<FileUser> user_;
};

}  // namespace pyunwind
