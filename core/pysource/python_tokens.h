// Enough of Python's tokens and expression shapes for the traceback module's
// caret anchors (source_carets.*): the text as code points, str.isspace(),
// str.strip(), the top-level tokens of one expression and where its nodes
// start and end as ast would say.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pyunwind::pysrc {

using Text = std::u32string;

// UTF-8 to code points; an invalid byte becomes U+FFFD, as bytes.decode(errors="replace").
Text Decode(const std::string& utf8);
std::string Encode(const Text& text);

// str.isspace(): the ASCII blanks, the separators Python counts, and the Unicode spaces.
bool IsSpace(char32_t c);
Text Strip(const Text& text);

// _byte_offset_to_character_offset: characters in the first `offset` bytes.
int CharacterOffset(const std::string& utf8, int offset);

// East Asian width W or F: two cells on a terminal (_display_width).
bool IsWide(char32_t c);

enum class TokenKind { kOperand, kOperator, kOpen, kClose, kComma, kKeyword, kOther };

struct Token {
  TokenKind kind;
  size_t begin, end;  // character offsets in the text
  Text text;
  size_t match = SIZE_MAX;  // for brackets: the index of the other one
};

// Python's tokens, enough to see the top level of one expression. Nullopt
// where the text is not one well-formed expression (unclosed brackets,
// unknown characters, a comment unless `comments`): Python then shows no
// anchors either. Newlines count as blanks (the text is inside brackets).
std::optional<std::vector<Token>> Tokenize(const Text& s, bool comments);

// Binding strength of a binary operator (higher binds tighter); 0 = none.
int BinaryLevel(const Text& op);

bool EndsOperand(const Token& t);

// Whether the '(' at `open` groups (follows no operand: not a call, not a tuple).
bool IsGroupingParen(const std::vector<Token>& tokens, size_t open);

// end_col_offset / col_offset of the expression whose last / first token is
// given: grouping parentheses are not part of the node.
size_t ExpressionEnd(const std::vector<Token>& tokens, size_t last);
size_t ExpressionStart(const std::vector<Token>& tokens, size_t first);

}  // namespace pyunwind::pysrc
