// What Python's traceback module prints under a frame's `File ..., line N,
// in NAME` line: the stripped source line, and under it carets marking the
// expression the frame is running (PEP 657), from the columns of the
// location table. Python's own rules, quirks included
// (StackSummary.format_frame_summary and _extract_caret_anchors_from_line_segment
// of Lib/traceback.py): on 3.11 and 3.12 the caret line only when the span
// is not the whole stripped line; a binary operation or subscript as
// `~~~^~~~` / `~~~^^^^`; a span over several lines marked to the end of its
// first line. 3.13's rules are in source_carets_313.cc.
#pragma once

#include <string>
#include <vector>

#include "core/layout/layout.h"
#include "core/walk/location_table.h"

namespace pyunwind {

// The lines (without "    " indent or newline) Python prints for a frame at
// `position`. `lines` holds line `position.line` of the file (its text
// without the line end) and, for a span over several lines, the lines after
// it up to its end line, fewer where the file ends. None when the line is
// blank, else the stripped line and, where Python shows one, the caret line;
// 3.13+ rules may show several lines of the span, each with its carets.
std::vector<std::string> TracebackSourceLines(const std::vector<std::string>& lines,
                                              const SourcePosition& position,
                                              TracebackCaretRules rules);

// 3.13+'s rules (source_carets_313.cc).
std::vector<std::string> TracebackSourceLines313(const std::vector<std::string>& lines,
                                                 const SourcePosition& position);

// Python's str.strip() of a line (whitespace as str.isspace() knows it).
std::string StripPythonWhitespace(const std::string& text);

}  // namespace pyunwind
