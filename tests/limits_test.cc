// The bounds of core/base/limits.h at and just over each cap, over a CPython
// 3.11 process built in memory (tests/fake_process311.h): what the "Limits"
// table of docs/limits.md says each cut prints. The big caps count visits, so one
// code object (or one name, one value) is shared by every frame (local).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "core/asyncio/asyncio_layout.h"
#include "core/asyncio/task_discovery.h"
#include "core/asyncio/task_reader.h"
#include "core/base/limits.h"
#include "core/commands/commands.h"
#include "core/commands/native.h"
#include "core/heap/container_referrers.h"
#include "core/heap/heap_census.h"
#include "core/objects/type_flags.h"
#include "core/objects/values.h"
#include "core/target/forwarding_target.h"
#include "core/target/memory.h"
#include "core/walk/locals.h"
#include "core/objects/remote_collections.h"
#include "core/pysource/source_file.h"
#include "tests/fake_mimalloc.h"
#include "tests/fake_process311.h"
#include "tests/temp_dir.h"

namespace pyunwind {
namespace {

using Json = nlohmann::json;
using namespace testing::fake311;
using testing::FakeMimallocHeaps;

class Limits : public Process {
 public:
  explicit Limits(uint64_t heap_size = 16 << 20) : Process(heap_size) { AddSymbols(); }

  CommandOutput Run(const std::string& command, std::vector<std::string> args) {
    CommandContext context{target, uint64_t{1}, false, std::nullopt, std::nullopt};  // thread 1 selected
    return RunCommand(command, args, context);
  }
  Json RunJson(std::vector<std::string> args) {
    CommandOutput out = Run("py-bt", std::move(args));
    EXPECT_FALSE(out.failed) << out.text.substr(0, 500);
    return out.failed ? Json::object() : Json::parse(out.text);
  }
  uint64_t OneLineCode() { return Code("/limits.py", "f", "f", 1, LineTableBytes(1, {{2, 1}}), 2); }

