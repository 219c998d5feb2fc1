// Commands over a one-frame 3.11 process image. py-list and py-frame: the source file is the
// one the code object names, which the target chose. A name that would drive a terminal is
// shown escaped; a FIFO is not read (it would block) and says why; a regular file is listed.
// And the short options docs/commands.md documents.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "core/commands/commands.h"
#include "tests/fake_process311.h"
#include "tests/temp_dir.h"

namespace pyunwind {
namespace {

using namespace testing::fake311;

constexpr uint64_t kThread = 1001;

// One thread (selected) running line 12 of `qualname` in `filename`.
class OneFrame : public Process {
 public:
  OneFrame(const std::string& filename, const std::string& qualname) {
    AddSymbols();
    AddSysDict();
    const Thread311 t = AddThread(kThread, 0x7f00aaaa0001);
    SetMainThread(t);
    const uint64_t code = Code(filename, "f", qualname, 10, LineTableBytes(10, {{2, 10}, {4, 12}}), 6);
    SetCurrentFrame(t, Frame(code, 3, 0));
  }
  CommandOutput Run(const std::string& command, const std::vector<std::string>& args = {}) {
    CommandContext context{target, kThread};
    return RunCommand(command, args, context);
  }
};

// Bytes a terminal acts on: C0 controls but '\n', and DEL.
bool HasRawControl(const std::string& text) {
  for (unsigned char c : text) {
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  }
  return false;
}

TEST(SourceCommands, PyListEscapesTheNamesTheTargetChose) {
  OneFrame p("\x1b]0;PWNED\x07\x1b[2J/evil.py", "q\r\nForged: line");
  const CommandOutput list = p.Run("py-list");
  ASSERT_FALSE(list.failed) << list.text;
  EXPECT_FALSE(HasRawControl(list.text)) << list.text;
  EXPECT_EQ(list.text,
            "The source of frame 0 (q\\r\\nForged: line, line 12) is not on this machine: "
            "'\\x1b]0;PWNED\\x07\\x1b[2J/evil.py' is not here, or not a file pyunwind reads\n");
  const CommandOutput frame = p.Run("py-frame");
  ASSERT_FALSE(frame.failed) << frame.text;
  EXPECT_FALSE(HasRawControl(frame.text)) << frame.text;
}

TEST(SourceCommands, AFifoIsNotReadAndSaysSo) {
  const std::string fifo = testing::TestTempPath("parked.py");
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  OneFrame p(fifo, "parked");
  const CommandOutput list = p.Run("py-list");
  EXPECT_FALSE(list.failed);
  // Said as for a file that is not there: what is refused is not told apart.
  EXPECT_EQ(list.text, "The source of frame 0 (parked, line 12) is not on this machine: '" + fifo +
                           "' is not here, or not a file pyunwind reads\n");
  const std::string missing = testing::TestTempPath("missing.py");
  EXPECT_EQ(OneFrame(missing, "parked").Run("py-list").text,
            "The source of frame 0 (parked, line 12) is not on this machine: '" + missing +
                "' is not here, or not a file pyunwind reads\n");
  // py-frame shows the frame, without a source line.
  const CommandOutput frame = p.Run("py-frame");
  ASSERT_FALSE(frame.failed) << frame.text;
  EXPECT_EQ(frame.text.find('\n'), frame.text.size() - 1) << frame.text;
  EXPECT_NE(frame.text.find("File \"" + fifo + "\", line 12, in parked"), std::string::npos)
      << frame.text;
  unlink(fifo.c_str());
}

TEST(SourceCommands, ARegularFileIsListedAroundTheLine) {
  const std::string path = testing::TestTempPath("listed.py");
  {
    std::ofstream out(path);
    for (int i = 1; i <= 20; ++i) out << "line_" << i << " = " << i << "\n";
  }
  OneFrame p(path, "listed");
  const CommandOutput list = p.Run("py-list");
  ASSERT_FALSE(list.failed) << list.text;
  EXPECT_NE(list.text.find(" >12    line_12 = 12\n"), std::string::npos) << list.text;
  EXPECT_NE(list.text.find("line_7 = 7\n"), std::string::npos) << list.text;
  EXPECT_NE(list.text.find("line_17 = 17\n"), std::string::npos) << list.text;
  EXPECT_EQ(list.text.find("line_6 = 6\n"), std::string::npos) << list.text;
  const CommandOutput frame = p.Run("py-frame");
  EXPECT_NE(frame.text.find("    line_12 = 12\n"), std::string::npos) << frame.text;
  // START: START to START+10, as CPython's py-list; START,END: that range.
  std::string want;
  for (int i = 3; i <= 13; ++i) {
    want += (i == 12 ? " >12" : (i < 10 ? "   " : "  ") + std::to_string(i)) + "    line_" +
            std::to_string(i) + " = " + std::to_string(i) + "\n";
  }
  EXPECT_EQ(p.Run("py-list", {"3"}).text, want);
  EXPECT_EQ(p.Run("py-list", {"3,5"}).text, "   3    line_3 = 3\n   4    line_4 = 4\n   5    line_5 = 5\n");
  EXPECT_EQ(p.Run("py-list", {"30,40"}).text, "'" + path + "' has no lines 30 to 40\n");
  unlink(path.c_str());
}

// --source-dir DIR (repeatable): the file's base name in each DIR in order, then its own path.
TEST(SourceCommands, SourceDirsInOrderThenTheOwnPath) {
  const std::string first = testing::TestTempPath("dir1");
  const std::string second = testing::TestTempPath("dir2");
  const std::string own = testing::TestTempPath("own");
  for (const std::string& dir : {first, second, own}) mkdir(dir.c_str(), 0700);
  auto write = [](const std::string& path, const std::string& text) {
    std::ofstream out(path);
    for (int i = 1; i <= 12; ++i) out << (i == 12 ? text : "pass") << "\n";
  };
  write(own + "/mod.py", "where = 'own path'");
  write(second + "/mod.py", "where = 'second dir'");
  OneFrame p(own + "/mod.py", "f");
  auto line = [&](const std::vector<std::string>& dirs) {
    std::vector<std::string> args = {"--all"};
    for (const std::string& dir : dirs) args.insert(args.end(), {"--source-dir", dir});
    const CommandOutput out = p.Run("py-bt", args);
    const size_t at = out.text.find("    where = ");
    return at == std::string::npos ? out.text : out.text.substr(at + 4, out.text.find('\n', at) - at - 4);
  };
  EXPECT_EQ(line({}), "where = 'own path'");
  EXPECT_EQ(line({first}), "where = 'own path'");  // not in dir1: its own path
  EXPECT_EQ(line({first, second}), "where = 'second dir'");
  write(first + "/mod.py", "where = 'first dir'");
  EXPECT_EQ(line({first, second}), "where = 'first dir'");
  EXPECT_EQ(line({second, first}), "where = 'second dir'");
}

// The target names files it must not get shown (source_policy.h): a relative name meant for
// the debugger's working directory, /proc/self/environ. No byte of them is shown, py-list says
// what it says of a missing file, and py-bt -v counts the refusals in one line.
TEST(SourceCommands, HostileFileNamesShowNothing) {
  const std::string dir = testing::TestTempPath("debugger_cwd");
  mkdir(dir.c_str(), 0755);
  ASSERT_EQ(chdir(dir.c_str()), 0);
  {
    std::ofstream out(dir + "/secret.py");
    for (int i = 1; i <= 12; ++i) out << "TOKEN_" << i << " = 'xyzzy-secret'\n";
  }
  for (const std::string& name : {std::string("secret.py"), std::string("/proc/self/environ")}) {
    SCOPED_TRACE(name);
    OneFrame p(name, "f");
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"--all"}, {"--all", "-v"}, {"--all", "--json", "--source"}}) {
      const CommandOutput out = p.Run("py-bt", args);
      ASSERT_FALSE(out.failed) << out.text;
      EXPECT_EQ(out.text.find("xyzzy"), std::string::npos) << out.text;
      EXPECT_EQ(out.text.find("PATH="), std::string::npos) << out.text;
    }
    const CommandOutput list = p.Run("py-list");
    EXPECT_EQ(list.text, "The source of frame 0 (f, line 12) is not on this machine: '" + name +
                             "' is not here, or not a file pyunwind reads\n");
    const std::string verbose = p.Run("py-bt", {"--all", "-v"}).text;
    const std::string note =
        "source files not read (docs/commands.md, \"Which files are read\"): 1 " +
        std::string(name == "secret.py" ? "a relative name and no live process to resolve it in"
                                         : "not named *.py or *.pyw");
    EXPECT_NE(verbose.find(note + "\n"), std::string::npos) << verbose;
    EXPECT_EQ(p.Run("py-bt", {"--all"}).text.find("source files not read"), std::string::npos);
  }
  // A live process on this host (this test's own, whose working directory is `dir`): its
  // relative names are its own directory's.
  OneFrame live("secret.py", "f");
  live.target.live_pid = static_cast<uint64_t>(getpid());
  EXPECT_NE(live.Run("py-bt", {"--all"}).text.find("TOKEN_12 = 'xyzzy-secret'"), std::string::npos);
  EXPECT_NE(live.Run("py-list").text.find(">12    TOKEN_12 = 'xyzzy-secret'"), std::string::npos);
}

