// The inline stylesheet and script of the HTML report (html_report.h). Kept
// apart from the C++ that writes the markup so they can be read as CSS/JS.
// The script only needs the DOM the report writes: zoom (wheel, buttons),
// pan (drag), reset (double click), a 'tl-zoom' event {start, width} (µs)
// on #tl-svg (html_instances.h), the time axis, and on success
// <body data-render-ok="1"> (errors go to data-render-error), which the
// browser test checks.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_HTML_ASSETS_H_
#define STREAMSCOPE_ANALYZER_EXPORT_HTML_ASSETS_H_

#include <string_view>

namespace streamscope {

std::string_view HtmlReportCss();
std::string_view HtmlReportScript();
// Draws the rows kept as data (html_timeline_data.h): defines
// StreamscopeRows, which HtmlReportScript uses; goes before it.
std::string_view HtmlTimelineRowsScript();

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_HTML_ASSETS_H_
