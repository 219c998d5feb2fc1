#include "core/pysource/source_carets.h"

#include <algorithm>
#include <optional>

#include "core/pysource/python_tokens.h"

namespace pyunwind {
namespace {

using namespace pysrc;  // NOLINT: this file is its client

struct Anchors {
  size_t left_end = 0;     // characters of the segment before the secondary part
  size_t right_start = 0;  // where the primary part resumes
};

std::optional<Anchors> FindAnchors(const Text& segment, TracebackCaretRules rules) {
  auto tokens = Tokenize(segment, /*comments=*/false);
  if (!tokens || tokens->empty()) return std::nullopt;
  const std::vector<Token>& t = *tokens;
  // The top level: what is outside every bracket.
  std::vector<size_t> top;
  for (size_t k = 0; k < t.size(); ++k) {
    top.push_back(k);
    if (t[k].kind == TokenKind::kOpen) k = t[k].match;
  }
  int lowest = 99;
  for (size_t k : top) {
    const Token& tok = t[k];
    if (tok.kind == TokenKind::kKeyword || tok.kind == TokenKind::kComma) return std::nullopt;
    if (tok.kind == TokenKind::kOperator) {
      const int level = BinaryLevel(tok.text);
      const bool binary = level > 0 && k > 0 && EndsOperand(t[k - 1]);
      if (binary) {
        lowest = std::min(lowest, level);
      } else if (tok.text != U"-" && tok.text != U"+" && tok.text != U"~" && tok.text != U".") {
        return std::nullopt;  // comparisons, ':', '=', ...: not a BinOp or Subscript
      }
    }
  }
  if (lowest != 99) {
    // A leading unary operator binds looser than '**' only.
    if (lowest == 8 && t[0].kind == TokenKind::kOperator) return std::nullopt;
    // The root operator: the last of the lowest level ('**' associates to the right: the first).
    size_t op = SIZE_MAX;
    for (size_t k : top) {
      if (t[k].kind != TokenKind::kOperator || k == 0 || !EndsOperand(t[k - 1])) continue;
      if (BinaryLevel(t[k].text) != lowest) continue;
      op = k;
      if (lowest == 8) break;
    }
    if (op == SIZE_MAX || op + 1 >= t.size()) return std::nullopt;
    const size_t left_end = ExpressionEnd(t, op - 1);
    const size_t right_start = ExpressionStart(t, op + 1);
    const Text between = segment.substr(left_end, right_start - left_end);
    size_t offset = 0;
    while (offset < between.size() && IsSpace(between[offset])) ++offset;
    size_t left = left_end + offset;
    size_t right = left + 1;
    if (offset + 1 < between.size() && !IsSpace(between[offset + 1])) ++right;
    if (rules == TracebackCaretRules::kPython312) {
      while (left < segment.size() &&
             (IsSpace(segment[left]) || segment[left] == ')' || segment[left] == '#')) {
        ++left;
        ++right;
      }
    }
    return Anchors{left, right};
  }
  // A subscript: the segment ends with ']' whose '[' follows an operand.
  const size_t last = t.size() - 1;
  if (t[last].text != U"]") return std::nullopt;
  const size_t open = t[last].match;
  if (open == 0 || !EndsOperand(t[open - 1])) return std::nullopt;
  if (t[0].kind == TokenKind::kOperator && t[0].text != U".") return std::nullopt;  // -a[0]
  if (open + 1 == last) return std::nullopt;  // a[]: not an expression
  size_t left = ExpressionEnd(t, open - 1);
  size_t right = ExpressionEnd(t, last - 1) + 1;
  if (rules == TracebackCaretRules::kPython312) {
    while (left < segment.size() && segment[left] != '[') ++left;
    while (right < segment.size() && segment[right] != ']') ++right;
    if (right < segment.size()) ++right;
  }
  return Anchors{left, right};
}

// 3.12's _display_width of text[:offset]; an offset past the text counts
// its excess as one cell each.
long DisplayWidth(const Text& text, long offset) {
  long width = 0;
  for (long k = 0; k < offset && k < static_cast<long>(text.size()); ++k) {
    width += IsWide(text[k]) ? 2 : 1;
  }
  return width + std::max<long>(0, offset - static_cast<long>(text.size()));
}

}  // namespace

std::string StripPythonWhitespace(const std::string& text) { return Encode(Strip(Decode(text))); }

std::vector<std::string> TracebackSourceLines(const std::vector<std::string>& lines,
                                              const SourcePosition& position,
                                              TracebackCaretRules rules) {
  if (rules == TracebackCaretRules::kPython313) return TracebackSourceLines313(lines, position);
  const std::string line_text = lines.empty() ? std::string() : lines.front();
  // linecache gives the line with its '\n', which the traceback module counts.
  const std::string original_utf8 = line_text + "\n";
  const Text original = Decode(original_utf8);
  const Text stripped = Strip(original);
  if (stripped.empty()) return {};
  std::vector<std::string> out = {Encode(stripped)};
  if (!position.column || !position.end_column || !position.line) return out;
  const long stripped_characters = static_cast<long>(original.size() - stripped.size());
  const long length = static_cast<long>(stripped.size());
  const bool one_line = position.end_line && *position.end_line == *position.line;
  long start = CharacterOffset(original_utf8, *position.column);
  long end = CharacterOffset(original_utf8, *position.end_column);
  std::optional<Anchors> anchors;
  Text segment;
  if (end > start) segment = original.substr(start, end - start);
  if (one_line && end >= start) anchors = FindAnchors(segment, rules);
  Text carets;
  if (rules == TracebackCaretRules::kPython311) {
    // 3.11 counts from 1, and a multi-line span to the end of the stripped line.
    ++start;
    ++end;
    if (!one_line) end = stripped_characters + length;
    if (!(end - start < length || (anchors && anchors->right_start > anchors->left_end))) return out;
    carets.append(start - stripped_characters > 0 ? start - stripped_characters : 0, U' ');
  } else {
    if (!one_line) {
      Text rstripped = original;
      while (!rstripped.empty() && IsSpace(rstripped.back())) rstripped.pop_back();
      end = static_cast<long>(rstripped.size());
    }
    if (!(end - start < length || (anchors && anchors->right_start > anchors->left_end))) return out;
    const long dp_start = DisplayWidth(original, start) + 1;
    const long dp_end = DisplayWidth(original, end) + 1;
    carets.append(dp_start - stripped_characters > 0 ? dp_start - stripped_characters : 0, U' ');
    if (anchors) {
      const long left = DisplayWidth(segment, static_cast<long>(anchors->left_end));
      const long right = DisplayWidth(segment, static_cast<long>(anchors->right_start));
      if (left > 0) carets.append(left, U'~');
      if (right - left > 0) carets.append(right - left, U'^');
      if (dp_end - dp_start - right > 0) carets.append(dp_end - dp_start - right, U'~');
    } else if (dp_end - dp_start > 0) {
      carets.append(dp_end - dp_start, U'^');
    }
    out.push_back(Encode(carets));
    return out;
  }
  const long span = end - start;
  if (anchors) {
    const long left = static_cast<long>(anchors->left_end);
    const long right = static_cast<long>(anchors->right_start);
    if (left > 0) carets.append(left, U'~');
    if (right - left > 0) carets.append(right - left, U'^');
    if (span - right > 0) carets.append(span - right, U'~');
  } else if (span > 0) {
    carets.append(span, U'^');
  }
  out.push_back(Encode(carets));
  return out;
}

}  // namespace pyunwind