  // A thread whose stack is `frames` frames of one code object.
  Thread311 ThreadWithFrames(size_t frames, uint64_t native_id = 1) {
    const Thread311 thread = AddThread(native_id, 0x7f0000000000 + native_id);
    SetMainThread(thread);
    const uint64_t code = OneLineCode();
    uint64_t chain = 0;
    for (size_t i = 0; i < frames; ++i) chain = Frame(code, 1, chain);
    SetCurrentFrame(thread, chain);
    return thread;
  }
};

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

const Json& Warnings(const Json& doc) { return doc.at("warnings"); }

bool HasWarning(const Json& doc, const std::string& warning) {
  for (const Json& w : Warnings(doc)) {
    if (w == warning) return true;
  }
  return false;
}

// ------------------------------------------------------------ interpreters

// `extra` interpreters linked in front of the main one, each with no thread.
void AddInterpreters(Limits& p, size_t extra) {
  for (size_t i = 0; i < extra; ++i) {
    const uint64_t interp = p.heap.Alloc(p.layout.interp.size);
    p.target.Put<int64_t>(interp + p.layout.interp.id, 1 + i);
    p.target.PutU64(interp + p.layout.interp.runtime, p.runtime);
    p.target.PutU64(interp + p.layout.interp.next,
                    *p.Read(p.runtime + p.layout.runtime.interpreters_head));
    p.target.PutU64(p.runtime + p.layout.runtime.interpreters_head, interp);
  }
}

TEST(Limits, InterpretersAtAndOverTheCap) {
  const std::string warning =
      "more than " + std::to_string(kMaxInterpreters) + " interpreters: the rest are not shown...truncated";
  {
    Limits p(64 << 20);
    p.ThreadWithFrames(1);
    AddInterpreters(p, kMaxInterpreters - 1);
    const Json doc = p.RunJson({"--all", "--json"});
    EXPECT_EQ(doc.at("interpreters").size(), kMaxInterpreters);
    EXPECT_FALSE(HasWarning(doc, warning)) << Warnings(doc);
  }
  Limits p(64 << 20);
  p.ThreadWithFrames(1);
  AddInterpreters(p, kMaxInterpreters);
  const Json doc = p.RunJson({"--all", "--json"});
  EXPECT_EQ(doc.at("interpreters").size(), kMaxInterpreters);
  EXPECT_TRUE(HasWarning(doc, warning)) << Warnings(doc);
  EXPECT_NE(p.Run("py-bt", {"--all"}).text.find(warning), std::string::npos);
}

// ------------------------------------------------------------ threads

TEST(Limits, ThreadsAtAndOverTheCap) {
  const std::string warning =
      "more than " + std::to_string(kMaxThreadsPerInterpreter) + " threads: the rest are not shown...truncated";
  for (size_t threads : {kMaxThreadsPerInterpreter, kMaxThreadsPerInterpreter + 1}) {
    SCOPED_TRACE(threads);
    Limits p(32 << 20);
    // One shared one-frame stack.
    const uint64_t frame = p.Frame(p.OneLineCode(), 1, 0);
    for (size_t i = 0; i < threads; ++i) p.SetCurrentFrame(p.AddThread(1 + i, 0x7f0000000000 + i), frame);
    const Json doc = p.RunJson({"--all", "--json"});
    EXPECT_EQ(doc.at("interpreters").at(0).at("threads").size(), kMaxThreadsPerInterpreter);
    EXPECT_EQ(HasWarning(doc, warning), threads > kMaxThreadsPerInterpreter) << Warnings(doc);
  }
}

// ------------------------------------------------------------ frames

TEST(Limits, FramesAtAndOverTheCap) {
  const std::string mark = "...truncated: more than " + std::to_string(kMaxFramesPerThread) +
                           " frames: the rest are not shown";
  for (size_t frames : {kMaxFramesPerThread, kMaxFramesPerThread + 1}) {
    SCOPED_TRACE(frames);
    Limits p(32 << 20);
    p.ThreadWithFrames(frames);
    const std::string text = p.Run("py-bt", {"--all"}).text;
    EXPECT_EQ(Count(text, "File \"/limits.py\", line 1, in f"), kMaxFramesPerThread);
    EXPECT_EQ(text.find(mark) != std::string::npos, frames > kMaxFramesPerThread)
        << text.substr(text.size() - 300);
    const Json thread = p.RunJson({"--all", "--json"}).at("interpreters").at(0).at("threads").at(0);
    EXPECT_EQ(thread.at("frames").size(), kMaxFramesPerThread);
    if (frames > kMaxFramesPerThread) {
      EXPECT_EQ(thread.at("truncated"),
                "more than " + std::to_string(kMaxFramesPerThread) + " frames: the rest are not shown");
    } else {
      EXPECT_FALSE(thread.contains("truncated") && !thread.at("truncated").is_null()) << thread.at("truncated");
    }
  }
  // --limit N: the frames past N are counted.
  Limits p;
  p.ThreadWithFrames(10);
  const std::string text = p.Run("py-bt", {"--all", "--limit", "3"}).text;
  EXPECT_EQ(Count(text, "in f\n"), 3u) << text;
  EXPECT_NE(text.find("  ...truncated: 7 more frames (--limit 3)\n"), std::string::npos)
      << text;
}

// ------------------------------------------------------------ location tables

TEST(Limits, LocationTableOverOneMebibyteLeavesTheLineUnknown) {
  for (size_t bytes : {kMaxLocationTableBytes, kMaxLocationTableBytes + 1}) {
    SCOPED_TRACE(bytes);
    Limits p(8 << 20);
    // One entry giving line 1 for the running unit, then "no location" entries to fill.
    std::string table = LineTableBytes(1, {{2, 1}});
    table.resize(bytes, static_cast<char>(0x80 | (15 << 3)));
    const uint64_t code = p.Code("/limits.py", "f", "f", 1, table, 2);
    const Thread311 thread = p.AddThread(1, 0x7f0000000001);
    p.SetMainThread(thread);
    p.SetCurrentFrame(thread, p.Frame(code, 1, 0));
    const std::string text = p.Run("py-bt", {"--all"}).text;
    const bool over = bytes > kMaxLocationTableBytes;
    EXPECT_NE(text.find(over ? "File \"/limits.py\", line ?, in f" : "File \"/limits.py\", line 1, in f"),
              std::string::npos)
        << text;
  }
}

// ------------------------------------------------------------ locals

// A frame of one code object with `count` locals, every one bound to the int 7
// and named by one shared str "v" (except the first, "first", and the last, "last").
std::string LocalsOfAFrameWith(Limits& p, size_t count, std::vector<std::string> args) {
  const Layout& l = p.layout;
  const uint64_t code = p.OneLineCode();
  const uint64_t shared = p.objects.Str("v");
  std::vector<uint64_t> names(count, shared);
  names.front() = p.objects.Str("first");
  names.back() = p.objects.Str("last");
  const uint64_t tuple = p.heap.Alloc(l.tuple.ob_item + 8 * count + 8);
  p.target.Put<int64_t>(tuple + l.tuple.ob_size, count);
  for (size_t i = 0; i < count; ++i) p.target.PutU64(tuple + l.tuple.ob_item + 8 * i, names[i]);
  p.target.PutU64(code + l.code.localsplusnames, tuple);
  p.target.PutU64(code + l.code.localspluskinds, p.objects.Bytes(std::string(count, '\x20')));
  const uint64_t seven = p.objects.Int(7);
  const uint64_t long_subclass = 1ull << 24;  // Py_TPFLAGS_LONG_SUBCLASS: repr as an int
  uint64_t int_type = 0;
  p.target.ReadMemory(seven + l.object.ob_type, &int_type, 8);
  p.target.PutU64(int_type + l.type.tp_flags, long_subclass);
  const uint64_t frame = p.heap.Alloc(l.frame.localsplus + 8 * count);
  p.target.PutU64(frame + l.frame.executable, code);
  p.target.PutU64(frame + l.frame.instr_ptr, code + l.code.code_adaptive + 2);
  for (size_t i = 0; i < count; ++i) p.target.PutU64(frame + l.frame.localsplus + 8 * i, seven);
  const Thread311 thread = p.AddThread(1, 0x7f0000000001);
  p.SetMainThread(thread);
  p.SetCurrentFrame(thread, frame);
  const CommandOutput out = p.Run(args.front(), {args.begin() + 1, args.end()});
  EXPECT_FALSE(out.failed) << out.text;
  return out.text;
}

TEST(Limits, LocalsPerFrameAtAndOverTheCap) {
  const std::string mark = std::to_string(kMaxLocalsPerFrame) + " are)...truncated";
  {
    Limits p;
    const std::string text = LocalsOfAFrameWith(p, kMaxLocalsPerFrame, {"py-bt", "--all", "--locals"});
    EXPECT_EQ(Count(text, "    v = 7\n"), kMaxLocalsPerFrame - 2);
    EXPECT_NE(text.find("    first = 7\n"), std::string::npos);
    EXPECT_NE(text.find("    last = 7\n"), std::string::npos);
    EXPECT_EQ(text.find("not shown"), std::string::npos);
  }
  Limits p;
  const std::string text =
      LocalsOfAFrameWith(p, kMaxLocalsPerFrame + 5, {"py-bt", "--all", "--locals"});
  EXPECT_NE(text.find("    first = 7\n"), std::string::npos);
  EXPECT_EQ(Count(text, "    v = 7\n"), kMaxLocalsPerFrame - 1);
  EXPECT_EQ(text.find("last"), std::string::npos);
  EXPECT_NE(text.find("    ... 5 more locals not shown (the first " + mark), std::string::npos)
      << text.substr(text.size() - std::min<size_t>(text.size(), 300));

  const Json frame = Json::parse(p.Run("py-bt", {"--all", "--locals", "--json"}).text)
                         .at("interpreters").at(0).at("threads").at(0).at("frames").at(0);
  EXPECT_EQ(frame.at("locals_not_shown"), 5);
  EXPECT_EQ(frame.at("locals").at("first").at("repr"), "7");
  EXPECT_FALSE(frame.contains("locals_error"));

  const std::string locals = p.Run("py-locals", {}).text;
  EXPECT_NE(locals.find("  ... 5 more locals not shown (the first " + mark), std::string::npos)
      << locals.substr(locals.size() - std::min<size_t>(locals.size(), 300));
  EXPECT_EQ(Json::parse(p.Run("py-locals", {"--json"}).text).at("locals_not_shown"), 5);
  const CommandOutput missing = p.Run("py-print", {"last"});
  EXPECT_TRUE(missing.failed);
  EXPECT_NE(missing.text.find("(5 more locals were not read)"), std::string::npos) << missing.text;
}


// ------------------------------------------------------------ output

// A thread of `frames` frames of one code object whose qualified name is `name_size`
// characters: a few KB of target memory that prints frames x name_size bytes.
uint64_t ThreadOfLongNames(Limits& p, size_t frames, size_t name_size) {
  const Thread311 thread = p.AddThread(1, 0x7f0000000001);
  p.SetMainThread(thread);
  const std::string name(name_size, 'n');
  const uint64_t code = p.Code("/limits.py", name, name, 1, LineTableBytes(1, {{2, 1}}), 2);
  uint64_t chain = 0;
  for (size_t i = 0; i < frames; ++i) chain = p.Frame(code, 1, chain);
  p.SetCurrentFrame(thread, chain);
  return chain;
}

struct Printed {
  std::string text;  // the pieces handed over, then the text returned
  bool failed = false;
};

// `args` run under `limit`, reading through `through` (default: the process itself).
Printed RunLimited(Limits& p, const std::vector<std::string>& args, OutputLimit limit,
                   bool pieces = false, Target* through = nullptr) {
  CommandContext context{through ? *through : p.target, uint64_t{1}, false, std::nullopt,
                         std::nullopt};
  context.output_limit = limit;
  Printed printed;
  if (pieces) {
    context.write_output = [&printed](std::string_view piece) { printed.text += piece; };
    context.output_printed_meanwhile = true;
  }
  CommandOutput out = RunCommand(args.front(), {args.begin() + 1, args.end()}, context);
  printed.text += out.text;
  printed.failed = out.failed;
  return printed;
}

TEST(Limits, OutputBytesOfOnePyBt) {
  // 2,000 frames of 4,000-character names: about 8 MB of text, 1 MiB allowed.
  const OutputLimit limit{1 << 20, kMaxOutputLinesPerCommand};
  const std::string mark = "  ...truncated: the output budget of one command ran out (more than 1048576 bytes)\n";
  const std::string warning = "warning: the output budget of one command ran out (more than 1048576 bytes): "
                              "the rest is not shown...truncated\n";
  for (bool pieces : {false, true}) {
    SCOPED_TRACE(pieces);
    Limits p(32 << 20);
    ThreadOfLongNames(p, 2000, 4000);
    const Printed out = RunLimited(p, {"py-bt", "--all"}, limit, pieces);
    ASSERT_FALSE(out.failed) << out.text.substr(0, 300);
    EXPECT_LE(out.text.size(), limit.bytes + 1024);
    EXPECT_GT(out.text.size(), limit.bytes - 8192);
    EXPECT_EQ(Count(out.text, mark), 1u) << out.text.substr(out.text.size() - 500);
    EXPECT_EQ(Count(out.text, warning), 1u);
    EXPECT_EQ(out.text.find("...truncated: more than"), std::string::npos);
  }
  // Under the default bound, the same stack is whole.
  Limits p(32 << 20);
  ThreadOfLongNames(p, 2000, 4000);
  const std::string whole = p.Run("py-bt", {"--all"}).text;
  EXPECT_GT(whole.size(), 8'000'000u);
  EXPECT_EQ(whole.find("output budget"), std::string::npos);
}

TEST(Limits, OutputLinesOfOnePyBt) {
  const OutputLimit limit{kMaxOutputBytesPerCommand, 100};
  Limits p;
  p.ThreadWithFrames(1000);
  const Printed out = RunLimited(p, {"py-bt", "--all", "--no-source"}, limit);
  // The title and "Traceback" line, 98 frames, the mark and the warning.
  EXPECT_EQ(Count(out.text, "File \"/limits.py\", line 1, in f\n"), 98u) << out.text;
  EXPECT_NE(out.text.find("  ...truncated: the output budget of one command ran out (more than 100 lines)\n"),
            std::string::npos) << out.text;
  EXPECT_LE(Count(out.text, "\n"), 102u);
}

TEST(Limits, OutputBytesOfOnePyBtJsonStayOneDocument) {
  const OutputLimit limit{1 << 20, kMaxOutputLinesPerCommand};
  const std::string reason = "the output budget of one command ran out (more than 1048576 bytes): "
                             "the rest is not shown...truncated";
  Limits p(32 << 20);
  const uint64_t chain = ThreadOfLongNames(p, 2000, 4000);
  // Three threads sharing the stack: the first is cut, the others left out.
  for (uint64_t id : {2, 3}) p.SetCurrentFrame(p.AddThread(id, 0x7f0000000000 + id), chain);
  const Printed out = RunLimited(p, {"py-bt", "--all", "--json"}, limit);
  ASSERT_FALSE(out.failed);
  EXPECT_LE(out.text.size(), limit.bytes + 1024);
  const Json doc = Json::parse(out.text);  // throws (fails) if the document was cut mid-way
  EXPECT_TRUE(HasWarning(doc, reason)) << doc.at("warnings");
  size_t frames = 0;
  bool marked = false;
  for (const Json& thread : doc.at("interpreters").at(0).at("threads")) {
    frames += thread.at("frames").size();
    marked = marked || (thread.contains("truncated") && thread.at("truncated") == reason);
  }
  EXPECT_TRUE(marked);
  EXPECT_GT(frames, 100u);
  EXPECT_LT(frames, 2000u);
}

// py-bt --group --json: the groups repeat the frames the threads hold, and stop at the output
// budget like them: the group that passes it is left out, the document stays whole.
TEST(Limits, OutputOfPyBtGroupsJsonStaysOneDocument) {
  Limits p(32 << 20);
  ThreadOfLongNames(p, 100, 1000);  // thread 1; threads 2-4 each run a code of its own
  for (uint64_t id : {2, 3, 4}) {
    const std::string name(1000, static_cast<char>('a' + id));
    const uint64_t code = p.Code("/limits.py", name, name, 1, LineTableBytes(1, {{2, 1}}), 2);
    uint64_t chain = 0;
    for (size_t i = 0; i < 100; ++i) chain = p.Frame(code, 1, chain);
    p.SetCurrentFrame(p.AddThread(id, 0x7f0000000000 + id), chain);
  }
  const Json whole = Json::parse(p.Run("py-bt", {"--all", "--group", "--json"}).text);
  const size_t whole_size = whole.dump().size();
  ASSERT_EQ(whole.at("interpreters").at(0).at("groups").size(), 4u);
  // Room for the threads and about two of the four groups.
  const OutputLimit limit{whole_size * 3 / 4, kMaxOutputLinesPerCommand};
  const Printed out = RunLimited(p, {"py-bt", "--all", "--group", "--json"}, limit);
  ASSERT_FALSE(out.failed);
  const Json doc = Json::parse(out.text);  // throws (fails) if the document was cut mid-way
  const Json& interp = doc.at("interpreters").at(0);
  EXPECT_EQ(interp.at("threads").size(), 4u);
  const size_t groups = interp.at("groups").size();
  EXPECT_GT(groups, 0u);
  EXPECT_LT(groups, 4u);
  for (const Json& group : interp.at("groups")) EXPECT_EQ(group.at("frames").size(), 100u);
  EXPECT_TRUE(HasWarning(doc, "the output budget of one command ran out (more than " +
                                  std::to_string(limit.bytes) + " bytes): the rest is not "
                                  "shown...truncated"))
      << doc.at("warnings");
}

// py-waits stops adding waiters at the output budget: the JSON stays one document that counts
// the rest (waits_not_shown) and says which bound ran out; the text says how many are left out.
TEST(Limits, OutputOfPyWaitsStaysWithinTheBudget) {
  const OutputLimit limit{2048, kMaxOutputLinesPerCommand};
  Limits p;
  const uint64_t chain = ThreadOfLongNames(p, 1, 10);
  for (uint64_t id = 2; id <= 200; ++id) p.SetCurrentFrame(p.AddThread(id, 0x7f0000000000 + id), chain);
  const Printed json = RunLimited(p, {"py-waits", "--json"}, limit);
  ASSERT_FALSE(json.failed) << json.text;
  EXPECT_LE(json.text.size(), limit.bytes + 1024);
  const Json doc = Json::parse(json.text);  // throws (fails) if the document was cut mid-way
  EXPECT_GT(doc.at("waits_not_shown").get<size_t>(), 0u);
  EXPECT_GT(doc.at("waits").size(), 0u);
  EXPECT_EQ(doc.at("waits").size() + doc.at("waits_not_shown").get<size_t>(), 200u);
  const std::string reason = std::to_string(doc.at("waits_not_shown").get<size_t>()) +
                             " waits not shown: more than 2048 bytes";
  EXPECT_TRUE(HasWarning(doc, reason)) << doc.at("warnings");
  const Printed text = RunLimited(p, {"py-waits"}, limit);
  ASSERT_FALSE(text.failed) << text.text;
  EXPECT_EQ(Count(text.text, " more waits not shown (more than 2048 bytes)\n"), 1u) << text.text;
  EXPECT_LE(text.text.size(), limit.bytes + 1024);
  // Under the default bound, every thread is there.
  EXPECT_EQ(Json::parse(p.Run("py-waits", {"--json"}).text).at("waits").size(), 200u);
}

// The string py-bt makes its text or JSON in is sized for what the output budget lets it hold,
// not for the whole stack: for three threads of 2,000 frames of 4,000-character names, 48 MB
// was reserved and faulted in for 1 MiB of output.
TEST(Limits, OutputOfOnePyBtHoldsNoMoreMemoryThanItsBudget) {
  const OutputLimit limit{1 << 20, kMaxOutputLinesPerCommand};
  Limits p(32 << 20);
  const uint64_t chain = ThreadOfLongNames(p, 2000, 4000);
  for (uint64_t id : {2, 3}) p.SetCurrentFrame(p.AddThread(id, 0x7f0000000000 + id), chain);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--all", "--json"}, std::vector<std::string>{"--all"}}) {
    SCOPED_TRACE(args.back());
    CommandContext context{p.target, uint64_t{1}, false, std::nullopt, std::nullopt};
    context.output_limit = limit;
    const CommandOutput out = RunCommand("py-bt", args, context);
    ASSERT_FALSE(out.failed) << out.text.substr(0, 300);
    EXPECT_NE(out.text.find("the output budget of one command ran out"), std::string::npos);
    EXPECT_LT(out.text.capacity(), 2 * limit.bytes) << out.text.size();
  }
}

// A command whose output is not cut where it is made (py-locals) is cut at a line end where
// it is returned.
TEST(Limits, OutputOfAnyCommandIsCutWhereItIsReturned) {
  Limits p;
  LocalsOfAFrameWith(p, kMaxLocalsPerFrame, {"py-bt", "--all"});
  // The limit and the room left for the warnings and stats after a cut (64 lines here).
  const Printed out = RunLimited(p, {"py-locals"}, {kMaxOutputBytesPerCommand, 1});
  EXPECT_EQ(Count(out.text, "\n"), 65u + 2);
  EXPECT_NE(out.text.find("\n...truncated\nwarning: the output budget of one command ran out "
                          "(more than 1 lines): the rest is not shown...truncated\n"),
            std::string::npos)
      << out.text.substr(0, 300);
}

// Notes which of some addresses (one per frame) a read of the target covered.
class ReadsNoted : public ForwardingTarget {
 public:
  ReadsNoted(Target* inner, std::vector<uint64_t> watched)
      : ForwardingTarget(inner), watched_(std::move(watched)), read_(watched_.size()) {}
  bool ReadMemory(uint64_t address, void* out, size_t size) override {
    for (size_t i = 0; i < watched_.size(); ++i) {
      if (watched_[i] >= address && watched_[i] - address < size) read_[i] = true;
    }
    return ForwardingTarget::ReadMemory(address, out, size);
  }
  size_t Read() const { return static_cast<size_t>(std::count(read_.begin(), read_.end(), true)); }

