#include "core/pysource/python_tokens.h"

#include "core/base/utf8.h"

namespace pyunwind::pysrc {
namespace {

bool IsNameChar(char32_t c) {
  return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         c >= 0x80;
}

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

}  // namespace


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

std::optional<std::vector<Token>> Tokenize(const Text& s, bool comments) {
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
    if (c == '#') {
      if (!comments) return std::nullopt;
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
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
        if (!triple && s[i] == '\n') return std::nullopt;
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
bool IsWide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115f) || (c >= 0x2e80 && c <= 0x303e) ||
         (c >= 0x3041 && c <= 0x33ff) || (c >= 0x3400 && c <= 0x4dbf) ||
         (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xa000 && c <= 0xa4cf) ||
         (c >= 0xac00 && c <= 0xd7a3) || (c >= 0xf900 && c <= 0xfaff) ||
         (c >= 0xfe30 && c <= 0xfe4f) || (c >= 0xff00 && c <= 0xff60) ||
         (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1f300 && c <= 0x1f64f) ||
         (c >= 0x1f900 && c <= 0x1f9ff) || (c >= 0x20000 && c <= 0x3fffd);
}

}  // namespace pyunwind::pysrc
