// Text the target chose (file names, function and task names, thread names,
// reprs, source lines) made safe to write to a terminal: whoever can make a
// process, or hand over a core, must not be able to drive the terminal of the
// person who inspects it (set its title, clear it, forge output lines), nor
// make text read other than it is (bidi overrides, invisible characters).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pyunwind {

// Whether the code point `c` is escaped wherever text the target chose is shown, in text
// (PrintableText) and in JSON (core/render/json_string.h) alike: the controls (C0, DEL, C1),
// the line and paragraph separators (U+2028, U+2029), and every format character (Unicode
// general category Cf, Unicode 15: the bidi marks, embeddings, overrides and isolates, the
// zero-width characters, U+00AD, U+FEFF, the tags U+E0001 and U+E0020-U+E007F, ...).
bool IsUnsafeCodePoint(uint32_t c);

// `text` with every unsafe code point (IsUnsafeCodePoint) escaped the way Python's repr()
// shows it: below U+0100 as \xNN (\t, \n, \r as such), below U+10000 as \uNNNN, above as
// \UNNNNNNNN; and each byte of invalid UTF-8 as \xNN. A backslash stays a backslash: the
// output is for people, not for parsing (JSON output escapes on its own).
std::string PrintableText(std::string_view text);
// The same appended to `out`, with no string of its own.
void AppendPrintable(std::string& out, std::string_view text);

}  // namespace pyunwind