 private:
  const std::vector<uint64_t> watched_;
  std::vector<bool> read_;
};

// A thread of `frames` frames of one code object with `locals` locals, named by strs of
// `name_size` characters (a frame's locals print locals x name_size bytes). Each
// frame's locals hold an int of its own, far from the others' (no fetch of the target reads
// two); returns those ints' addresses, frame by frame.
std::vector<uint64_t> ThreadOfWideFrames(Limits& p, size_t frames, size_t locals,
                                         size_t name_size) {
  const Layout& l = p.layout;
  const uint64_t code = p.OneLineCode();
  const uint64_t tuple = p.heap.Alloc(l.tuple.ob_item + 8 * locals + 8);
  p.target.Put<int64_t>(tuple + l.tuple.ob_size, locals);
  for (size_t i = 0; i < locals; ++i) {
    const std::string name = fmt::format("v{:04}", i) + std::string(name_size - 5, 'v');
    p.target.PutU64(tuple + l.tuple.ob_item + 8 * i, p.objects.Str(name));
  }
  p.target.PutU64(code + l.code.localsplusnames, tuple);
  p.target.PutU64(code + l.code.localspluskinds, p.objects.Bytes(std::string(locals, '\x20')));
  std::vector<uint64_t> values;
  uint64_t chain = 0;
  for (size_t f = 0; f < frames; ++f) {
    const uint64_t gap = RemoteMemory::kMaxPagesPerFetch * RemoteMemory::kPageSize;
    p.heap.Alloc(gap);
    values.push_back(p.objects.Int(static_cast<int64_t>(f)));
    p.heap.Alloc(gap);
    const uint64_t frame = p.heap.Alloc(l.frame.localsplus + 8 * locals);
    p.target.PutU64(frame + l.frame.executable, code);
    p.target.PutU64(frame + l.frame.instr_ptr, code + l.code.code_adaptive + 2);
    p.target.PutU64(frame + l.frame.previous, chain);
    for (size_t i = 0; i < locals; ++i) p.target.PutU64(frame + l.frame.localsplus + 8 * i, values.back());
    chain = frame;
  }
  const Thread311 thread = p.AddThread(1, 0x7f0000000001);
  p.SetMainThread(thread);
  p.SetCurrentFrame(thread, chain);
  std::reverse(values.begin(), values.end());  // innermost (shown) first
  return values;
}

// py-bt --locals reads a frame's locals just before it shows the frame: once the output
// budget is spent, no further frame's locals are read. 64 frames of 128 locals of
// 4,000-character names (about 0.5 MB of text each) under a 2 MiB limit: the frames shown,
// and at most the one that no longer fitted, are read. Checked to fail when py-bt read every
// frame's locals before printing (all 64 read).
TEST(Limits, LocalsAreReadOnlyForTheFramesTheOutputBudgetShows) {
  constexpr size_t kFrames = 64;
  const OutputLimit limit{2 << 20, kMaxOutputLinesPerCommand};
  const std::string frame_line = "File \"/limits.py\", line 1, in f\n";
  for (bool json : {false, true}) {
    SCOPED_TRACE(json);
    std::vector<std::string> args = {"py-bt", "--all", "--locals", "--no-source"};
    if (json) args.push_back("--json");
    Limits p(32 << 20);
    const std::vector<uint64_t> values = ThreadOfWideFrames(p, kFrames, 128, 4000);
    ReadsNoted limited(&p.target, values);
    const Printed out = RunLimited(p, args, limit, /*pieces=*/false, &limited);
    ASSERT_FALSE(out.failed) << out.text.substr(0, 300);
    size_t shown = 0;
    if (json) {
      const Json doc = Json::parse(out.text);  // whole, though cut
      ASSERT_TRUE(doc.at("interpreters").at(0).at("threads").at(0).contains("truncated"))
          << out.text.substr(out.text.size() - 600);
      shown = doc.at("interpreters").at(0).at("threads").at(0).at("frames").size();
      EXPECT_EQ(doc.at("interpreters").at(0).at("threads").at(0).at("truncated"),
                "the output budget of one command ran out (more than 2097152 bytes): the rest is "
                "not shown...truncated");
    } else {
      shown = Count(out.text, frame_line);
      EXPECT_NE(out.text.find("  ...truncated: the output budget of one command ran out"),
                std::string::npos);
    }
    EXPECT_GE(shown, 2u);
    EXPECT_LE(shown, 5u);
    EXPECT_GE(limited.Read(), shown);
    EXPECT_LE(limited.Read(), shown + 1);

    // Under the default budget every frame is shown, so every frame's locals are read.
    ReadsNoted whole(&p.target, values);
    const Printed all = RunLimited(p, args, OutputLimit{}, false, &whole);
    EXPECT_EQ(whole.Read(), kFrames);
    EXPECT_EQ(all.text.find("output budget"), std::string::npos);
  }
}

// GDB's bt: one eval-loop frame runs the whole chain (3.11+); its line names the first
// kMaxPythonFramesPerNativeFrame, each cut at kMaxNameInNativeFrame characters.
class WithNativeFrames : public ForwardingTarget {
 public:
  using ForwardingTarget::ForwardingTarget;
  std::vector<NativeFrame> NativeFrames(uint64_t) override {
    return {{0x10, "clock_nanosleep", "libc.so.6"}, {0x20, "_PyEval_EvalFrameDefault", "python"},
            {0x30, "main", "python"}};
  }
};

TEST(Limits, PythonFramesBesideOneEvalLoopFrame) {
  Limits p(32 << 20);
  ThreadOfLongNames(p, 3000, 4000);
  WithNativeFrames target(&p.target);
  CommandContext context{target, uint64_t{1}, false, std::nullopt, std::nullopt};
  const std::map<size_t, std::string> by_native = PythonFramesByNativeFrame(context);
  ASSERT_EQ(by_native.size(), 1u);
  const std::string& line = by_native.at(1);
  const std::string shown = std::string(kMaxNameInNativeFrame, 'n') + "... at limits.py:1";
  EXPECT_EQ(Count(line, shown), kMaxPythonFramesPerNativeFrame);
  const std::string more = " and " + std::to_string(3000 - kMaxPythonFramesPerNativeFrame) + " more";
  EXPECT_EQ(line.substr(line.size() - more.size()), more);
  EXPECT_LT(line.size(), 2 * kMaxPythonFramesPerNativeFrame * kMaxNameInNativeFrame);
}

// Locals read once the work budget ran out say that it did, not that the names are unreadable.
TEST(Limits, LocalsPastTheWorkBudgetSaySo) {
  Limits p;
  const uint64_t code = p.OneLineCode();
  const uint64_t frame = p.heap.Alloc(p.layout.frame.localsplus + 64);
  WorkBudget::Amounts limits = WorkBudget::kDefaultLimits;
  limits[static_cast<size_t>(Work::kBytesRead)] = 0;
  RemoteMemory memory(p.target, kMaxBytesReadPerCommand, limits);
  ObjectReader objects(memory, p.layout);
  ValueFormatter values(objects);
  const FrameLocals locals = ReadFrameLocals(objects, values, frame, code);
  ASSERT_TRUE(locals.error.has_value());
  EXPECT_EQ(*locals.error, *memory.budget().Reason());
  EXPECT_NE(locals.error->find("the work budget of one command ran out"), std::string::npos);
}

// ------------------------------------------------------------ source files

std::string WriteFile(const std::string& name, const std::string& text) {
  const std::string path = testing::TestTempPath(name);
  std::ofstream(path) << text;
  return path;
}

// One stack of kMaxSourceFilesPerCommand + 1 frames, each in a file of its own:
// py-bt reads the first kMaxSourceFilesPerCommand files (in name order) and
// the frame of the last shows no source line.
TEST(Limits, SourceFilesReadByOnePyBt) {
  Limits p(32 << 20);
  const Thread311 thread = p.AddThread(1, 0x7f0000000001);
  p.SetMainThread(thread);
  uint64_t chain = 0;
  std::string last_file;
  for (size_t i = 0; i <= kMaxSourceFilesPerCommand; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "source%04zu.py", i);
    last_file = WriteFile(name, "line_of_file = " + std::to_string(i) + "\n");
    chain = p.Frame(p.Code(last_file, "f", "f", 1, LineTableBytes(1, {{2, 1}}), 2), 1, chain);
  }
  p.SetCurrentFrame(thread, chain);
  const std::string text = p.Run("py-bt", {"--all"}).text;
  EXPECT_EQ(Count(text, "    line_of_file = "), kMaxSourceFilesPerCommand) << text.substr(0, 600);
  EXPECT_NE(text.find("line_of_file = " + std::to_string(kMaxSourceFilesPerCommand - 1) + "\n"),
            std::string::npos);
  EXPECT_EQ(text.find("line_of_file = " + std::to_string(kMaxSourceFilesPerCommand) + "\n"),
            std::string::npos);
  EXPECT_NE(text.find("File \"" + last_file + "\", line 1, in f\n"), std::string::npos);
}

