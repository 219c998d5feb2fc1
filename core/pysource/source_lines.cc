#include "core/pysource/source_lines.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "core/base/limits.h"
#include "core/pysource/source_file.h"

namespace pyunwind {

namespace {

// The last line a frame's source needs: its expression's end line, at most
// kMaxTracebackSpanLines - 1 past its line (a longer one shows its first line).
int LastSpanLine(const Frame& frame) {
  if (!frame.end_line || *frame.end_line <= *frame.line) return *frame.line;
  return static_cast<int>(std::min<long>(*frame.end_line, *frame.line + kMaxTracebackSpanLines - 1L));
}

}  // namespace

SourceLineReader::SourceLineReader(const SourceOrigin& origin) : policy_(origin) {}

void SourceLineReader::Add(const std::vector<Thread*>& threads,
                           std::vector<std::shared_ptr<const SourceText>>& owner) {
  // Calls `visit(frame, its file)` for each Python frame with a line. A file is looked up
  // once per run of frames of one code object (a recursion is thousands of them).
  auto for_each_frame = [&](auto visit) {
    const CodeNames* names_before = nullptr;
    SourceFile* file_before = nullptr;
    for (Thread* thread : threads) {
      for (Frame& frame : thread->frames) {
        if (frame.kind != FrameKind::kPython || !frame.line || *frame.line < 1) continue;
        if (file_before == nullptr || frame.code_names != names_before) {
          names_before = frame.code_names;
          file_before = &files_[frame.filename()];
        }
        visit(frame, *file_before);
      }
    }
  };
  // The lines a frame needs: its file, its line, its span's last line.
  using Lines = std::tuple<const SourceFile*, int, int>;
  auto lines_of = [](const Frame& frame, const SourceFile& file) {
    return Lines{&file, *frame.line, LastSpanLine(frame)};
  };
  // A recursion repeats one frame's lines thousands of times: each run of them is noted once.
  Lines noted{};
  for_each_frame([&](const Frame& frame, SourceFile& file) {
    const Lines key = lines_of(frame, file);
    if (key == noted) return;
    noted = key;
    if (file.unreadable) return;
    for (int number = *frame.line; number <= LastSpanLine(frame); ++number) {
      if (file.lines.count(number) == 0) file.wanted.push_back(number);
    }
  });
  // Each file with lines not read yet is read (again) for those: the threads given first
  // usually need most of what the later ones do.
  for (auto it = files_.begin(); it != files_.end(); ++it) {
    SourceFile& file = it->second;
    if (file.wanted.empty()) continue;
    std::vector<int> numbers = std::move(file.wanted);
    file.wanted.clear();
    if (reads_++ >= kMaxSourceFilesPerCommand) continue;
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    auto opened = policy_.Open(it->first);
    auto lines = opened.ok() ? ReadNumberedSourceLines(*opened, it->first, numbers)
                             : Result<std::vector<NumberedLine>>(opened.error());
    if (!lines.ok()) {
      file.unreadable = true;
      continue;
    }
    for (NumberedLine& line : *lines) file.lines.emplace(line.number, std::move(line.text));
  }
  // The text the frame before got, for the frames of a run at the same lines.
  Lines last_key{};
  const SourceText* last_text = nullptr;
  for_each_frame([&](Frame& frame, const SourceFile& file) {
    if (file.lines.empty()) return;
    const Lines key = lines_of(frame, file);
    if (last_text && key == last_key &&
        span_lines_ + last_text->span_lines.size() <= kMaxTracebackSpanLinesPerCommand) {
      span_lines_ += last_text->span_lines.size();
      frame.source = last_text;
      return;
    }
    const int line = *frame.line;
    auto at = file.lines.find(line);
    if (at == file.lines.end()) return;  // past the file's end
    // The span: the lines after it, as far as the file has them.
    auto span_end = std::next(at);
    while (span_end != file.lines.end() && span_end->first <= LastSpanLine(frame) &&
           span_end->first == std::prev(span_end)->first + 1) {
      ++span_end;
    }
    const auto span = static_cast<size_t>(std::distance(at, span_end) - 1);
    if (span_lines_ + span > kMaxTracebackSpanLinesPerCommand) span_end = std::next(at);
    span_lines_ += static_cast<size_t>(std::distance(at, span_end) - 1);
    const SourceText*& text = texts_[{&file, line, std::prev(span_end)->first}];
    if (!text) {
      std::vector<std::string> span_text;
      for (auto it = std::next(at); it != span_end; ++it) span_text.push_back(it->second);
      text = owner.emplace_back(std::make_shared<const SourceText>(
                                    SourceText{at->second, std::move(span_text)}))
                 .get();
    }
    frame.source = text;
    last_key = key;
    last_text = text;
  });
}

std::optional<std::string> AddSourceLines(Snapshot& snapshot, const SourceOrigin& origin) {
  std::vector<Thread*> threads;
  for (Interpreter& interp : snapshot.interpreters) {
    for (Thread& thread : interp.threads) {
      threads.push_back(&thread);
      for (GreenletStack& greenlet : thread.greenlets) threads.push_back(&greenlet.stack);
    }
  }
  SourceLineReader reader(origin);
  reader.Add(threads, snapshot.source_texts);
  return reader.policy().RefusalNote();
}

}  // namespace pyunwind
