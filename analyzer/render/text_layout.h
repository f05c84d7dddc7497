// How text output fits a terminal: names shortened at the end (a demangled
// kernel name starts with what tells it apart) and long lines wrapped at spaces outside quoted names. Widths count
// UTF-8 code points, one column each. Pure functions; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_RENDER_TEXT_LAYOUT_H_
#define STREAMSCOPE_ANALYZER_RENDER_TEXT_LAYOUT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace streamscope {

// Lines of `report` text are wrapped at this width; quoted names are
// shortened to kMaxNameColumns, so only a name longer than a line can pass it.
inline constexpr size_t kReportTextColumns = 120;
inline constexpr size_t kMaxNameColumns = 60;

// Columns `text` takes (UTF-8 code points).
size_t TextColumns(std::string_view text);

// `name` when it fits in max_columns; else its start and "..." in
// max_columns (never splitting a UTF-8 character). Names are cut at the
// end, never in the middle: a demangled signature starts with what tells
// kernels apart, and the full name is in JSON, CSV and the saved tables:
// ShortenName("void gemm_kernel<float, 128, 128>(float const*, int)", 30)
//   == "void gemm_kernel<float, 128...".
std::string ShortenName(std::string_view name, size_t max_columns = kMaxNameColumns);

// Every line of `text` longer than `width` broken at its last spaces that
// fit and do not lie inside a quoted name ('...'); continuation lines get
// the line's own indentation plus 4 spaces. A word longer than the line
// stays whole.
std::string WrapLines(std::string_view text, size_t width = kReportTextColumns);

// `text` as lines of at most `width` columns, the first prefixed by
// `first_indent`, the others by `indent`.
std::vector<std::string> WrapParagraph(std::string_view text, size_t width, std::string_view first_indent,
                                       std::string_view indent);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_TEXT_LAYOUT_H_
