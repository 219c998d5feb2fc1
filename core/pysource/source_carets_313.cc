// 3.13+'s StackSummary.format_frame_summary (Lib/traceback.py): every line of
// a multi-line span is shown (the first, the last, those around the anchors;
// "...<N lines>..." for a longer gap), with carets under each; calls are
// anchored like subscripts (`~~~^^^^^`); no carets for `return f(...)` and
// `NAME = ...(...)` whose call is the whole statement's value, nor where the
// span is the whole text of its lines.
#include <algorithm>
#include <optional>

#include "core/base/limits.h"
#include "core/pysource/python_tokens.h"
#include "core/pysource/source_carets.h"

namespace pyunwind {
namespace {

using namespace pysrc;  // NOLINT: this file is its client

// str.splitlines(): every line boundary Python knows; no empty last line.
std::vector<Text> SplitLines(const Text& text) {
  std::vector<Text> lines;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char32_t c = text[i];
    if (c == '\n' || c == '\r' || c == 0x0b || c == 0x0c || c == 0x1c || c == 0x1d ||
        c == 0x1e || c == 0x85 || c == 0x2028 || c == 0x2029) {
      lines.push_back(text.substr(start, i - start));
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  if (start < text.size()) lines.push_back(text.substr(start));
  return lines;
}

Text Join(const std::vector<Text>& lines) {
  Text out;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (k) out += U'\n';
    out += lines[k];
  }
  return out;
}

Text LeftStrip(const Text& text) {
  size_t k = 0;
  while (k < text.size() && IsSpace(text[k])) ++k;
  return text.substr(k);
}

Text RightStrip(Text text) {
  while (!text.empty() && IsSpace(text.back())) text.pop_back();
  return text;
}

bool Blank(char32_t c) { return c == ' ' || c == '\t'; }

// textwrap.dedent of 3.13: lines of only spaces and tabs become empty; the
// longest run of spaces and tabs common to the other lines is removed.
Text Dedent(const Text& text) {
  std::vector<Text> lines;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == '\n') {
      lines.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  std::optional<Text> margin;
  for (Text& line : lines) {
    if (std::all_of(line.begin(), line.end(), Blank)) {
      line.clear();
      continue;
    }
    size_t k = 0;
    while (Blank(line[k])) ++k;
    const Text indent = line.substr(0, k);
    if (!margin) {
      margin = indent;
      continue;
    }
    size_t common = 0;
    while (common < margin->size() && common < indent.size() && (*margin)[common] == indent[common]) {
      ++common;
    }
    margin->resize(common);
  }
  Text out;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (k) out += U"\n";
    const bool cut = margin && lines[k].compare(0, margin->size(), *margin) == 0;
    out += cut ? lines[k].substr(margin->size()) : lines[k];
  }
  return out;
}

// 3.13's _display_width(line, offset): an all-ASCII line counts `offset`,
// any other the cells of line[:offset].
long Width(const Text& line, std::optional<long> offset = std::nullopt) {
  const long end = offset ? *offset : static_cast<long>(line.size());
  if (std::all_of(line.begin(), line.end(), [](char32_t c) { return c < 0x80; })) return end;
  long width = 0;
  for (long k = 0; k < end && k < static_cast<long>(line.size()); ++k) width += IsWide(line[k]) ? 2 : 1;
  return width;
}

// ---- The root of one expression, as ast.parse would see it.

enum class RootKind { kNone, kBinOp, kSubscript, kCall };

struct Root {
  RootKind kind = RootKind::kNone;
  size_t first = 0, last = 0;  // its tokens, grouping parentheses left out
  size_t op = 0;               // kBinOp: the operator; else the '[' or '('
};

bool IsString(const Token& t) { return t.text.find_first_of(U"'\"") != Text::npos; }

Root Classify(const std::vector<Token>& t, size_t first, size_t last) {
  Root root;
  while (first < last && t[first].kind == TokenKind::kOpen && t[first].match == last &&
         IsGroupingParen(t, first)) {
    ++first;
    --last;
  }
  root.first = first;
  root.last = last;
  std::vector<size_t> top;
  for (size_t k = first; k <= last; ++k) {
    top.push_back(k);
    if (t[k].kind == TokenKind::kOpen) k = t[k].match;
  }
  int lowest = 99;
  for (size_t k : top) {
    const Token& tok = t[k];
    if (tok.kind == TokenKind::kKeyword || tok.kind == TokenKind::kComma) return root;
    if (tok.kind == TokenKind::kOperand && k > first && t[k - 1].kind == TokenKind::kOperand &&
        !(IsString(tok) && IsString(t[k - 1]))) {
      return root;  // two operands side by side: not an expression
    }
    if (tok.kind != TokenKind::kOperator) continue;
    const int level = BinaryLevel(tok.text);
    if (level > 0 && k > first && EndsOperand(t[k - 1])) {
      lowest = std::min(lowest, level);
    } else if (tok.text != U"-" && tok.text != U"+" && tok.text != U"~" && tok.text != U".") {
      return root;  // comparisons, ':=', '=', ...
    }
  }
  const bool unary_first = t[first].kind == TokenKind::kOperator;
  if (lowest != 99) {
    if (lowest == 8 && unary_first) return root;  // -a ** b is -(a ** b)
    size_t op = SIZE_MAX;
    for (size_t k : top) {
      if (t[k].kind != TokenKind::kOperator || k == first || !EndsOperand(t[k - 1])) continue;
      if (BinaryLevel(t[k].text) != lowest) continue;
      op = k;
      if (lowest == 8) break;  // '**' groups to the right
    }
    if (op == SIZE_MAX || op >= last) return root;
    root.kind = RootKind::kBinOp;
    root.op = op;
    return root;
  }
  if (unary_first || t[last].kind != TokenKind::kClose || t[last].text == U"}") return root;
  const size_t open = t[last].match;
  if (open <= first || !EndsOperand(t[open - 1])) return root;
  if (t[last].text == U"]" && open + 1 == last) return root;  // a[]
  root.kind = t[last].text == U"]" ? RootKind::kSubscript : RootKind::kCall;
  root.op = open;
  return root;
}

// ---- _extract_caret_anchors_from_line_segment

struct Anchors {
  size_t left_line = 0, left_col = 0;    // where the secondary part starts
  size_t right_line = 0, right_col = 0;  // where the primary part resumes
  char32_t primary = '~', secondary = '^';
};

struct Place {
  size_t line = 0, col = 0;
};

class Segment {
 public:
  explicit Segment(const Text& text) : lines_(SplitLines(text)) {
    size_t start = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '\n') {
        starts_.push_back(start);
        start = i + 1;
      }
    }
  }
  // A character offset of the text as (line, column), as ast's positions.
  Place At(size_t offset) const {
    size_t line = std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin() - 1;
    return {line, offset - starts_[line]};
  }
  // next_valid_char: the first character at or after `p` (nullopt: none,
  // Python's assertion fails and no anchors are drawn).
  std::optional<Place> Valid(Place p) const {
    while (p.line < lines_.size() && p.col >= lines_[p.line].size()) p = {p.line + 1, 0};
    if (p.line >= lines_.size()) return std::nullopt;
    return p;
  }
  // increment_until: from a valid `p` to the first character satisfying
  // `stop`, jumping to the next line at a '\' or '#'.
  template <typename Stop>
  std::optional<Place> Until(std::optional<Place> p, Stop stop) const {
    while (p) {
      const char32_t c = lines_[p->line][p->col];
      if (c == '\\' || c == '#') {
        p = Valid({p->line + 1, 0});
      } else if (!stop(c)) {
        p = Valid({p->line, p->col + 1});
      } else {
        break;
      }
    }
    return p;
  }
  const Text& Line(size_t k) const { return lines_[k]; }

 private:
  std::vector<Text> lines_;
  std::vector<size_t> starts_;
};