// py-list reads at most kMaxSourceLines lines of a file: line 2^20 is there, 2^20 + 1 is not.
TEST(Limits, SourceLinesReadOfOneFile) {
  std::string text;
  for (size_t i = 1; i <= kMaxSourceLines + 1; ++i) text += i % 1000 == 0 ? "k\n" : "\n";
  text.back() = 'z';
  text += "\n";
  const std::string path = WriteFile("long.py", text);
  const int cap = static_cast<int>(kMaxSourceLines);
  auto lines = ReadSourceLines(path, cap - 1, cap + 1);
  ASSERT_TRUE(lines.ok()) << lines.error().message;
  EXPECT_EQ(lines->first, cap - 1);
  EXPECT_EQ(lines->lines, (std::vector<std::string>{"", ""}));  // line 2^20 + 1 ("z") is cut
}

// ------------------------------------------------------------ containers

TEST(Limits, ContainerEntriesAtAndOverTheCap) {
  Limits p(8 << 20);
  RemoteMemory memory(p.target);
  ObjectReader reader(memory, p.layout);
  RemoteCollections collections(reader);
  // Each object is built after the reader's cache may have read its page: Clear() first.
  const uint64_t items = p.heap.Alloc(8 * (kMaxContainerEntries + 1));
  auto list_of = [&](int64_t size) {
    const uint64_t list = p.heap.Alloc(48);
    p.target.Put<int64_t>(list + p.layout.list.ob_size, size);
    p.target.PutU64(list + p.layout.list.ob_item, items);
    return list;
  };
  auto tuple_of = [&](int64_t size) {
    const uint64_t tuple = p.heap.Alloc(p.layout.tuple.ob_item + 8 * size);
    p.target.Put<int64_t>(tuple + p.layout.tuple.ob_size, size);
    return tuple;
  };
  const int64_t cap = kMaxContainerEntries;
  memory.Clear();
  auto list = collections.ListItems(list_of(cap));
  ASSERT_TRUE(list.ok()) << list.error().message;
  EXPECT_EQ(list->size(), kMaxContainerEntries);
  const uint64_t over = list_of(cap + 1);
  memory.Clear();
  ASSERT_FALSE(collections.ListItems(over).ok());
  EXPECT_EQ(collections.ListItems(over).error().message,
            fmt::format("the list at {:#x} has an implausible size {}", over, cap + 1));
  memory.Clear();
  EXPECT_EQ(collections.TupleItems(tuple_of(cap))->size(), kMaxContainerEntries);
  const uint64_t over_tuple = tuple_of(cap + 1);
  memory.Clear();
  ASSERT_FALSE(collections.TupleItems(over_tuple).ok());
  EXPECT_EQ(collections.TupleItems(over_tuple).error().message,
            fmt::format("the tuple at {:#x} has an implausible size {}", over_tuple, cap + 1));
  // A dict's key table: dk_nentries at offset 24 of the keys (3.11-3.14).
  const uint64_t keys = p.heap.Alloc(64);
  p.target.PutU8(keys + 9, 3);  // dk_log2_index_bytes
  p.target.Put<int64_t>(keys + 24, cap + 1);
  const uint64_t dict = p.objects.Dict({});
  p.target.PutU64(dict + p.layout.dict.ma_keys, keys);
  memory.Clear();
  ASSERT_FALSE(collections.DictItems(dict).ok());
  EXPECT_EQ(collections.DictItems(dict).error().message,
            fmt::format("the dict keys at {:#x} are not plausible", keys));
  // A set's table: 2^23 slots would be 128 MiB here, so only the refusal of a
  // larger one is built (mask + 1 = 2^24 slots).
  const uint64_t set = p.heap.Alloc(200);
  p.target.Put<int64_t>(set + p.layout.set.mask, static_cast<int64_t>(kMaxSetSlots) * 2 - 1);
  p.target.PutU64(set + p.layout.set.table, items);
  memory.Clear();
  ASSERT_FALSE(collections.SetItems(set).ok());
  EXPECT_EQ(collections.SetItems(set).error().message,
            fmt::format("the set at {:#x} has an implausible size", set));
}

// ------------------------------------------------------------ py-heap

// The collector's four lists of the fake 3.11 interpreter (three generations and the permanent
// one), empty; AddObjects links `count` objects of `type` (32 bytes each: PyGC_Head, refcnt,
// ob_type) into list `list` (3: permanent), after what it holds.
class HeapLists {
 public:
  explicit HeapLists(Limits& p) : p_(p) {
    for (int list = 0; list < 4; ++list) {
      tails_[list] = Head(list);
      p_.target.PutU64(Head(list), Head(list));
      p_.target.PutU64(Head(list) + 8, Head(list));
    }
  }
  uint64_t Head(int list) const {
    const Layout& l = p_.layout;
    const uint64_t gc = p_.interp + l.interp.gc;
    return list == 3 ? gc + l.gc.permanent : gc + l.gc.generations + list * l.gc.generation_size;
  }
  uint64_t Type(const std::string& name) {
    const uint64_t type = p_.objects.Type(name);
    p_.target.Put<int64_t>(type + p_.layout.type.tp_basicsize, 16);
    p_.target.Put<int64_t>(type + p_.layout.type.tp_itemsize, 0);
    p_.target.PutU64(type + p_.layout.type.tp_flags, 1u << 14);  // Py_TPFLAGS_HAVE_GC
    return type;
  }
  // The PyGC_Heads linked, in order.
  std::vector<uint64_t> AddObjects(int list, uint64_t type, size_t count) {
    std::vector<uint64_t> nodes;
    for (size_t i = 0; i < count; ++i) {
      const uint64_t node = p_.heap.Alloc(32);
      p_.target.PutU64(node + 16, 1);
      p_.target.PutU64(node + 24, type);
      Link(tails_[list], node);
      tails_[list] = node;
      nodes.push_back(node);
    }
    Link(tails_[list], Head(list));
    return nodes;
  }
  void Link(uint64_t from, uint64_t to) {
    p_.target.PutU64(from, to);
    p_.target.PutU64(to + 8, from);
  }
  // A new untracked float (24 bytes), of one float type made on first use.
  uint64_t Float() {
    const Layout& l = p_.layout;
    if (float_type_ == 0) {
      float_type_ = Type("float");
      p_.target.Put<int64_t>(float_type_ + l.type.tp_basicsize, 24);
      p_.target.PutU64(float_type_ + l.type.tp_flags, 0);
    }
    const uint64_t number = p_.heap.Alloc(24);
    p_.target.PutU64(number, 1);
    p_.target.PutU64(number + 8, float_type_);
    return number;
  }
  // A tracked tuple of `items`, list 0's one object: its PyGC_Head.
  uint64_t OnlyTuple(const std::vector<uint64_t>& items) {
    const Layout& l = p_.layout;
    const uint64_t tuple = Type("tuple");
    p_.target.Put<int64_t>(tuple + l.type.tp_basicsize, 24);
    p_.target.Put<int64_t>(tuple + l.type.tp_itemsize, 8);
    p_.target.PutU64(tuple + l.type.tp_flags, (1u << 14) | (1u << 26));
    const uint64_t node = p_.heap.Alloc(16 + 24 + 8 * items.size());
    p_.target.PutU64(node + 16, 1);
    p_.target.PutU64(node + 24, tuple);
    p_.target.Put<int64_t>(node + 16 + l.tuple.ob_size, int64_t(items.size()));
    for (size_t i = 0; i < items.size(); ++i) {
      p_.target.PutU64(node + 16 + l.tuple.ob_item + 8 * i, items[i]);
    }
    Link(Head(0), node);
    Link(node, Head(0));
    tails_[0] = node;
    return node;
  }
  HeapCensus Take(const HeapOptions& options, const WorkBudget::Amounts& work =
                                                  WorkBudget::kDefaultLimits) {
    RemoteMemory memory(p_.target, kMaxBytesReadForHeap, work);
    ObjectReader reader(memory, p_.layout);
    ValueFormatter types(reader);
    auto census = TakeHeapCensus(reader, types, {{p_.interp, {}}}, options);
    EXPECT_TRUE(census.ok()) << census.error().message;
    return census.ok() ? *census : HeapCensus{};
  }

 private:
  Limits& p_;
  uint64_t tails_[4] = {};
  uint64_t float_type_ = 0;
};

