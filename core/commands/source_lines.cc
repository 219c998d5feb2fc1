#include "core/commands/source_lines.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <utility>

#include "core/base/limits.h"
#include "core/commands/source_file.h"

namespace pyunwind {

std::string SourcePathFor(const std::string& filename, const SourceLookup& lookup) {
  const size_t slash = filename.rfind('/');
  const std::string base = slash == std::string::npos ? filename : filename.substr(slash + 1);
  if (!base.empty() && base != "." && base != "..") {
    for (const std::string& directory : lookup.directories) {
      const std::string candidate = directory + "/" + base;
      struct stat st;
      if (stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return candidate;
    }
  }
  return filename;
}

namespace {

// The last line a frame's source needs: its expression's end line, at most
// kMaxTracebackSpanLines - 1 past its line (a longer one shows its first line).
int LastSpanLine(const Frame& frame) {
  if (!frame.end_line || *frame.end_line <= *frame.line) return *frame.line;
  return static_cast<int>(std::min<long>(*frame.end_line, *frame.line + kMaxTracebackSpanLines - 1L));
}

}  // namespace

void AddSourceLines(Snapshot& snapshot, const SourceLookup& lookup) {
  struct SourceFile {
    std::vector<int> numbers;  // the lines the frames need
    std::optional<std::vector<NumberedLine>> lines;
  };
  std::map<std::string, SourceFile> files;
  // Calls `visit(frame, its file)` for each Python frame with a line. A file is looked up
  // once per run of frames of one code object (a recursion is thousands of them).
  auto for_each_frame = [&](auto visit) {
    const CodeNames* names_before = nullptr;
    SourceFile* file_before = nullptr;
    for (Interpreter& interp : snapshot.interpreters) {
      for (Thread& thread : interp.threads) {
        for (Frame& frame : thread.frames) {
          if (frame.kind != FrameKind::kPython || !frame.line || *frame.line < 1) continue;
          if (file_before == nullptr || frame.code_names != names_before) {
            names_before = frame.code_names;
            file_before = &files[frame.filename()];
          }
          visit(frame, *file_before);
        }
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
    for (int number = *frame.line; number <= LastSpanLine(frame); ++number) {
      file.numbers.push_back(number);
    }
  });
  size_t files_read = 0;
  for (auto& [filename, file] : files) {
    if (files_read++ >= kMaxSourceFilesPerCommand) break;
    std::sort(file.numbers.begin(), file.numbers.end());
    file.numbers.erase(std::unique(file.numbers.begin(), file.numbers.end()), file.numbers.end());
    auto lines = ReadNumberedSourceLines(SourcePathFor(filename, lookup), file.numbers);
    if (lines.ok()) file.lines = std::move(*lines);
  }
  // Frames at the same lines share one SourceText, which the snapshot owns.
  std::map<Lines, const SourceText*> texts;
  size_t span_lines = 0;
  // The text the frame before got, for the frames of a run at the same lines.
  Lines last_key{};
  const SourceText* last_text = nullptr;
  for_each_frame([&](Frame& frame, const SourceFile& file) {
    if (!file.lines) return;
    const Lines key = lines_of(frame, file);
    if (last_text && key == last_key &&
        span_lines + last_text->span_lines.size() <= kMaxTracebackSpanLinesPerCommand) {
      span_lines += last_text->span_lines.size();
      frame.source = last_text;
      return;
    }
    const std::vector<NumberedLine>& lines = *file.lines;
    const int line = *frame.line;
    auto at = std::lower_bound(lines.begin(), lines.end(), line,
                               [](const NumberedLine& l, int number) { return l.number < number; });
    if (at == lines.end() || at->number != line) return;  // past the file's end
    // The span: the lines after it, as far as the file has them.
    auto span_end = at + 1;
    while (span_end != lines.end() && span_end->number <= LastSpanLine(frame) &&
           span_end->number == (span_end - 1)->number + 1) {
      ++span_end;
    }
    if (span_lines + (span_end - at - 1) > kMaxTracebackSpanLinesPerCommand) span_end = at + 1;
    span_lines += span_end - at - 1;
    const SourceText*& text = texts[{&file, line, (span_end - 1)->number}];
    if (!text) {
      std::vector<std::string> span;
      for (auto it = at + 1; it != span_end; ++it) span.push_back(it->text);
      text = snapshot.source_texts
                 .emplace_back(std::make_shared<const SourceText>(SourceText{at->text, std::move(span)}))
                 .get();
    }
    frame.source = text;
    last_key = key;
    last_text = text;
  });
}

}  // namespace pyunwind
