#include "analyzer/export/svg_histogram.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/export/text_escape.h"
#include "analyzer/export/timeline_labels.h"

namespace streamscope {

std::vector<HistogramBin> DurationHistogram(std::span<const int64_t> samples_ns) {
  std::vector<int64_t> edges = {0};
  for (int64_t decade = 1000; decade <= 1'000'000'000; decade *= 10) {
    for (int64_t m : {1, 2, 5}) edges.push_back(decade * m);
  }
  edges.push_back(10'000'000'000);
  std::vector<HistogramBin> bins;
  bins.push_back({INT64_MIN, 0, "< 0", 0});
  for (size_t i = 0; i + 1 < edges.size(); ++i) {
    bins.push_back({edges[i], edges[i + 1],
                    edges[i] == 0 ? absl::StrCat("< ", FormatDuration(edges[1]))
                                  : absl::StrCat(FormatDuration(edges[i]), "–", FormatDuration(edges[i + 1])),
                    0});
  }
  bins.push_back({edges.back(), INT64_MAX, absl::StrCat("≥ ", FormatDuration(edges.back())), 0});
  for (int64_t v : samples_ns) {
    auto it =
        std::upper_bound(bins.begin(), bins.end(), v, [](int64_t x, const HistogramBin& b) { return x < b.hi_ns; });
    if (it == bins.end()) it = bins.end() - 1;
    ++it->count;
  }
  size_t lo = 0, hi = bins.size();
  while (lo < hi && bins[lo].count == 0) ++lo;
  while (hi > lo && bins[hi - 1].count == 0) --hi;
  return std::vector<HistogramBin>(bins.begin() + lo, bins.begin() + hi);
}

void AppendSvgHistogram(std::string_view title, std::string_view css_class, std::span<const int64_t> samples_ns,
                        std::string* out) {
  absl::StrAppend(out, "<figure class=\"hist\"><figcaption><b>");
  AppendHtmlEscaped(title, out);
  absl::StrAppend(out, "</b>");
  if (samples_ns.empty()) {
    absl::StrAppend(out, " — no samples</figcaption></figure>\n");
    return;
  }
  std::vector<int64_t> sorted(samples_ns.begin(), samples_ns.end());
  std::nth_element(sorted.begin(), sorted.begin() + sorted.size() / 2, sorted.end());
  absl::StrAppend(out, " — ", samples_ns.size(), " samples, median ", FormatDuration(sorted[sorted.size() / 2]),
                  "</figcaption>\n");
  std::vector<HistogramBin> bins = DurationHistogram(samples_ns);
  int64_t max_count = 1;
  for (const HistogramBin& b : bins) max_count = std::max(max_count, b.count);
  const int bar_w = 30, gap = 4, plot_h = 120, label_h = 40, left = 40;
  int width = left + static_cast<int>(bins.size()) * (bar_w + gap) + 10;
  absl::StrAppend(out, "<svg class=\"hist-svg\" width=\"", width, "\" height=\"", plot_h + label_h + 10,
                  "\" viewBox=\"0 0 ", width, " ", plot_h + label_h + 10, "\">\n");
  absl::StrAppend(out, "<line x1=\"", left - 2, "\" x2=\"", width, "\" y1=\"", plot_h + 5, "\" y2=\"", plot_h + 5,
                  "\" stroke=\"#99a\"/>");
  absl::StrAppend(out, "<text x=\"2\" y=\"12\">", max_count, "</text><text x=\"2\" y=\"", plot_h + 4, "\">0</text>\n");
  for (size_t i = 0; i < bins.size(); ++i) {
    const HistogramBin& b = bins[i];
    double h = b.count == 0 ? 0 : std::max(1.0, plot_h * static_cast<double>(b.count) / max_count);
    int x = left + static_cast<int>(i) * (bar_w + gap);
    absl::StrAppend(out, "<rect class=\"hist-bar ", std::string(css_class), "\" x=\"", x, "\" y=\"",
                    absl::StrFormat("%.1f", plot_h + 5 - h), "\" width=\"", bar_w, "\" height=\"",
                    absl::StrFormat("%.1f", h), "\"><title>");
    AppendHtmlEscaped(b.label, out);
    absl::StrAppend(out, ": ", b.count, "</title></rect>");
    // The axis shows each bin's lower edge; the bar's title the whole range.
    absl::StrAppend(out, "<text transform=\"translate(", x + 2, ",", plot_h + 14, ") rotate(45)\">");
    AppendHtmlEscaped(b.lo_ns == INT64_MIN ? "< 0" : FormatDuration(b.lo_ns), out);
    absl::StrAppend(out, "</text>\n");
  }
  absl::StrAppend(out, "</svg></figure>\n");
}

}  // namespace streamscope