// One list at and over its cap (lowered through HeapOptions: 2^27 real objects would be 4 GiB
// of fake heap): the objects past it are not counted, and one warning says so.
TEST(Limits, HeapListAtAndOverTheCap) {
  for (size_t count : {size_t{1000}, size_t{1001}}) {
    SCOPED_TRACE(count);
    Limits p(1 << 20);
    HeapLists lists(p);
    lists.AddObjects(0, lists.Type("Thing"), count);
    HeapOptions options;
    options.max_list_objects = 1000;
    const HeapCensus census = lists.Take(options);
    EXPECT_EQ(census.objects, 1000u);
    EXPECT_EQ(census.bytes, 1000u * 32);
    ASSERT_EQ(census.groups.size(), 1u);
    EXPECT_EQ(census.groups[0].name, "Thing");
    EXPECT_EQ(census.complete, count == 1000);
    if (count == 1000) {
      EXPECT_TRUE(census.warnings.empty());
    } else {
      EXPECT_EQ(census.warnings, std::vector<std::string>{
          "the generation 0 list has more than 1000 objects: the rest are not counted...truncated"});
    }
  }
  EXPECT_EQ(HeapOptions{}.max_list_objects, kMaxGcListObjects);
}

// Types at and over their cap: the objects of types past it in one group "(other types)".
TEST(Limits, HeapTypesAtAndOverTheCap) {
  Limits p(1 << 20);
  HeapLists lists(p);
  for (int i = 0; i < 3; ++i) lists.AddObjects(1, lists.Type("T" + std::to_string(i)), 5 + i);
  HeapOptions options;
  options.max_types = 3;
  EXPECT_EQ(lists.Take(options).groups.size(), 3u);
  options.max_types = 2;
  const HeapCensus census = lists.Take(options);
  ASSERT_EQ(census.groups.size(), 3u);
  EXPECT_EQ(census.objects, 18u);
  EXPECT_EQ(census.groups[0].name, "(other types)");  // T2's 7 objects: the most bytes
  EXPECT_EQ(census.groups[0].count, 7u);
  EXPECT_EQ(census.groups[0].type, 0u);
  EXPECT_EQ(census.warnings, std::vector<std::string>{
      "more than 2 types: the objects of the rest are counted in \"(other types)\""});
}

// Untracked objects reached through containers at and over their cap (lowered through
// HeapOptions): a tracked tuple holding floats, one of them twice (counted once); past the
// cap the rest are not counted, "limited" and one warning say so.
TEST(Limits, HeapUntrackedObjectsAtAndOverTheCap) {
  for (size_t distinct : {size_t{5}, size_t{6}}) {
    SCOPED_TRACE(distinct);
    Limits p(1 << 20);
    HeapLists lists(p);
    std::vector<uint64_t> floats;
    for (size_t i = 0; i < distinct; ++i) floats.push_back(lists.Float());
    floats.push_back(floats[0]);  // counted once
    lists.OnlyTuple(floats);
    HeapOptions options;
    options.max_owned_objects = 5;
    const HeapCensus census = lists.Take(options);
    EXPECT_EQ(census.objects, 1u);
    EXPECT_EQ(census.through_containers_objects, 5u);
    EXPECT_EQ(census.through_containers_bytes, 5u * 24);
    EXPECT_EQ(census.through_containers_limited, distinct == 6);
    EXPECT_EQ(census.complete, distinct == 5);
    bool owned_group = false;
    for (const HeapGroup& group : census.groups) {
      if (group.name == "float") {
        owned_group = group.through_containers && group.count == 5;
      }
    }
    EXPECT_TRUE(owned_group);
    if (distinct == 5) {
      EXPECT_TRUE(census.warnings.empty()) << census.warnings[0];
    } else {
      EXPECT_EQ(census.warnings, std::vector<std::string>{
          "more than 5 untracked objects are reached through containers: the rest are not "
          "counted...truncated"});
    }
  }
  EXPECT_EQ(HeapOptions{}.max_owned_objects, kMaxOwnedObjects);
  EXPECT_EQ(HeapOptions{}.max_owned_entries, kMaxOwnedEntries);
}

// The entries read for the untracked objects at and over their cap: a tracked tuple of 6
// floats; past the cap its items are not counted, "limited" and one warning say so, and the
// tracked objects are all counted.
TEST(Limits, HeapUntrackedEntriesAtAndOverTheCap) {
  for (uint64_t cap : {uint64_t{6}, uint64_t{5}}) {
    SCOPED_TRACE(cap);
    Limits p(1 << 20);
    HeapLists lists(p);
    std::vector<uint64_t> floats;
    for (size_t i = 0; i < 6; ++i) floats.push_back(lists.Float());
    lists.OnlyTuple(floats);
    lists.AddObjects(1, lists.Type("Thing"), 3);  // walked after the tuple
    HeapOptions options;
    options.max_owned_entries = cap;
    const HeapCensus census = lists.Take(options);
    EXPECT_EQ(census.objects, 4u);
    EXPECT_EQ(census.through_containers_objects, cap == 6 ? 6u : 0u);
    EXPECT_EQ(census.through_containers_limited, cap == 5);
    if (cap == 6) {
      EXPECT_TRUE(census.warnings.empty()) << census.warnings[0];
    } else {
      EXPECT_EQ(census.warnings, std::vector<std::string>{
          "more than 5 container entries were read for the untracked objects they hold: the "
          "rest are not counted...truncated"});
    }
  }
}

// A class's __slots__ at and over kMaxClassSlots members (two of them object slots, holding
// floats, the rest of another member type), two instances: at the cap their four floats are
// counted; over it none, and the class is counted as damaged once. Their slots count as
// entries read (kMaxOwnedEntries).
TEST(Limits, HeapSlotsAtAndOverTheCap) {
  for (int64_t members : {kMaxClassSlots, kMaxClassSlots + 1}) {
    SCOPED_TRACE(members);
    Limits p(4 << 20);
    HeapLists lists(p);
    const Layout& l = p.layout;
    const uint64_t slotted = lists.Type("Slotted");
    p.target.Put<int64_t>(slotted + l.type.tp_basicsize, 32);  // PyObject_HEAD, two slots
    p.target.PutU64(slotted + l.type.tp_flags, kHaveGcFlag | kHeapTypeFlag);
    p.target.Put<int64_t>(slotted + l.object.ob_size, members);
    const uint64_t array = p.heap.Alloc(uint64_t(members) * uint64_t(l.member_def.size));
    p.target.PutU64(slotted + l.type.tp_members, array);
    for (uint64_t i = 0; i < 2; ++i) {
      const uint64_t member = array + (uint64_t(members) - 1 - i) * uint64_t(l.member_def.size);
      p.target.Put<int32_t>(member + l.member_def.type, 16);  // T_OBJECT_EX
      p.target.Put<int64_t>(member + l.member_def.offset, int64_t(16 + 8 * i));
    }
    uint64_t previous = lists.Head(0);
    for (int n = 0; n < 2; ++n) {
      const uint64_t node = p.heap.Alloc(16 + 32);
      p.target.PutU64(node + 16, 1);
      p.target.PutU64(node + 24, slotted);
      for (uint64_t i = 0; i < 2; ++i) p.target.PutU64(node + 16 + 16 + 8 * i, lists.Float());
      lists.Link(previous, node);
      previous = node;
    }
    lists.Link(previous, lists.Head(0));
    const HeapCensus census = lists.Take(HeapOptions{});
    EXPECT_EQ(census.objects, 2u);
    const bool over = members > kMaxClassSlots;
    EXPECT_EQ(census.through_containers_objects, over ? 0u : 4u);
    EXPECT_EQ(census.through_containers_bytes, over ? 0u : 4u * 24);
    EXPECT_EQ(census.damaged, over ? 1u : 0u);
    if (over) continue;
    // Slots are container entries read: past kMaxOwnedEntries (lowered to 3) the second
    // instance's are not, and "limited" says so.
    HeapOptions three_entries;
    three_entries.max_owned_entries = 3;
    const HeapCensus cut = lists.Take(three_entries);
    EXPECT_EQ(cut.through_containers_objects, 2u);
    EXPECT_TRUE(cut.through_containers_limited);
  }
}

// A list that loops back into itself (not through its head) and a node whose _gc_prev is not
// the node before: each cut there, counted as damaged, one warning for both; the other lists
// are walked whole.
TEST(Limits, HeapBrokenAndLoopingListsAreCutAndCounted) {
  Limits p(1 << 20);
  HeapLists lists(p);
  const uint64_t thing = lists.Type("Thing");
  const std::vector<uint64_t> looping = lists.AddObjects(0, thing, 10);
  p.target.PutU64(looping[9], looping[3]);  // 10 objects, then back to the 4th
  const std::vector<uint64_t> broken = lists.AddObjects(1, thing, 10);
  p.target.PutU64(broken[6] + 8, broken[2]);  // the 7th does not point back at the 6th
  lists.AddObjects(2, thing, 4);
  lists.AddObjects(3, thing, 3);
  const HeapCensus census = lists.Take({});
  EXPECT_EQ(census.objects, 10u + 6 + 4 + 3);
  EXPECT_EQ(census.damaged, 2u);
  EXPECT_FALSE(census.complete);
  EXPECT_EQ(census.warnings, std::vector<std::string>{fmt::format(
      "2 damaged objects or links were not counted; the first: the object at {:#x} in the "
      "generation 0 list does not link back to the one before it: the list is cut there",
      looping[3] + 16)});
}

// 3.11-3.13: the lists are where `generation0` points when that is inside the struct (Debian
// 13's 3.13.5 keeps them 4 bytes before 3.13.0's); elsewhere (null here in every other test,
// or outside the struct) the layout's offset.
TEST(Limits, HeapListsAreWhereGeneration0Points) {
  for (const bool inside : {true, false}) {
    SCOPED_TRACE(inside);
    Limits p(1 << 20);
    HeapLists lists(p);
    const Layout& l = p.layout;
    ASSERT_NE(l.gc.generation0, kAbsent);
    const uint64_t gc = p.interp + l.interp.gc;
    const uint64_t thing = lists.Type("Thing");
    if (!inside) {
      // Five objects on the layout's first list; generation0 points at an empty list outside.
      lists.AddObjects(0, thing, 5);
      const uint64_t elsewhere = p.heap.Alloc(96);
      for (int list = 0; list < 3; ++list) {
        const uint64_t head = elsewhere + list * l.gc.generation_size;
        lists.Link(head, head);
      }
      p.target.PutU64(gc + l.gc.generation0, elsewhere);
    } else {
      // Five objects on lists 4 bytes before the layout's, where generation0 points.
      const uint64_t shifted = gc + l.gc.generations - 4;
      for (int list = 0; list < 3; ++list) {
        const uint64_t head = shifted + list * l.gc.generation_size;
        lists.Link(head, head);
      }
      uint64_t tail = shifted;
      for (int i = 0; i < 5; ++i) {
        const uint64_t node = p.heap.Alloc(32);
        p.target.PutU64(node + 16, 1);
        p.target.PutU64(node + 24, thing);
        lists.Link(tail, node);
        tail = node;
      }
      lists.Link(tail, shifted);
      p.target.PutU64(gc + l.gc.generation0, shifted);
    }
    const HeapCensus census = lists.Take({});
    EXPECT_EQ(census.objects, 5u);
    EXPECT_EQ(census.damaged, 0u);
    EXPECT_TRUE(census.complete) << (census.warnings.empty() ? "" : census.warnings[0]);
  }
}

