// PrintableText: nothing a terminal would act on survives, everything else
// does, byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "core/base/printable.h"

namespace pyunwind {
namespace {

TEST(PrintableText, OrdinaryTextIsUnchanged) {
  EXPECT_EQ(PrintableText("/srv/app/worker.py"), "/srv/app/worker.py");
  EXPECT_EQ(PrintableText("/srv/λ_utils/größe🐍.py"), "/srv/λ_utils/größe🐍.py");
  EXPECT_EQ(PrintableText("Outer.<locals>.helper"), "Outer.<locals>.helper");
  EXPECT_EQ(PrintableText(""), "");
}

TEST(PrintableText, EscapeSequencesAndLineBreaksAreEscaped) {
  // A file name that would set the terminal's title and clear its screen.
  EXPECT_EQ(PrintableText("\x1b]0;PWNED-TITLE\x07\x1b[2J/evil.py"),
            "\\x1b]0;PWNED-TITLE\\x07\\x1b[2J/evil.py");
  // A task name that would colour the output and forge a new line.
  EXPECT_EQ(PrintableText("\x1b[31mRED\x1b[0m-task\r\nInjected line"),
            "\\x1b[31mRED\\x1b[0m-task\\r\\nInjected line");
  EXPECT_EQ(PrintableText("a\tb\x7f" "c"), "a\\tb\\x7fc");
  EXPECT_EQ(PrintableText(std::string("nul\0byte", 8)), "nul\\x00byte");
}

TEST(PrintableText, C1ControlsAreEscaped) {
  // U+009B is the one-character CSI of 8-bit terminals.
  EXPECT_EQ(PrintableText("x\xc2\x9b" "2Jy"), "x\\x9b2Jy");
  EXPECT_EQ(PrintableText("\xc2\x85"), "\\x85");
  EXPECT_EQ(PrintableText("\xc2\xa0"), "\xc2\xa0");  // NBSP is printable
}

TEST(PrintableText, BidiOverridesAndSeparatorsAreEscaped) {
  EXPECT_EQ(PrintableText("evil\xe2\x80\xaeyp.txt"), "evil\\u202eyp.txt");
  EXPECT_EQ(PrintableText("\xe2\x81\xa6x\xe2\x81\xa9"), "\\u2066x\\u2069");
  EXPECT_EQ(PrintableText("a\xe2\x80\xa8" "b"), "a\\u2028b");
}

TEST(PrintableText, InvalidUtf8IsEscapedBytewise) {
  EXPECT_EQ(PrintableText("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(PrintableText("\xc3"), "\\xc3");                 // cut short
  EXPECT_EQ(PrintableText("\xc0\xaf"), "\\xc0\\xaf");        // overlong '/'
  EXPECT_EQ(PrintableText("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // a surrogate
  EXPECT_EQ(PrintableText("ok\xe2\x82" "x"), "ok\\xe2\\x82x");
}

}  // namespace
}  // namespace pyunwind