std::optional<Anchors> FindAnchors(const Text& text) {
  const auto tokens = Tokenize(text, /*comments=*/true);
  if (!tokens || tokens->empty()) return std::nullopt;
  const std::vector<Token>& t = *tokens;
  const Root root = Classify(t, 0, t.size() - 1);
  if (root.kind == RootKind::kNone) return std::nullopt;
  const Segment segment(text);
  if (root.kind == RootKind::kBinOp) {
    auto op = segment.Until(segment.Valid(segment.At(ExpressionEnd(t, root.op - 1))),
                            [](char32_t c) { return !IsSpace(c) && c != ')'; });
    if (!op) return std::nullopt;
    const Place right = segment.At(ExpressionStart(t, root.op + 1));
    const Text& line = segment.Line(op->line);
    size_t right_col = op->col + 1;
    if (right_col < line.size() && (right.line > op->line || right_col < right.col) &&
        !IsSpace(line[right_col]) && line[right_col] != '\\' && line[right_col] != '#') {
      ++right_col;
    }
    return Anchors{op->line, op->col, op->line, right_col};
  }
  const char32_t bracket = root.kind == RootKind::kSubscript ? '[' : '(';
  auto left = segment.Until(segment.Valid(segment.At(ExpressionEnd(t, root.op - 1))),
                            [bracket](char32_t c) { return c == bracket; });
  if (!left) return std::nullopt;
  const Place right = segment.At(t[root.last].end);
  return Anchors{left->line, left->col, right.line, right.col};
}

