// SourcePolicy: which local file a code object's file name (the target's choice) is read from,
// and which names and files are refused, over files in a temporary directory and real /proc
// and /sys paths.
#include "core/pysource/source_policy.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>

#include "core/base/limits.h"
#include "core/pysource/source_file.h"
#include "tests/temp_dir.h"

namespace pyunwind {
namespace {

using testing::TestTempPath;

std::string Write(const std::string& name, const std::string& text, mode_t mode = 0644) {
  const std::string path = TestTempPath(name);
  unlink(path.c_str());
  std::ofstream(path, std::ios::binary) << text;
  chmod(path.c_str(), mode);
  return path;
}

// The first line of what `policy` opens for `name`, or "refused/absent".
std::string FirstLine(SourcePolicy& policy, const std::string& name) {
  auto file = policy.Open(name);
  if (!file.ok()) {
    EXPECT_EQ(file.error().message, "'" + name + "' is not here, or not a file pyunwind reads");
    return "refused/absent";
  }
  auto lines = ReadSourceLines(*file, name, 1, 1);
  return lines.ok() && !lines->lines.empty() ? lines->lines[0] : "?";
}

SourceOrigin Core() { return SourceOrigin{}; }
SourceOrigin Live() { return SourceOrigin{static_cast<uint64_t>(getpid()), std::nullopt, {}}; }

TEST(SourcePolicy, OnlyPythonSourceNames) {
  SourcePolicy policy(Live());
  EXPECT_EQ(FirstLine(policy, "/proc/self/environ"), "refused/absent");
  EXPECT_EQ(FirstLine(policy, "/etc/shadow"), "refused/absent");
  EXPECT_EQ(FirstLine(policy, "x/.env"), "refused/absent");
  EXPECT_EQ(FirstLine(policy, Write("a.py.bak", "no")), "refused/absent");
  EXPECT_EQ(policy.refused(SourceRefusal::kNotPythonName), 4u);
  // CPython's names for code without a file are no refusal.
  EXPECT_EQ(FirstLine(policy, "<frozen importlib._bootstrap>"), "refused/absent");
  EXPECT_EQ(FirstLine(policy, "<string>"), "refused/absent");
  EXPECT_EQ(policy.refused(SourceRefusal::kNotPythonName), 4u);
  EXPECT_EQ(FirstLine(policy, Write("gui.pyw", "pyw = 1\n")), "pyw = 1");
  EXPECT_EQ(FirstLine(policy, Write("mod.py", "py = 1\n")), "py = 1");
}

// A relative name: never against the debugger's working directory; a live process's own.
TEST(SourcePolicy, RelativeNamesOnlyAgainstALiveProcesssDirectory) {
  const std::string dir = TestTempPath("cwd");
  mkdir(dir.c_str(), 0755);
  ASSERT_EQ(chdir(dir.c_str()), 0);
  Write("cwd/secret.py", "TOKEN = 'hunter2'\n");
  SourcePolicy core(Core());
  EXPECT_EQ(FirstLine(core, "secret.py"), "refused/absent");
  EXPECT_EQ(FirstLine(core, "./secret.py"), "refused/absent");
  EXPECT_EQ(core.refused(SourceRefusal::kRelativeName), 2u);
  // This test's process plays the live target: its cwd is /proc/PID/cwd.
  SourcePolicy live(Live());
  EXPECT_EQ(FirstLine(live, "secret.py"), "TOKEN = 'hunter2'");
  EXPECT_EQ(live.refused(SourceRefusal::kRelativeName), 0u);
}

TEST(SourcePolicy, AbsoluteNamesOfALiveProcessAsItSeesThem) {
  const std::string path = Write("live_abs.py", "seen = 1\n");
  SourcePolicy live(Live());
  EXPECT_EQ(FirstLine(live, path), "seen = 1");  // through /proc/PID/root
  SourcePolicy gone(SourceOrigin{0x7fffffff, std::nullopt, {}});  // no such process
  EXPECT_EQ(FirstLine(gone, path), "refused/absent");
}

TEST(SourcePolicy, PseudoFileSystemsAreRefusedAfterOpening) {
  for (const char* path : {"/proc/self/status", "/proc/self/environ", "/sys/kernel/uevent_seqnum"}) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;  // no /sys here
    EXPECT_EQ(FileSystemRefusal(fd), SourceRefusal::kPseudoFileSystem) << path;
    close(fd);
  }
  const int fd = open(Write("plain.py", "x\n").c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_EQ(FileSystemRefusal(fd), std::nullopt);
  close(fd);
  // A .py name that leads into /proc: symlinks are followed, the file reached is checked.
  const std::string link = TestTempPath("environ.py");
  unlink(link.c_str());
  ASSERT_EQ(symlink("/proc/self/environ", link.c_str()), 0);
  for (const SourceOrigin& origin : {Core(), Live()}) {
    SourcePolicy policy(origin);
    EXPECT_EQ(FirstLine(policy, link), "refused/absent");
    EXPECT_EQ(policy.refused(SourceRefusal::kPseudoFileSystem), 1u);
  }
}

TEST(SourcePolicy, OnlyRegularFilesOfBoundedSize) {
  const std::string fifo = TestTempPath("fifo.py");
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const std::string dir = TestTempPath("package.py");
  mkdir(dir.c_str(), 0755);
  const std::string huge = Write("huge.py", "first\n");
  ASSERT_EQ(truncate(huge.c_str(), static_cast<off_t>(kMaxSourceFileBytes) + 1), 0);
  SourcePolicy policy(Core());
  EXPECT_EQ(FirstLine(policy, fifo), "refused/absent");
  EXPECT_EQ(FirstLine(policy, dir), "refused/absent");
  EXPECT_EQ(FirstLine(policy, "/dev/null.py"), "refused/absent");  // absent: not counted
  EXPECT_EQ(policy.refused(SourceRefusal::kNotRegular), 2u);
  EXPECT_EQ(FirstLine(policy, huge), "refused/absent");
  EXPECT_EQ(policy.refused(SourceRefusal::kTooLarge), 1u);
  unlink(huge.c_str());
}

// Whose permission: the target's user where known, else only world-readable files.
TEST(SourcePolicy, OnlyWhatTheTargetsUserCouldRead) {
  const std::string secret = Write("private.py", "secret = 1\n", 0600);
  const std::string shared = Write("shared.py", "shared = 1\n", 0644);
  SourcePolicy unknown(Core());
  EXPECT_EQ(FirstLine(unknown, secret), "refused/absent");
  EXPECT_EQ(FirstLine(unknown, shared), "shared = 1");
  EXPECT_EQ(unknown.refused(SourceRefusal::kUserCannotRead), 1u);
  SourcePolicy owner(SourceOrigin{std::nullopt, FileUser{getuid(), {getgid()}}, {}});
  EXPECT_EQ(FirstLine(owner, secret), "secret = 1");
  SourcePolicy stranger(SourceOrigin{std::nullopt, FileUser{getuid() + 4242, {4242}}, {}});
  EXPECT_EQ(FirstLine(stranger, secret), "refused/absent");
  EXPECT_EQ(FirstLine(stranger, shared), "shared = 1");
}

TEST(SourcePolicy, PermissionBits) {
  struct stat st = {};
  st.st_uid = 1000;
  st.st_gid = 100;
  st.st_mode = S_IFREG | 0640;
  EXPECT_TRUE(UserMayRead(st, FileUser{0, {0}}));  // root reads anything
  EXPECT_TRUE(UserMayRead(st, FileUser{1000, {1000}}));
  EXPECT_TRUE(UserMayRead(st, FileUser{1001, {1001, 100}}));  // a supplementary group
  EXPECT_FALSE(UserMayRead(st, FileUser{1001, {1001}}));
  EXPECT_FALSE(UserMayRead(st, std::nullopt));
  st.st_mode = S_IFREG | 0044;  // the owner's own bits count for the owner
  EXPECT_FALSE(UserMayRead(st, FileUser{1000, {100}}));
  EXPECT_TRUE(UserMayRead(st, FileUser{1001, {100}}));
  EXPECT_TRUE(UserMayRead(st, std::nullopt));
}

TEST(SourcePolicy, ProcStatusUser) {
  const auto user = ParseProcStatusUser(
      "Name:\tpython3\nUid:\t1000\t0\t0\t1001\nGid:\t100\t100\t100\t101\nGroups:\t4 24 27 \n");
  ASSERT_TRUE(user);
  EXPECT_EQ(user->uid, 1001u);  // the fs uid: what the kernel checks files against
  EXPECT_EQ(user->gids, (std::vector<uint32_t>{101, 4, 24, 27}));
  EXPECT_FALSE(ParseProcStatusUser("Name:\tx\n"));
  EXPECT_FALSE(ParseProcStatusUser("Uid:\t1\t2\nGid:\t1\t2\t3\t4\n"));
  const auto self = ParseProcStatusUser(
      std::string(std::istreambuf_iterator<char>(std::ifstream("/proc/self/status").rdbuf()), {}));
  ASSERT_TRUE(self);
  EXPECT_EQ(self->uid, geteuid());
}

// --source-dir DIR: DIR/<base name>, only inside DIR once symlinks are resolved.
TEST(SourcePolicy, SourceDirsStayInside) {
  const std::string dir = TestTempPath("sources");
  const std::string outside = TestTempPath("outside");
  mkdir(dir.c_str(), 0755);
  mkdir(outside.c_str(), 0755);
  Write("sources/inside.py", "inside = 1\n", 0600);  // the analyst's: no user check
  Write("outside/secret.py", "secret = 1\n");
  const std::string escape = dir + "/escape.py";
  unlink(escape.c_str());
  ASSERT_EQ(symlink((outside + "/secret.py").c_str(), escape.c_str()), 0);
  const std::string alias = dir + "/alias.py";
  unlink(alias.c_str());
  ASSERT_EQ(symlink("inside.py", alias.c_str()), 0);
  SourcePolicy policy(SourceOrigin{std::nullopt, std::nullopt, {dir}});
  EXPECT_EQ(FirstLine(policy, "/opt/app/inside.py"), "inside = 1");
  EXPECT_EQ(FirstLine(policy, "/opt/app/alias.py"), "inside = 1");
  EXPECT_EQ(FirstLine(policy, "/opt/app/escape.py"), "refused/absent");
  EXPECT_EQ(policy.refused(SourceRefusal::kOutsideSourceDir), 1u);
  EXPECT_EQ(FirstLine(policy, "inside.py"), "inside = 1");  // a relative name's base name
  EXPECT_EQ(policy.RefusalNote(),
            "source files not read (docs/commands.md, \"Which files are read\"): 1 leading out of "
            "its --source-dir");
  EXPECT_EQ(SourcePolicy(Core()).RefusalNote(), std::nullopt);
}

}  // namespace
}  // namespace pyunwind
