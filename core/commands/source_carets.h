// What Python's traceback module prints under a frame's `File ..., line N,
// in NAME` line: the stripped source line, and under it carets marking the
// expression the frame is running (PEP 657), from the columns of the
// location table. Python's own rules, quirks included
// (StackSummary.format_frame_summary and _extract_caret_anchors_from_line_segment
// of Lib/traceback.py): the caret line only when the span is not the whole
// stripped line; a binary operation or subscript as `~~~^~~~` / `~~~^^^^`;
// a span over several lines marked to the end of its first line.
#pragma once

#include <string>
#include <vector>

#include "core/layout/layout.h"
#include "core/walk/location_table.h"

namespace pyunwind {

// The lines (without "    " indent or newline) Python prints for a frame at
// `position` whose source line is `line_text` (its text without the line
// end, as read from the file): none when the line is blank, else the
// stripped line and, where Python shows one, the caret line.
std::vector<std::string> TracebackSourceLines(const std::string& line_text,
                                              const SourcePosition& position,
                                              TracebackCaretRules rules);

// Python's str.strip() of a line (whitespace as str.isspace() knows it).
std::string StripPythonWhitespace(const std::string& text);

}  // namespace pyunwind
