// Text the target chose (file names, function and task names, thread names,
// reprs, source lines) made safe to write to a terminal: whoever can make a
// process, or hand over a core, must not be able to drive the terminal of the
// person who inspects it (set its title, clear it, forge output lines).
#pragma once

#include <string>
#include <string_view>

namespace pyunwind {

// `text` with every character a terminal would act on escaped the way
// Python's repr() shows it: C0 controls and DEL as \xNN (\t, \n, \r as
// such), C1 controls (U+0080-U+009F) as \xNN, bidirectional overrides and
// isolates (U+202A-U+202E, U+2066-U+2069) and the line/paragraph separators
// (U+2028, U+2029) as \uNNNN, and each byte of invalid UTF-8 as \xNN. A
// backslash stays a backslash: the output is for people, not for parsing
// (JSON output escapes on its own).
std::string PrintableText(std::string_view text);
// The same appended to `out`, with no string of its own.
void AppendPrintable(std::string& out, std::string_view text);

}  // namespace pyunwind
