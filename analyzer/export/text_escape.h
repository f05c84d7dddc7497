// String escaping for the exporters: JSON string literals and HTML/SVG text.
//
// Kernel names, NVTX messages and command lines come from the traced
// application and may hold quotes, backslashes, control characters, '<' and
// '&', or bytes that are not valid UTF-8. Both escapers always produce valid
// UTF-8: an invalid byte becomes U+FFFD (one per byte that cannot start or
// continue a well-formed sequence). Pure functions; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_TEXT_ESCAPE_H_
#define STREAMSCOPE_ANALYZER_EXPORT_TEXT_ESCAPE_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace streamscope {

// Appends `s` as a JSON string literal, quotes included. Escapes '"', '\\'
// and control characters (U+0000..U+001F as \b \f \n \r \t or \u00XX, and
// U+007F as \u007f); also escapes '<' as \u003c so the text can sit inside an
// HTML <script> element.
void AppendJsonString(std::string_view s, std::string* out);
std::string JsonString(std::string_view s);

// Appends `s` escaped for HTML text and attribute values (& < > " ').
// Control characters other than tab and newline become U+FFFD as well
// (they are not allowed in XML/SVG).
void AppendHtmlEscaped(std::string_view s, std::string* out);
std::string HtmlEscaped(std::string_view s);

// The first `n` bytes of `s`, cut back to a whole UTF-8 sequence, with "…"
// appended when anything was cut; `s` itself when it fits.
std::string TruncatedUtf8(std::string_view s, size_t n);

// Length of the well-formed UTF-8 sequence at s[0] (1..4), or 0 if s[0]
// does not start one. s must be non-empty.
int Utf8SequenceLength(std::string_view s);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_TEXT_ESCAPE_H_
