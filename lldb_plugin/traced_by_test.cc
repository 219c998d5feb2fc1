// TracedByChildOf on real processes: a child of this test that traces its own child (as
// LLDB's lldb-server traces the process it debugs), and processes that are not so traced.
#include "lldb_plugin/traced_by.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

namespace pyunwind_lldb {
namespace {

// A child that forks a grandchild, traces it (PTRACE_TRACEME in the grandchild) and waits;
// both are killed when the test ends.
class TracingChild {
 public:
  TracingChild() {
    int fds[2];
    if (pipe(fds) != 0) return;
    tracer_ = fork();
    if (tracer_ == 0) {
      close(fds[0]);
      const pid_t traced = fork();
      if (traced == 0) {
        ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
        raise(SIGSTOP);  // stops for the tracer, which leaves it stopped
        _exit(0);
      }
      int status = 0;
      waitpid(traced, &status, 0);  // stopped: traced from here on
      const ssize_t written = write(fds[1], &traced, sizeof traced);
      (void)written;
      pause();
      _exit(0);
    }
    close(fds[1]);
    if (read(fds[0], &traced_, sizeof traced_) != sizeof traced_) traced_ = -1;
    close(fds[0]);
  }
  ~TracingChild() {
    if (traced_ > 0) kill(traced_, SIGKILL);
    if (tracer_ > 0) {
      kill(tracer_, SIGKILL);
      waitpid(tracer_, nullptr, 0);
    }
  }
  pid_t tracer() const { return tracer_; }
  pid_t traced() const { return traced_; }

 private:
  pid_t tracer_ = -1;
  pid_t traced_ = -1;
};

TEST(ProcStatusNumber, ReadsThisProcess) {
  EXPECT_EQ(ProcStatusNumber(getpid(), "PPid"), static_cast<uint64_t>(getppid()));
  EXPECT_EQ(ProcStatusNumber(getpid(), "Threads"), 1u);
  EXPECT_FALSE(ProcStatusNumber(getpid(), "NoSuchField").has_value());
  EXPECT_FALSE(ProcStatusNumber(getpid(), "Name").has_value());  // not a number
}

TEST(TracedByChildOf, TheGrandchildTracedByAChild) {
  TracingChild child;
  ASSERT_GT(child.traced(), 0) << "the tracing child did not start";
  EXPECT_TRUE(TracedByChildOf(child.traced(), getpid(), 1));
  // Another thread count: not the process the debugger lists.
  EXPECT_FALSE(TracedByChildOf(child.traced(), getpid(), 2));
  // Traced by a child of another process.
  EXPECT_FALSE(TracedByChildOf(child.traced(), child.tracer(), 1));
  // Not traced at all.
  EXPECT_FALSE(TracedByChildOf(child.tracer(), getppid(), 1));
  EXPECT_FALSE(TracedByChildOf(getpid(), getppid(), 1));
}

TEST(TracedByChildOf, NoSuchProcess) {
  EXPECT_FALSE(TracedByChildOf(0, getpid(), 1));
  EXPECT_FALSE(ProcStatusNumber(uint64_t{1} << 40, "PPid").has_value());
}

}  // namespace
}  // namespace pyunwind_lldb
