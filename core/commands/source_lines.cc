#include "core/commands/source_lines.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

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
  // First the last line each file is needed to, then one read per file.
  std::map<std::string, int> last_line;
  for (const Interpreter& interp : snapshot.interpreters) {
    for (const Thread& thread : interp.threads) {
      for (const Frame& frame : thread.frames) {
        if (frame.kind != FrameKind::kPython || !frame.line || *frame.line < 1) continue;
        int& last = last_line[frame.filename()];
        last = std::max(last, LastSpanLine(frame));
      }
    }
  }
  std::map<std::string, std::optional<SourceLines>> files;
  for (const auto& [filename, last] : last_line) {
    if (files.size() >= kMaxSourceFilesPerCommand) break;
    auto lines = ReadSourceLines(SourcePathFor(filename, lookup), 1, last);
    files[filename] = lines.ok() ? std::optional<SourceLines>(std::move(*lines)) : std::nullopt;
  }
  // Frames at the same lines share one SourceText (a recursion is thousands of them).
  std::map<std::tuple<const SourceLines*, size_t, size_t>, std::shared_ptr<const SourceText>> texts;
  size_t span_lines = 0;
  for (Interpreter& interp : snapshot.interpreters) {
    for (Thread& thread : interp.threads) {
      for (Frame& frame : thread.frames) {
        if (frame.kind != FrameKind::kPython || !frame.line || *frame.line < 1) continue;
        auto found = files.find(frame.filename());
        if (found == files.end() || !found->second) continue;
        const SourceLines& source = *found->second;
        const size_t index = static_cast<size_t>(*frame.line - source.first);
        if (index >= source.lines.size()) continue;
        size_t span_end = std::min(source.lines.size(), index + 1 + (LastSpanLine(frame) - *frame.line));
        if (span_lines + (span_end - index - 1) > kMaxTracebackSpanLinesPerCommand) {
          span_end = index + 1;  // the line alone
        }
        span_lines += span_end - index - 1;
        std::shared_ptr<const SourceText>& text = texts[{&source, index, span_end}];
        if (!text) {
          text = std::make_shared<const SourceText>(SourceText{
              source.lines[index], {source.lines.begin() + index + 1, source.lines.begin() + span_end}});
        }
        frame.source = text;
      }
    }
  }
}

}  // namespace pyunwind
