// The colours of the HTML report: one table of meaning -> colour, from which
// the page's colour rules and its legend are written, so that no meaning has
// two colours and no colour two meanings. The colours are chosen to be told
// apart: every two of them, and each against the row backgrounds, differ by
// at least kMinPaletteDeltaE00 (CIEDE2000), checked by a test.
// Pure data; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_HTML_PALETTE_H_
#define STREAMSCOPE_ANALYZER_EXPORT_HTML_PALETTE_H_

#include <span>
#include <string>
#include <string_view>

namespace streamscope {

struct PaletteEntry {
  std::string_view meaning;    // legend text: "compute", "gap: round_trip"
  std::string_view selectors;  // CSS selectors of the shapes drawn in it
  std::string_view rgb;        // "#4b77b0"
  bool line = false;           // drawn as a line marker (the legend shows a line)
};

// Every meaning the timeline draws in colour, in legend order.
std::span<const PaletteEntry> HtmlPalette();

// The backgrounds the colours are drawn on (page, odd rows).
std::span<const std::string_view> HtmlPaletteBackgrounds();

// CIEDE2000 distance every two palette colours keep (and each colour from
// the backgrounds): about twice what readers of a chart need to tell two
// colours apart side by side.
inline constexpr double kMinPaletteDeltaE00 = 15.0;

// The colour rules: "SELECTORS { fill: RGB; stroke: RGB; }" per entry.
std::string HtmlPaletteCss();

// The legend: a swatch and the meaning per entry (<div class="legend">).
void AppendHtmlLegend(std::string* out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_HTML_PALETTE_H_