// An object whose type cannot be read, or whose size fields are impossible, is counted as
// damaged and the walk goes on along its links.
TEST(Limits, HeapDamagedObjectsAreCountedAndTheWalkGoesOn) {
  Limits p(1 << 20);
  HeapLists lists(p);
  const uint64_t bad_type = lists.Type("Bad");
  p.target.Put<int64_t>(bad_type + p.layout.type.tp_basicsize, 8);  // smaller than a header
  const std::vector<uint64_t> nodes = lists.AddObjects(0, lists.Type("Thing"), 5);
  p.target.PutU64(nodes[1] + 24, 0x10);  // ob_type: nowhere
  p.target.PutU64(nodes[3] + 24, bad_type);
  const HeapCensus census = lists.Take({});
  EXPECT_EQ(census.objects, 3u);
  EXPECT_EQ(census.damaged, 2u);
  EXPECT_FALSE(census.complete);
  ASSERT_EQ(census.warnings.size(), 1u);
  EXPECT_EQ(census.warnings[0].rfind("2 damaged objects or links were not counted; the first: ", 0),
            0u)
      << census.warnings[0];
}

// py-heap --containers' referrers (core/heap/container_referrers.h): a fake sys.modules of
// `sys` and a module `app` whose globals hold containers, a class whose dict holds one, and a
// frame's locals. The caps are lowered through ReferrerLimits (the fake dicts hold five
// entries at most).
class ReferrerHeap {
 public:
  explicit ReferrerHeap(Limits& p) : p_(p), module_type_(p.objects.Type("module")) {
    for (uint64_t& container : containers) container = p_.heap.Alloc(64);
  }
  uint64_t Module(const std::vector<std::pair<uint64_t, uint64_t>>& globals) {
    const uint64_t module = p_.heap.Alloc(64);
    p_.objects.Header(module, module_type_);
    p_.target.PutU64(module + p_.layout.module.md_dict, p_.objects.Dict(globals));
    return module;
  }
  void SetModules(const std::vector<std::pair<uint64_t, uint64_t>>& modules) {
    p_.target.PutU64(p_.interp + p_.layout.interp.modules, p_.objects.Dict(modules));
  }
  uint64_t Class(const std::string& name, const std::vector<std::pair<uint64_t, uint64_t>>& dict) {
    const uint64_t type = p_.objects.Type(name);
    p_.target.PutU64(type + p_.layout.type.tp_flags, kHeapTypeFlag | kTypeSubclassFlag);
    p_.target.PutU64(type + p_.layout.type.tp_dict, p_.objects.Dict(dict));
    return type;
  }
  ReferrerScan Find(const std::vector<uint64_t>& classes, const std::vector<ReferrerFrame>& frames,
                    const ReferrerLimits& limits) {
    RemoteMemory memory(p_.target, kMaxBytesReadForHeap);
    ObjectReader reader(memory, p_.layout);
    return FindContainerReferrers(reader, {containers[0], containers[1]}, {p_.interp}, classes,
                                  frames, limits);
  }
  uint64_t Str(const std::string& text) { return p_.objects.Str(text); }

  uint64_t containers[2] = {};

 private:
  Limits& p_;
  uint64_t module_type_;
};

std::vector<std::string> Names(const std::vector<HeapReferrer>& referrers) {
  std::vector<std::string> names;
  for (const HeapReferrer& referrer : referrers) {
    names.push_back(std::string(ReferrerKindName(referrer.kind)) + " " + referrer.name);
  }
  return names;
}

// Each kind named, in scan order; at the cap of referrers per container all of them, one over
// it the first ones and one warning.
TEST(Limits, ContainerReferrersAtAndOverTheCapPerContainer) {
  EXPECT_EQ(ReferrerLimits{}.max_per_container, kMaxContainerReferrers);
  EXPECT_EQ(ReferrerLimits{}.max_entries, kMaxReferrerEntries);
  EXPECT_EQ(ReferrerLimits{}.max_dict_entries, kMaxReferrerDictEntries);
  Limits p(4 << 20);
  ASSERT_NE(p.layout.interp.modules, kAbsent);
  ASSERT_NE(p.layout.module.md_dict, kAbsent);
  ASSERT_NE(p.layout.type.tp_dict, kAbsent);
  ReferrerHeap heap(p);
  const uint64_t list = heap.containers[0];
  heap.SetModules({{heap.Str("sys"), heap.Module({})},
                   {heap.Str("app"), heap.Module({{heap.Str("cache"), list},
                                                  {heap.Str("other"), heap.Str("x")}})},
                   {heap.Str("not_a_module"), heap.Str("a str in sys.modules")}});
  const uint64_t holder = heap.Class("Holder", {{heap.Str("table"), list}});
  std::vector<ReferrerFrame> frames(1);
  frames[0] = {"Worker.run", "/srv/app.py", 12, {{"rows", list}, {"n", heap.Str("y")}}, {}};
  ReferrerLimits limits;
  limits.max_per_container = 3;
  ReferrerScan scan = heap.Find({holder}, frames, limits);
  ASSERT_EQ(scan.referrers.size(), 2u);
  EXPECT_EQ(Names(scan.referrers[0]),
            (std::vector<std::string>{"global app.cache", "class_attribute Holder.table",
                                      "local Worker.run (/srv/app.py:12) local rows"}));
  EXPECT_TRUE(scan.referrers[1].empty());
  EXPECT_TRUE(scan.complete);
  EXPECT_TRUE(scan.warnings.empty()) << scan.warnings[0];
  limits.max_per_container = 2;
  scan = heap.Find({holder}, frames, limits);
  EXPECT_EQ(Names(scan.referrers[0]),
            (std::vector<std::string>{"global app.cache", "class_attribute Holder.table"}));
  EXPECT_FALSE(scan.complete);
  EXPECT_EQ(scan.warnings, std::vector<std::string>{
      "a container has more than 2 referrers: the rest are not named...truncated"});
}

// Entries looked at in all (sys.modules' 2, app's 2, Holder's 1, the frame's 1: 6), at the cap
// and one under it; and a dict larger than the cap of one dict (sys.modules), not looked in.
TEST(Limits, ContainerReferrersAtAndOverTheEntryCaps) {
  Limits p(4 << 20);
  ReferrerHeap heap(p);
  const uint64_t list = heap.containers[0];
  heap.SetModules({{heap.Str("sys"), heap.Module({})},
                   {heap.Str("app"), heap.Module({{heap.Str("cache"), list},
                                                  {heap.Str("other"), heap.Str("x")}})}});
  const uint64_t holder = heap.Class("Holder", {{heap.Str("table"), list}});
  const std::vector<ReferrerFrame> frames = {{"f", "/a.py", 1, {{"rows", list}}, {}}};
  ReferrerLimits limits;
  limits.max_entries = 6;
  ReferrerScan scan = heap.Find({holder}, frames, limits);
  EXPECT_EQ(scan.referrers[0].size(), 3u);
  EXPECT_TRUE(scan.warnings.empty()) << scan.warnings[0];
  limits.max_entries = 5;
  scan = heap.Find({holder}, frames, limits);
  EXPECT_EQ(Names(scan.referrers[0]),
            (std::vector<std::string>{"global app.cache", "class_attribute Holder.table"}));
  EXPECT_FALSE(scan.complete);
  EXPECT_EQ(scan.warnings, std::vector<std::string>{
      "more than 5 entries looked in for who refers to the largest containers: the rest are not "
      "looked in...truncated"});
  limits = {};
  limits.max_dict_entries = 1;  // sys.modules holds 2: not looked in; Holder's dict 1 is
  scan = heap.Find({holder}, frames, limits);
  EXPECT_EQ(Names(scan.referrers[0]),
            (std::vector<std::string>{"class_attribute Holder.table",
                                      "local f (/a.py:1) local rows"}));
  EXPECT_EQ(scan.warnings, std::vector<std::string>{
      "sys.modules of more than 1 entries was not looked in for who refers to the largest "
      "containers...truncated"});
}

// A class that cannot be read and a frame whose locals cannot be: skipped, counted, one
// warning with the first; the rest are still looked in.
TEST(Limits, ContainerReferrersSkipAndCountTheDamaged) {
  Limits p(4 << 20);
  ReferrerHeap heap(p);
  const uint64_t list = heap.containers[1];
  heap.SetModules({{heap.Str("sys"), heap.Module({})}});
  const uint64_t holder = heap.Class("Holder", {{heap.Str("table"), list}});
  std::vector<ReferrerFrame> frames(2);
  frames[0].error = "cannot read the locals of the frame at 0x10";
  frames[1] = {"g", "/b.py", 7, {{"items", list}}, {}};
  const ReferrerScan scan = heap.Find({0x10, holder}, frames, {});
  EXPECT_TRUE(scan.referrers[0].empty());
  EXPECT_EQ(Names(scan.referrers[1]),
            (std::vector<std::string>{"class_attribute Holder.table",
                                      "local g (/b.py:7) local items"}));
  EXPECT_EQ(scan.damaged, 2u);
  EXPECT_FALSE(scan.complete);
  EXPECT_EQ(scan.warnings, std::vector<std::string>{
      "2 modules, classes or frames could not be looked in for who refers to the largest "
      "containers; the first: cannot read the class at 0x10"});
}