// ---- _should_show_carets

// The byte column of character `col` of `line` (ast counts bytes).
size_t ByteColumn(const Text& line, size_t col) {
  return Encode(line.substr(0, std::min(col, line.size()))).size();
}

bool IsIdentifier(const Token& t) {
  return t.kind == TokenKind::kOperand && !IsString(t) && !(t.text[0] >= '0' && t.text[0] <= '9');
}

// Whether the lines are `return NAME(...)` or `NAME = ...(...)` whose call
// spans exactly [start, end) from the first line to the last: Python's ast
// check. Where pyunwind's tokens cannot read the lines, Python's parse is
// taken to have failed too (its SyntaxError path): carets are not hidden.
bool CallIsTheWholeStatement(const std::vector<Text>& lines, long start, long end) {
  const Text text = Join(lines);
  const auto tokens = Tokenize(text, /*comments=*/true);
  if (!tokens || tokens->empty()) return false;
  const std::vector<Token>& t = *tokens;
  size_t statement_end = t.size();
  for (size_t k = 0; k < t.size(); ++k) {
    if (t[k].kind == TokenKind::kOperator && t[k].text == U";") {
      statement_end = k;
      break;
    }
    if (t[k].kind == TokenKind::kOpen) k = t[k].match;
  }
  size_t value_first;
  bool name_call_only;
  if (t[0].kind == TokenKind::kKeyword && t[0].text == U"return") {
    value_first = 1;
    name_call_only = true;
  } else if (t.size() > 1 && IsIdentifier(t[0]) && t[1].kind == TokenKind::kOperator &&
             t[1].text == U"=") {
    value_first = 2;
    name_call_only = false;
  } else {
    return false;
  }
  if (value_first >= statement_end) return false;
  const Root value = Classify(t, value_first, statement_end - 1);
  if (value.kind != RootKind::kCall) return false;
  if (name_call_only) {
    const Root func = Classify(t, value.first, value.op - 1);
    if (func.first != func.last || !IsIdentifier(t[func.first])) return false;
  }
  const Segment segment(text);
  const Place begin = segment.At(t[value.first].begin);
  const Place finish = segment.At(t[value.last].end);
  return begin.line == 0 && finish.line == lines.size() - 1 &&
         ByteColumn(lines.front(), begin.col) == static_cast<size_t>(start) &&
         ByteColumn(lines.back(), finish.col) == static_cast<size_t>(end);
}

bool ShouldShowCarets(long start, long end, const std::vector<Text>& lines,
                      const std::optional<Anchors>& anchors) {
  if (CallIsTheWholeStatement(lines, start, end)) return false;
  if (anchors) return true;
  const Text& first = lines.front();
  const Text& last = lines.back();
  return !LeftStrip(first.substr(0, std::min<size_t>(start, first.size()))).empty() ||
         (static_cast<size_t>(end) < last.size() && !RightStrip(last.substr(end)).empty());
}

