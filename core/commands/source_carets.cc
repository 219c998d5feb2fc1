#include "core/commands/source_carets.h"

#include <algorithm>
#include <optional>

#include "core/objects/objects.h"

namespace pyunwind {
namespace {

using Text = std::u32string;

// UTF-8 to code points; an invalid byte becomes U+FFFD, as bytes.decode(errors="replace").
Text Decode(const std::string& utf8) {
  Text out;
  for (size_t i = 0; i < utf8.size();) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    int extra = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    uint32_t cp = extra == 0 ? c : extra == 1 ? (c & 0x1f) : extra == 2 ? (c & 0x0f) : (c & 0x07);
    bool ok = extra >= 0 && i + extra < utf8.size() + (extra == 0 ? 1 : 0);
    for (int k = 1; ok && k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(utf8[i + k]);
      if ((next >> 6) != 2) ok = false;
      cp = (cp << 6) | (next & 0x3f);
    }
    if (!ok) {
      out += U'\uFFFD';
      ++i;
      continue;
    }
    out += cp;
    i += 1 + extra;
  }
  return out;
}

std::string Encode(const Text& text) {
  std::string out;
  for (char32_t c : text) AppendUtf8(out, c);
  return out;
}

// str.isspace(): the ASCII blanks, the separators Python counts, and the
// Unicode spaces.
bool IsSpace(char32_t c) {
  return (c >= 9 && c <= 13) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 ||
         c == 0x202f || c == 0x205f || c == 0x3000;
}

Text Strip(const Text& text) {
  size_t begin = 0, end = text.size();
  while (begin < end && IsSpace(text[begin])) ++begin;
  while (end > begin && IsSpace(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

// _byte_offset_to_character_offset: characters in the first `offset` bytes.
int CharacterOffset(const std::string& utf8, int offset) {
  if (offset < 0) offset = 0;
  if (static_cast<size_t>(offset) > utf8.size()) offset = static_cast<int>(utf8.size());
  return static_cast<int>(Decode(utf8.substr(0, offset)).size());
}

// ---- Where the operator of a binary operation, or the brackets of a
// subscript, are in a one-line expression: what ast.parse tells Python.

enum class TokenKind { kOperand, kOperator, kOpen, kClose, kComma, kKeyword, kOther };

struct Token {
  TokenKind kind;
  size_t begin, end;  // character offsets in the segment
  Text text;
  size_t match = SIZE_MAX;  // for brackets: the index of the other one
};

bool IsNameChar(char32_t c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c >= 0x80;
}

// Python's tokens, enough to see the top level of one expression. Nullopt
// where the segment is not one well-formed expression (unclosed brackets,
// comments, unknown characters): Python then shows no anchors either.
std::optional<std::vector<Token>> Tokenize(const Text& s) {
  // Words that make the segment something else than a BinOp or Subscript
  // expression (a statement, a comparison, a conditional, ...).
  static const std::u32string kKeywordOperators[] = {
      U"and", U"or", U"not", U"in", U"is", U"if", U"else", U"lambda", U"for", U"await",
      U"yield", U"async", U"return", U"del", U"assert", U"raise", U"pass", U"import", U"from",
      U"global", U"nonlocal", U"with", U"while", U"def", U"class", U"try", U"except",
      U"finally", U"elif", U"break", U"continue", U"as", U"match", U"case", U"type"};
  static const std::u32string kOperators[] = {U"**", U"//", U"<<", U">>", U"<=", U">=", U"==",
                                              U"!=", U":=", U"->", U"+", U"-", U"*", U"/",
                                              U"%", U"@", U"|", U"&", U"^", U"~", U"<", U">",
                                              U":", U"=", U".", U";"};
  std::vector<Token> tokens;
  std::vector<size_t> open;
  size_t i = 0;
  while (i < s.size()) {
    const char32_t c = s[i];
    if (IsSpace(c) || c == '\\') {
      ++i;
      continue;
    }
    if (c == '#') return std::nullopt;
    const size_t begin = i;
    if (IsNameChar(c)) {
      const bool number = (c >= '0' && c <= '9');
      while (i < s.size() && (IsNameChar(s[i]) || (number && s[i] == '.') ||
                              (number && (s[i] == '+' || s[i] == '-') &&
                               (s[i - 1] == 'e' || s[i - 1] == 'E')))) {
        ++i;
      }
      // A string prefix (r, b, f, rb, ...) runs into its quote.
      if (!number && i < s.size() && (s[i] == '\'' || s[i] == '"') && i - begin <= 2) {
        // fall through to the string below, starting at the prefix
      } else {
        Text word = s.substr(begin, i - begin);
        bool keyword = false;
        for (const auto& k : kKeywordOperators) keyword |= word == k;
        tokens.push_back({keyword ? TokenKind::kKeyword : TokenKind::kOperand, begin, i, word});
        continue;
      }
    }
    if (s[i] == '\'' || s[i] == '"') {
      const char32_t quote = s[i];
      const bool triple = i + 2 < s.size() && s[i + 1] == quote && s[i + 2] == quote;
      i += triple ? 3 : 1;
      bool closed = false;
      while (i < s.size()) {
        if (s[i] == '\\') {
          i += 2;
          continue;
        }
        if (s[i] == quote && (!triple || (i + 2 < s.size() && s[i + 1] == quote && s[i + 2] == quote))) {
          i += triple ? 3 : 1;
          closed = true;
          break;
        }
        ++i;
      }
      if (!closed) return std::nullopt;
      tokens.push_back({TokenKind::kOperand, begin, i, s.substr(begin, i - begin)});
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      open.push_back(tokens.size());
      tokens.push_back({TokenKind::kOpen, i, i + 1, Text(1, c)});
      ++i;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') {
      if (open.empty()) return std::nullopt;
      const size_t o = open.back();
      open.pop_back();
      const char32_t want = c == ')' ? '(' : c == ']' ? '[' : '{';
      if (tokens[o].text[0] != want) return std::nullopt;
      tokens[o].match = tokens.size();
      tokens.push_back({TokenKind::kClose, i, i + 1, Text(1, c), o});
      ++i;
      continue;
    }
    if (c == ',') {
      tokens.push_back({TokenKind::kComma, i, i + 1, Text(1, c)});
      ++i;
      continue;
    }
    bool matched = false;
    for (const auto& op : kOperators) {
      if (s.compare(i, op.size(), op) == 0) {
        tokens.push_back({TokenKind::kOperator, i, i + op.size(), op});
        i += op.size();
        matched = true;
        break;
      }
    }
    if (!matched) return std::nullopt;
  }
  if (!open.empty()) return std::nullopt;
  return tokens;
}

// Binding strength of a binary operator (higher binds tighter); 0 = none.
int BinaryLevel(const Text& op) {
  if (op == U"|") return 1;
  if (op == U"^") return 2;
  if (op == U"&") return 3;
  if (op == U"<<" || op == U">>") return 4;
  if (op == U"+" || op == U"-") return 5;
  if (op == U"*" || op == U"/" || op == U"//" || op == U"%" || op == U"@") return 6;
  if (op == U"**") return 8;
  return 0;
}

bool EndsOperand(const Token& t) { return t.kind == TokenKind::kOperand || t.kind == TokenKind::kClose; }

// A parenthesised part that is a tuple or generator (its node includes the
// parentheses), not a grouping (its node is what is inside).
bool ParensBelongToNode(const std::vector<Token>& tokens, size_t open) {
  const size_t close = tokens[open].match;
  if (close == open + 1) return true;  // ()
  int depth = 0;
  for (size_t k = open + 1; k < close; ++k) {
    if (tokens[k].kind == TokenKind::kOpen) ++depth;
    if (tokens[k].kind == TokenKind::kClose) --depth;
    if (depth == 0 && (tokens[k].kind == TokenKind::kComma ||
                       (tokens[k].kind == TokenKind::kKeyword && tokens[k].text == U"for"))) {
      return true;
    }
  }
  return false;
}

// Whether the '(' at `open` groups (follows no operand: not a call).
bool IsGroupingParen(const std::vector<Token>& tokens, size_t open) {
  if (tokens[open].text != U"(") return false;
  if (open > 0 && EndsOperand(tokens[open - 1])) return false;
  return !ParensBelongToNode(tokens, open);
}

// end_col_offset of the expression whose last token is `last`: grouping
// parentheses are not part of the node.
size_t ExpressionEnd(const std::vector<Token>& tokens, size_t last) {
  while (tokens[last].kind == TokenKind::kClose && IsGroupingParen(tokens, tokens[last].match)) {
    last = last - 1;
  }
  return tokens[last].end;
}

// col_offset of the expression whose first token is `first`.
size_t ExpressionStart(const std::vector<Token>& tokens, size_t first) {
  while (tokens[first].kind == TokenKind::kOpen && IsGroupingParen(tokens, first)) ++first;
  return tokens[first].begin;
}

struct Anchors {
  size_t left_end = 0;     // characters of the segment before the secondary part
  size_t right_start = 0;  // where the primary part resumes
};

std::optional<Anchors> FindAnchors(const Text& segment, TracebackCaretRules rules) {
  auto tokens = Tokenize(segment);
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

// 3.12's _display_width: wide (W) and full-width (F) characters count twice
// on a terminal; an all-ASCII text counts its characters.
bool IsWide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) ||
         (c >= 0x3041 && c <= 0x33ff) || (c >= 0x3400 && c <= 0x4dbf) ||
         (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xa000 && c <= 0xa4cf) ||
         (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
         (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
         (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
         (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd);
}

long DisplayWidth(const Text& text, long offset) {
  long width = 0;
  for (long k = 0; k < offset && k < static_cast<long>(text.size()); ++k) {
    width += IsWide(text[k]) ? 2 : 1;
  }
  return width + std::max<long>(0, offset - static_cast<long>(text.size()));
}

}  // namespace

std::string StripPythonWhitespace(const std::string& text) { return Encode(Strip(Decode(text))); }

std::vector<std::string> TracebackSourceLines(const std::string& line_text,
                                              const SourcePosition& position,
                                              TracebackCaretRules rules) {
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