// The work budget (and so Ctrl-C, which fails every Spend alike) stops the census between two
// objects: what was counted stays, and the budget's warning says why.
TEST(Limits, HeapCensusStopsWithTheWorkBudget) {
  Limits p(1 << 20);
  HeapLists lists(p);
  lists.AddObjects(0, lists.Type("Thing"), 100);
  lists.AddObjects(3, lists.Type("Frozen"), 100);
  WorkBudget::Amounts work = WorkBudget::kDefaultLimits;
  work[static_cast<size_t>(Work::kHeapObjects)] = 150;
  const HeapCensus census = lists.Take({}, work);
  EXPECT_EQ(census.objects, 150u);
  EXPECT_FALSE(census.complete);
  EXPECT_EQ(census.warnings, std::vector<std::string>{
      "the work budget of one command ran out (more than 150 heap objects visited): output is "
      "incomplete...truncated"});
}

// The fake mimalloc heaps (tests/fake_mimalloc.h) with the first slices of a segment at
// kSegment mapped, every block AddPage makes a tracked Thing.
class MimallocHeaps {
 public:
  static constexpr uint64_t kSegment = 0x7e0000000000;  // 32 MiB-aligned
  static constexpr uint64_t kBlock = FakeMimallocHeaps::kBlock;

  explicit MimallocHeaps(Limits& p) : p_(p), lists_(p), heaps_(p) {
    p.target.Map(kSegment, 8 * (1 << layout().mimalloc.slice_shift));
    thing_ = lists_.Type("Thing");
  }
  uint64_t Heap(int32_t id) const { return heaps_.Heap(id); }
  // Slice `slice` (1-7) as a page of `capacity` blocks, every one a tracked Thing, queued after
  // `after` (0: first in queue 0 of the GC heap). Returns the page.
  uint64_t AddPage(int slice, uint16_t capacity, uint64_t after = 0) {
    const uint64_t page = heaps_.AddPage(kSegment, uint64_t(slice), capacity, capacity, after);
    for (uint16_t i = 0; i < capacity; ++i) heaps_.Track(Block(page, i), thing_);
    return page;
  }
  // Block i of a page made by AddPage.
  uint64_t Block(uint64_t page, uint64_t i) const {
    const Layout::Mimalloc& m = layout().mimalloc;
    return heaps_.Block(kSegment, (page - kSegment - m.segment_slices) / m.page_size, i);
  }
  // Links blocks into one of the page's free lists (`list`: a Layout::Mimalloc offset).
  void FreeList(uint64_t page, int32_t list, const std::vector<uint64_t>& blocks, uint64_t flags = 0) {
    p_.target.PutU64(page + list, (blocks.empty() ? 0 : Block(page, blocks[0])) | flags);
    for (size_t i = 0; i < blocks.size(); ++i) {
      p_.target.PutU64(Block(page, blocks[i]), i + 1 < blocks.size() ? Block(page, blocks[i + 1]) : 0);
    }
  }
  // An abandoned segment in the pool (its `abandoned` list, tagged in the low bits), its
  // slices: the segment's own, then a page of `tracked` objects of the GC heap, then one of the
  // non-GC object heap (not looked at). Returns the segment.
  uint64_t AbandonSegment(uint16_t tracked) {
    const Layout::Mimalloc& m = layout().mimalloc;
    const uint64_t segment = kSegment + (uint64_t{1} << m.segment_shift);
    p_.target.Map(segment, 3 * (1 << m.slice_shift));
    p_.target.PutU64(segment + m.segment_slice_entries, 3);
    for (int slice = 0; slice < 3; ++slice) {
      const uint64_t page = segment + m.segment_slices + uint64_t(slice) * m.page_size;
      const uint16_t blocks = slice == 0 ? 1 : tracked;
      p_.target.Put<uint32_t>(page + m.page_slice_count, 1);
      p_.target.Put<uint8_t>(page + m.page_tag_byte, uint8_t((slice == 2 ? 1 : m.heap_gc) << m.page_tag_shift));
      p_.target.Put<uint16_t>(page + m.page_capacity, blocks);
      p_.target.Put<uint32_t>(page + m.page_used, blocks);
      p_.target.Put<uint32_t>(page + m.page_block_size, kBlock);
      for (uint16_t i = 0; slice != 0 && i < blocks; ++i) {
        heaps_.Track(heaps_.Block(segment, uint64_t(slice), i), thing_);
      }
    }
    p_.target.PutU64(heaps_.pool() + m.pool_abandoned, segment | 5);
    return segment;
  }
  HeapCensus Take(const HeapOptions& options = {},
                  const WorkBudget::Amounts& work = WorkBudget::kDefaultLimits) {
    RemoteMemory memory(p_.target, kMaxBytesReadForHeap, work);
    ObjectReader reader(memory, layout());
    ValueFormatter types(reader);
    auto census = TakeHeapCensus(reader, types, {{p_.interp, {heaps_.tstate()}}}, options);
    EXPECT_TRUE(census.ok()) << census.error().message;
    return census.ok() ? *census : HeapCensus{};
  }
  const Layout& layout() const { return heaps_.layout(); }

 private:
  Limits& p_;
  HeapLists lists_;
  FakeMimallocHeaps heaps_;
  uint64_t thing_ = 0;
};

// The used blocks are those on none of the page's three free lists (thread_free's flag bits
// ignored), and of those the tracked objects are counted; --limit-objects stops the census;
// the GC pages of abandoned segments count too.
TEST(Limits, HeapFreeThreadedCountsTrackedBlocksOffTheFreeLists) {
  Limits p(1 << 20);
  MimallocHeaps heaps(p);
  const Layout::Mimalloc& m = heaps.layout().mimalloc;
  const uint64_t page = heaps.AddPage(1, 20);
  heaps.FreeList(page, m.page_free, {2, 5});
  heaps.FreeList(page, m.page_local_free, {7});
  heaps.FreeList(page, m.page_thread_free, {9, 11}, 2);
  p.target.Put<uint8_t>(heaps.Block(page, 0) + m.object_gc_bits, 0);  // untracked
  heaps.AddPage(2, 10, page);
  const HeapCensus census = heaps.Take();
  EXPECT_EQ(census.objects, 20u - 5 - 1 + 10);
  EXPECT_EQ(census.bytes, census.objects * 16);  // tp_basicsize; no collector header
  EXPECT_EQ(census.damaged, 0u);
  EXPECT_TRUE(census.complete);
  EXPECT_TRUE(census.warnings.empty()) << census.warnings[0];

  HeapOptions options;
  options.max_objects = 5;
  const HeapCensus first = heaps.Take(options);
  EXPECT_EQ(first.objects, 5u);
  EXPECT_TRUE(first.limited);
  EXPECT_FALSE(first.complete);

  // The objects of a thread that ended: its GC pages in the interpreter's pool, looked at once
  // (a segment listed twice is damage).
  const uint64_t segment = heaps.AbandonSegment(7);
  EXPECT_EQ(heaps.Take().objects, census.objects + 7);
  p.target.PutU64(segment + m.segment_abandoned_next, segment);
  const HeapCensus looping = heaps.Take();
  EXPECT_EQ(looping.objects, census.objects + 7);
  EXPECT_EQ(looping.damaged, 1u);
}

// A page whose free list loops or leaves it, a page of impossible sizes, and a queue that
// loops back: each counted as damaged (the page's objects not counted), the walk goes on and
// ends; a heap that does not carry its own tag is not read.
TEST(Limits, HeapFreeThreadedDamagedPagesAreCountedAndTheWalkGoesOn) {
  Limits p(1 << 20);
  MimallocHeaps heaps(p);
  const Layout::Mimalloc& m = heaps.layout().mimalloc;
  const uint64_t looping = heaps.AddPage(1, 8);
  heaps.FreeList(looping, m.page_free, {1, 2});
  p.target.PutU64(heaps.Block(looping, 2), heaps.Block(looping, 1));  // back to the first
  const uint64_t leaving = heaps.AddPage(2, 8, looping);
  heaps.FreeList(leaving, m.page_local_free, {3});
  p.target.PutU64(heaps.Block(leaving, 3), heaps.Block(looping, 4));  // into another page
  const uint64_t huge = heaps.AddPage(3, 8, leaving);
  p.target.Put<uint16_t>(huge + m.page_capacity, 2000);  // 2000 blocks of 64 bytes > 64 KiB
  const uint64_t good = heaps.AddPage(4, 6, huge);
  p.target.PutU64(good + m.page_next, looping);  // the queue loops back
  HeapCensus census = heaps.Take();
  EXPECT_EQ(census.objects, 6u);
  EXPECT_EQ(census.damaged, 4u);  // three pages and the loop
  EXPECT_FALSE(census.complete);
  ASSERT_EQ(census.warnings.size(), 1u);
  EXPECT_EQ(census.warnings[0], fmt::format(
      "4 damaged objects or links were not counted; the first: the mimalloc page at {:#x} has "
      "a free list that leaves its blocks or loops (at {:#x}): its objects are not counted",
      looping, heaps.Block(looping, 1)));

  p.target.Put<uint8_t>(heaps.Heap(m.heap_gc) + m.heap_tag, 0);
  census = heaps.Take();
  EXPECT_EQ(census.objects, 0u);
  EXPECT_EQ(census.damaged, 1u);
}

// A free-threaded build whose heaps' place is not known (3.15t: no core of one to check it
// on) is refused in one line.
TEST(Limits, HeapFreeThreadedWithoutMimallocFactsIsRefused) {
  Limits p(1 << 20);
  Layout layout = p.layout;
  layout.free_threaded = true;
  RemoteMemory memory(p.target);
  ObjectReader reader(memory, layout);
  ValueFormatter types(reader);
  auto census = TakeHeapCensus(reader, types, {{p.interp, {}}});
  ASSERT_FALSE(census.ok());
  EXPECT_EQ(census.error().message,
            "py-heap: free-threaded Python 3.11.2 is not read yet (3.11 and newer are; "
            "free-threaded: 3.13 and 3.14)");
}

// The cap on pages looked at, and the work budget (a block at a time), stop the census with
// one warning each.
TEST(Limits, HeapFreeThreadedStopsAtThePageCapAndTheWorkBudget) {
  Limits p(1 << 20);
  MimallocHeaps heaps(p);
  heaps.AddPage(2, 10, heaps.AddPage(1, 10));
  HeapOptions options;
  options.mimalloc.max_pages = 1;
  HeapCensus census = heaps.Take(options);
  EXPECT_EQ(census.objects, 10u);
  EXPECT_FALSE(census.complete);
  EXPECT_EQ(census.warnings, std::vector<std::string>{
      "more than 1 mimalloc pages: the objects of the rest are not counted...truncated"});
  EXPECT_EQ(MimallocLimits{}.max_pages, kMaxMimallocPages);

  WorkBudget::Amounts work = WorkBudget::kDefaultLimits;
  work[static_cast<size_t>(Work::kHeapObjects)] = 12;
  census = heaps.Take({}, work);
  EXPECT_LT(census.objects, 12u);
  EXPECT_FALSE(census.complete);
  EXPECT_EQ(census.warnings, std::vector<std::string>{
      "the work budget of one command ran out (more than 12 heap objects visited): output is "
      "incomplete...truncated"});
}