std::vector<std::string> SplitResult(const Text& text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n') {
      out.push_back(Encode(text.substr(start, i - start)));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> TracebackSourceLines313(const std::vector<std::string>& file_lines,
                                                 const SourcePosition& position) {
  if (!position.line) return {};
  const long count = (position.end_line ? *position.end_line : *position.line) - *position.line + 1;
  if (count <= 0) return {};  // an end before the line: no lines, Python prints none
  // FrameSummary._set_lines: each line rstripped, a missing one empty.
  Text original;
  for (long k = 0; k < std::min<long>(count, kMaxTracebackSpanLines); ++k) {
    const size_t index = static_cast<size_t>(k);
    if (index < file_lines.size()) original += RightStrip(Decode(file_lines[index]));
    original += U'\n';
  }
  const Text dedented = Dedent(original);
  if (Strip(dedented).empty()) return {};
  const Text first_stripped = Strip(original.substr(0, original.find(U'\n')));
  // Without every line of the span (longer than kMaxTracebackSpanLines, the
  // command's span lines spent, or a file shorter than the code says) the
  // drawing cannot be Python's: the first line only.
  if (!position.column || !position.end_column || count > kMaxTracebackSpanLines ||
      file_lines.size() < static_cast<size_t>(count)) {
    return {Encode(first_stripped)};
  }
  const std::vector<Text> original_lines = SplitLines(original);
  std::vector<Text> lines = SplitLines(dedented);
  if (lines.size() > static_cast<size_t>(count)) lines.resize(count);
  if (lines.empty() || original_lines.size() < static_cast<size_t>(count)) return {Encode(first_stripped)};
  const Text& first_line = original_lines.front();
  const Text& last_line = original_lines[count - 1];
  const long dedent = static_cast<long>(first_line.size() - lines.front().size());
  const long start = std::max(0L, CharacterOffset(Encode(first_line), *position.column) - dedent);
  const long end = std::max(0L, CharacterOffset(Encode(last_line), *position.end_column) - dedent);
  const long dp_start = Width(lines.front(), start);
  const long dp_end = Width(lines.back(), end);

  const Text joined = Join(lines);
  const size_t segment_end = joined.size() - lines.back().size() + end;
  const size_t segment_begin = std::min<size_t>(start, joined.size());
  const Text segment = segment_begin < std::min(segment_end, joined.size())
                           ? joined.substr(segment_begin, std::min(segment_end, joined.size()) - segment_begin)
                           : Text();
  std::optional<Anchors> anchors = FindAnchors(segment);
  if (anchors && (anchors->left_line >= lines.size() || anchors->right_line >= lines.size())) {
    anchors.reset();
  }
  const bool show_carets = ShouldShowCarets(start, end, lines, anchors);

  std::vector<size_t> significant = {0, lines.size() - 1};
  long left_offset = 0, right_offset = 0;
  char32_t primary = '^', secondary = '^';
  if (anchors) {
    left_offset = static_cast<long>(anchors->left_col) + (anchors->left_line == 0 ? start : 0);
    right_offset = static_cast<long>(anchors->right_col) + (anchors->right_line == 0 ? start : 0);
    left_offset = Width(lines[anchors->left_line], left_offset);
    right_offset = Width(lines[anchors->right_line], right_offset);
    primary = anchors->primary;
    secondary = anchors->secondary;
    for (size_t around : {anchors->left_line, anchors->right_line}) {
      for (size_t k = around == 0 ? 0 : around - 1; k <= around + 1; ++k) {
        if (k < lines.size()) significant.push_back(k);
      }
    }
  }
  std::sort(significant.begin(), significant.end());
  significant.erase(std::unique(significant.begin(), significant.end()), significant.end());

  Text result;
  auto output_line = [&](size_t k) {
    result += lines[k];
    result += U'\n';
    if (!show_carets) return;
    const long spaces = static_cast<long>(lines[k].size() - LeftStrip(lines[k]).size());
    const long carets = k == lines.size() - 1 ? dp_end : Width(lines[k]);
    for (long col = 0; col < carets; ++col) {
      const long line = static_cast<long>(k);
      if (col < spaces || (k == 0 && col < dp_start)) {
        result += U' ';
      } else if (anchors &&
                 (line > static_cast<long>(anchors->left_line) ||
                  (line == static_cast<long>(anchors->left_line) && col >= left_offset)) &&
                 (line < static_cast<long>(anchors->right_line) ||
                  (line == static_cast<long>(anchors->right_line) && col < right_offset))) {
        result += secondary;
      } else {
        result += primary;
      }
    }
    result += U"\n";
  };
  for (size_t i = 0; i < significant.size(); ++i) {
    if (i) {
      const size_t gap = significant[i] - significant[i - 1];
      if (gap == 2) output_line(significant[i] - 1);
      if (gap > 2) result += Decode("...<" + std::to_string(gap - 1) + " lines>...\n");
    }
    output_line(significant[i]);
  }
  return SplitResult(Dedent(result));
}

}  // namespace pyunwind
