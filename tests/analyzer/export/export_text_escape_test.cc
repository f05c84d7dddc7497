// Escaping of application-supplied strings (kernel names, NVTX messages)
// for the JSON and HTML exporters.
#include <random>
#include <string>

#include "analyzer/export/text_escape.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace streamscope {
namespace {

TEST(JsonEscape, PlainTextIsQuotedUnchanged) { EXPECT_EQ(JsonString("vector_add"), "\"vector_add\""); }

TEST(JsonEscape, QuotesBackslashesAndControlCharactersAreEscaped) {
  EXPECT_EQ(JsonString("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(JsonString("\n\t\r\b\f"), R"("\n\t\r\b\f")");
  EXPECT_EQ(JsonString(std::string("\x01\x1f\x7f", 3)), R"("\u0001\u001f\u007f")");
  EXPECT_EQ(JsonString(std::string("a\0b", 3)), R"("a\u0000b")");
}

TEST(JsonEscape, LessThanIsEscapedSoTextCanSitInsideScript) {
  EXPECT_EQ(JsonString("</script>"), R"("\u003c/script>")");
}

TEST(JsonEscape, ValidUtf8IsKept) {
  EXPECT_EQ(JsonString("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
}

TEST(JsonEscape, InvalidUtf8BytesBecomeReplacementCharacters) {
  EXPECT_EQ(JsonString("a\xff"
                       "b"),
            "\"a\xEF\xBF\xBD"
            "b\"");
  EXPECT_EQ(JsonString("\xc3"), "\"\xEF\xBF\xBD\"");                                  // truncated sequence
  EXPECT_EQ(JsonString("\xed\xa0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // surrogate
  EXPECT_EQ(JsonString("\xc0\xaf"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");                  // overlong
}

TEST(JsonEscape, AnyBytesGiveJsonThatParsesBack) {
  std::mt19937 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::string s(rng() % 40, '\0');
    for (char& c : s) c = static_cast<char>(rng() % 256);
    std::string json = JsonString(s);
    nlohmann::json parsed;
    ASSERT_NO_THROW(parsed = nlohmann::json::parse(json)) << json;
    ASSERT_TRUE(parsed.is_string());
  }
}

TEST(JsonEscape, ValidUtf8RoundTripsExactly) {
  const std::string s = "k<\"\\\x01\n\xc3\xa9\xf0\x9f\x98\x80>";
  EXPECT_EQ(nlohmann::json::parse(JsonString(s)).get<std::string>(), s);
}

TEST(HtmlEscape, MarkupCharactersAreEscaped) {
  EXPECT_EQ(HtmlEscaped("<b a=\"1\" b='2'>&</b>"), "&lt;b a=&quot;1&quot; b=&#39;2&#39;&gt;&amp;&lt;/b&gt;");
}

TEST(HtmlEscape, ControlCharactersAndInvalidUtf8BecomeReplacementCharacters) {
  EXPECT_EQ(HtmlEscaped(std::string("a\x01\tb\n\xff", 6)), "a\xEF\xBF\xBD\tb\n\xEF\xBF\xBD");
}

TEST(Utf8, SequenceLengths) {
  EXPECT_EQ(Utf8SequenceLength("a"), 1);
  EXPECT_EQ(Utf8SequenceLength("\xc3\xa9"), 2);
  EXPECT_EQ(Utf8SequenceLength("\xe2\x82\xac"), 3);
  EXPECT_EQ(Utf8SequenceLength("\xf0\x9f\x98\x80"), 4);
  EXPECT_EQ(Utf8SequenceLength("\xf4\x90\x80\x80"), 0);  // above U+10FFFF
  EXPECT_EQ(Utf8SequenceLength("\x80"), 0);
}

}  // namespace
}  // namespace streamscope