// ------------------------------------------------------------ py-tasks warnings

// The cap py-tasks' TaskReader puts on its warnings (BoundedWarnings' own
// counting is tests/warnings_test.cc): kMaxTaskWarnings kept, then one line.
TEST(Limits, WarningsOfOnePyTasks) {
  for (size_t warned : {kMaxTaskWarnings, kMaxTaskWarnings + 6}) {
    SCOPED_TRACE(warned);
    Limits p;
    RemoteMemory memory(p.target);
    ObjectReader objects(memory, p.layout);
    CodeCache codes(objects);
    AsyncioLayout layout;
    AsyncSnapshot out;
    TaskReader reader(objects, codes, layout, out);
    for (size_t i = 0; i < warned; ++i) reader.Warn("task " + std::to_string(i) + ": damaged");
    reader.FinishWarnings();
    if (warned == kMaxTaskWarnings) {
      EXPECT_EQ(out.warnings.size(), kMaxTaskWarnings);
      EXPECT_EQ(out.warnings.back(), "task " + std::to_string(kMaxTaskWarnings - 1) + ": damaged");
    } else {
      ASSERT_EQ(out.warnings.size(), kMaxTaskWarnings + 1);
      EXPECT_EQ(out.warnings.back(), "6 more warnings like these were not shown...truncated");
    }
  }
}

// ------------------------------------------------------------ a cyclic coroutine chain

// docs/limits.md, "Bad input": a task whose coroutine awaits a coroutine that awaits
// the first shows both coroutines, then `task T: the coroutine chain loops`.
TEST(Limits, CyclicCoroutineChainIsCut) {
  Limits p;
  const Layout& l = p.layout;
  const uint64_t code = p.OneLineCode();
  const uint64_t coroutine_type = p.objects.Type("coroutine");
  // A coroutine suspended in `await`: its embedded frame's value stack holds
  // the awaited object awaited_from_top slots from the top.
  auto coroutine = [&] {
    const uint64_t coro = p.heap.Alloc(l.gen.iframe + l.frame.localsplus + 64);
    p.objects.Header(coro, coroutine_type);
    p.target.Put<int8_t>(coro + l.gen.frame_state, l.frame_state.suspended_yield_from);
    const uint64_t frame = coro + l.gen.iframe;
    p.target.PutU64(frame + l.frame.executable, code);
    p.target.PutU64(frame + l.frame.instr_ptr, code + l.code.code_adaptive + 2);
    p.target.Put<int32_t>(frame + l.frame.stacktop, l.frame.awaited_from_top);
    return coro;
  };
  auto await = [&](uint64_t coro, uint64_t awaited) {
    p.target.PutU64(coro + l.gen.iframe + l.frame.localsplus, awaited);
  };
  const uint64_t outer = coroutine(), inner = coroutine();
  await(outer, inner);
  await(inner, outer);

  RemoteMemory memory(p.target);
  ObjectReader objects(memory, l);
  CodeCache codes(objects);
  auto layout = AsyncioLayoutFor(l, memory);
  ASSERT_TRUE(layout.ok()) << layout.error().message;
  const uint64_t task = p.heap.Alloc(512);
  p.target.PutU64(task + layout->task.coro, outer);
  p.target.PutU64(task + layout->task.name, p.objects.Str("T"));
  memory.Clear();
  AsyncSnapshot out;
  TaskReader reader(objects, codes, *layout, out);
  reader.known.coroutine = coroutine_type;
  AsyncTask read;
  reader.ReadTask(task, read);
  EXPECT_EQ(read.name, "T");
  ASSERT_EQ(read.coroutine_stack.size(), 2u);
  EXPECT_EQ(read.coroutine_stack.at(0).frame_address, inner + l.gen.iframe);
  EXPECT_EQ(read.coroutine_stack.at(1).frame_address, outer + l.gen.iframe);
  EXPECT_EQ(out.warnings, std::vector<std::string>{"task T: the coroutine chain loops"});
}

// ------------------------------------------------------------ 3.14+ task lists

// The _asyncio module's per-interpreter task list (3.14+: an llist through each
// task's task_node), as FindTaskCandidates walks it. The fake is 3.11's image
// with the 3.14 list offsets stated here: the walk reads only the links.
struct TaskList {
  static constexpr int32_t kNode = 16;  // task_node within a (fake) task
  explicit TaskList(Limits& p) : p(p) {
    layout.task_node = kNode;
    layout.interp_tasks_head = 8;
    interp.address = p.heap.Alloc(p.layout.interp.size);
    snapshot.interpreters.push_back(interp);
    head = interp.address + layout.interp_tasks_head;
  }
  // Links `nodes` consecutive 8-byte nodes after the head; the last links
  // back to node `back_to` (or to the head, which ends the list).
  void Link(size_t nodes, std::optional<size_t> back_to = std::nullopt) {
    const uint64_t base = p.heap.Alloc(8 * nodes);
    p.target.PutU64(head, base);
    for (size_t i = 0; i + 1 < nodes; ++i) p.target.PutU64(base + 8 * i, base + 8 * (i + 1));
    p.target.PutU64(base + 8 * (nodes - 1), back_to ? base + 8 * *back_to : head);
  }
  TaskCandidates Find(std::vector<std::string>& warnings) {
    RemoteMemory memory(p.target);
    ObjectReader objects(memory, p.layout);
    CodeCache codes(objects);
    AsyncSnapshot out;
    TaskReader reader(objects, codes, layout, out);
    TaskCandidates found = FindTaskCandidates(reader, layout, snapshot);
    reader.FinishWarnings();
    warnings = out.warnings;
    return found;
  }
  Limits& p;
  AsyncioLayout layout;
  Interpreter interp;
  Snapshot snapshot;
  uint64_t head = 0;
};

TEST(Limits, CyclicTaskListIsCut) {
  Limits p;
  TaskList list(p);
  list.Link(3, /*back_to=*/1);  // node 2 links back to node 1
  std::vector<std::string> warnings;
  EXPECT_EQ(list.Find(warnings).objects.size(), 3u);
  EXPECT_EQ(warnings, std::vector<std::string>{
                          fmt::format("the task list at {:#x} is damaged or loops: cut", list.head)});
}

// A literal list of kMaxTasks + 1 tasks: 8 MB of links, under a second.
TEST(Limits, TaskListAtAndOverTheCap) {
  for (size_t tasks : {kMaxTasks, kMaxTasks + 1}) {
    SCOPED_TRACE(tasks);
    Limits p(12 << 20);
    TaskList list(p);
    list.Link(tasks);
    std::vector<std::string> warnings;
    EXPECT_EQ(list.Find(warnings).objects.size(), kMaxTasks);
    if (tasks == kMaxTasks) {
      EXPECT_TRUE(warnings.empty()) << warnings.front();
    } else {
      EXPECT_EQ(warnings, std::vector<std::string>{fmt::format(
                              "the task list at {:#x} has more than {} tasks: the rest are not "
                              "shown...truncated",
                              list.head, kMaxTasks)});
    }
  }
}

// The registry of 3.11-3.13 (asyncio.tasks._all_tasks, a WeakSet whose `data`
// set holds weakrefs to the tasks), found through sys.modules. Every member of
// the set is one and the same weakref: the cap counts members read.
TEST(Limits, TaskRegistryAtAndOverTheCap) {
  for (size_t tasks : {kMaxTasks, kMaxTasks + 1}) {
    SCOPED_TRACE(tasks);
    Limits p(40 << 20);
    const Layout& l = p.layout;
    const uint64_t task = p.heap.Alloc(64);
    const uint64_t ref = p.heap.Alloc(64);
    p.target.PutU64(ref + l.weakref.wr_object, task);
    const uint64_t slots = 1u << 21;
    const uint64_t table = p.heap.Alloc(16 * slots);
    for (size_t i = 0; i < tasks; ++i) {
      p.target.PutU64(table + 16 * i, ref);
      p.target.PutU64(table + 16 * i + 8, i);  // its hash
    }
    const uint64_t data = p.heap.Alloc(200);
    p.target.Put<int64_t>(data + l.set.mask, slots - 1);
    p.target.PutU64(data + l.set.table, table);
    // The WeakSet: an instance whose dict (at tp_dictoffset) holds `data`.
    const uint64_t weakset_type = p.objects.Type("WeakSet");
    p.target.Put<int64_t>(weakset_type + l.type.tp_dictoffset, 16);
    const uint64_t weakset = p.heap.Alloc(32);
    p.objects.Header(weakset, weakset_type);
    p.target.PutU64(weakset + 16, p.objects.Dict({{p.objects.Str("data"), data}}));
    const uint64_t module = p.heap.Alloc(64);
    p.target.PutU64(module + l.module.md_dict,
                    p.objects.Dict({{p.objects.Str("_all_tasks"), weakset}}));
    p.target.PutU64(p.interp + l.interp.modules,
                    p.objects.Dict({{p.objects.Str("asyncio.tasks"), module}}));

    RemoteMemory memory(p.target);
    ObjectReader objects(memory, l);
    CodeCache codes(objects);
    auto layout = AsyncioLayoutFor(l, memory);
    ASSERT_TRUE(layout.ok()) << layout.error().message;
    Snapshot snapshot;
    snapshot.interpreters.emplace_back().address = p.interp;
    AsyncSnapshot out;
    TaskReader reader(objects, codes, *layout, out);
    const TaskCandidates found = FindTaskCandidates(reader, *layout, snapshot);
    reader.FinishWarnings();
    EXPECT_TRUE(found.asyncio_imported);
    EXPECT_EQ(found.objects.size(), kMaxTasks);
    if (tasks == kMaxTasks) {
      EXPECT_TRUE(out.warnings.empty()) << out.warnings.front();
    } else {
      EXPECT_EQ(out.warnings,
                std::vector<std::string>{fmt::format(
                    "asyncio.tasks._all_tasks: 1 more tasks than the {} read were not "
                    "shown...truncated",
                    kMaxTasks)});
    }
  }
}

}  // namespace
}  // namespace pyunwind
