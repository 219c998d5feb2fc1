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

TEST(PrintableText, FormatCharactersAreEscapedAsPythonsReprShowsThem) {
  EXPECT_EQ(PrintableText("a\xe2\x80\x8b" "b"), "a\\u200bb");         // zero-width space
  EXPECT_EQ(PrintableText("\xe2\x80\x8f\xd8\x9c"), "\\u200f\\u061c");  // RLM, ALM
  EXPECT_EQ(PrintableText("soft\xc2\xad" "hyphen"), "soft\\xadhyphen");
  EXPECT_EQ(PrintableText("\xef\xbb\xbfx"), "\\ufeffx");              // BOM
  EXPECT_EQ(PrintableText("\xf3\xa0\x80\x81"), "\\U000e0001");       // LANGUAGE TAG
  EXPECT_EQ(PrintableText("\xf0\x9d\x85\xb3"), "\\U0001d173");
}

TEST(IsUnsafeCodePoint, EveryRangeAndItsNeighbours) {
  for (uint32_t c : {0x00u, 0x1Fu, 0x7Fu, 0x80u, 0x9Fu, 0xADu, 0x600u, 0x605u, 0x61Cu, 0x6DDu,
                     0x70Fu, 0x180Eu, 0x200Bu, 0x200Du, 0x200Eu, 0x200Fu, 0x2028u, 0x2029u,
                     0x202Au, 0x202Eu, 0x2060u, 0x2064u, 0x2066u, 0x2069u, 0x206Au, 0x206Fu,
                     0xFEFFu, 0xFFF9u, 0xFFFBu, 0x110BDu, 0x1D173u, 0x1D17Au, 0xE0001u,
                     0xE0020u, 0xE007Fu}) {
    EXPECT_TRUE(IsUnsafeCodePoint(c)) << std::hex << c;
  }
  for (uint32_t c : {0x20u, 0x7Eu, 0xA0u, 0xACu, 0xAEu, 0x606u, 0x200Au, 0x2010u, 0x2027u,
                     0x202Fu, 0x2065u, 0x2070u, 0xFFFDu, 0x1F40Du, 0xE0000u, 0xE0080u,
                     0x10FFFFu}) {
    EXPECT_FALSE(IsUnsafeCodePoint(c)) << std::hex << c;
  }
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