// py-print's bounds, as its help and docs/limits.md give them.
TEST(Commands, PyPrintBounds) {
  OneFrame p("/app/print.py", "f");
  EXPECT_EQ(p.Run("py-print", {"x", "--max-chars", "1048577"}).text,
            "pyunwind: py-print: --max-chars wants a number from 1 to 1048576, not '1048577'\n");
  EXPECT_EQ(p.Run("py-print", {"x", "--depth", "65"}).text,
            "pyunwind: py-print: --depth wants a number from 1 to 64, not '65'\n");
  // At the bounds the options are taken: the command goes on to look for the name.
  const CommandOutput at = p.Run("py-print", {"x", "--max-chars", "1048576", "--depth", "64"});
  EXPECT_EQ(at.text.find("wants a number"), std::string::npos) << at.text;
}

TEST(Commands, ShortOptionsAreTheLongOnes) {
  OneFrame p("/app/short.py", "short");
  const CommandOutput all = p.Run("py-bt", {"--all", "--verbose", "--no-source"});
  ASSERT_FALSE(all.failed) << all.text;
  EXPECT_NE(all.text.find("File \"/app/short.py\", line 12, in short"), std::string::npos)
      << all.text;
  EXPECT_EQ(p.Run("py-bt", {"-a", "-v", "--no-source"}).text, all.text);
}

}  // namespace
}  // namespace pyunwind
