// Duration histograms as inline SVG for the HTML report: log-spaced bins
// (1-2-5 steps from 1 µs to 10 s, plus "< 0" for negative samples, which
// clock skew can produce for queue delays). Pure; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_SVG_HISTOGRAM_H_
#define STREAMSCOPE_ANALYZER_EXPORT_SVG_HISTOGRAM_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace streamscope {

struct HistogramBin {
  int64_t lo_ns = 0, hi_ns = 0;  // [lo, hi); lo = INT64_MIN for "< 0", hi = INT64_MAX for the last
  std::string label;
  int64_t count = 0;
};

// Bins with their counts; empty leading/trailing bins are dropped.
std::vector<HistogramBin> DurationHistogram(std::span<const int64_t> samples_ns);

// <figure> with a title, an SVG bar chart (bars class "hist-bar <css_class>",
// each with a <title> "label: count") and a caption with the sample count and
// median.
void AppendSvgHistogram(std::string_view title, std::string_view css_class, std::span<const int64_t> samples_ns,
                        std::string* out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_SVG_HISTOGRAM_H_
