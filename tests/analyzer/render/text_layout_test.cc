// Names shortened at the end and long report lines wrapped outside
// quoted names (analyzer/render/text_layout.h).
#include "analyzer/render/text_layout.h"

#include <string>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

TEST(TextLayout, AShortNameStaysWhole) { EXPECT_EQ(ShortenName("saxpy", 60), "saxpy"); }

TEST(TextLayout, ALongNameIsCutAtTheEndNeverInTheMiddle) {
  std::string name = "void gemm_kernel<float, 128, 128>(float const*, int)";
  std::string s = ShortenName(name, 30);
  EXPECT_EQ(s, "void gemm_kernel<float, 128...");
  EXPECT_EQ(TextColumns(s), 30u);
}

TEST(TextLayout, ShorteningNeverSplitsAUtf8Character) {
  std::string name;
  for (int i = 0; i < 40; ++i) name += "\xC3\xA9";  // é
  std::string s = ShortenName(name, 11);
  EXPECT_EQ(TextColumns(s), 11u);
  EXPECT_EQ(s, "\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9...");
}

TEST(TextLayout, ALineThatFitsIsUnchanged) {
  EXPECT_EQ(WrapLines("  short line\nsecond\n", 20), "  short line\nsecond\n");
}

TEST(TextLayout, ALongLineBreaksAtSpacesWithAnIndentedContinuation) {
  EXPECT_EQ(WrapLines("  aaaa bbbb cccc dddd eeee\n", 15), "  aaaa bbbb\n      cccc dddd\n      eeee\n");
}

TEST(TextLayout, AQuotedNameIsNeverBroken) {
  std::string wrapped = WrapLines("x kernel 'a b c d e f' ends here", 14);
  EXPECT_NE(wrapped.find("'a b c d e f'"), std::string::npos) << wrapped;
}

TEST(TextLayout, AnApostropheInAWordDoesNotStopBreaking) {
  EXPECT_EQ(WrapLines("the chunk's copies ran late today", 18), "the chunk's copies\n    ran late today");
}

TEST(TextLayout, AWordLongerThanTheLineStaysWhole) {
  EXPECT_EQ(WrapLines("a 0123456789abcdef b", 8), "a\n    0123456789abcdef\n    b");
}

TEST(TextLayout, AParagraphWrapsUnderItsIndent) {
  std::vector<std::string> lines = WrapParagraph("one two three four", 14, "  - ", "    ");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "  - one two");
  EXPECT_EQ(lines[1], "    three four");
}

}  // namespace
}  // namespace streamscope
