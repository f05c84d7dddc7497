#include "analyzer/export/html_instances.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/base/units.h"
#include "analyzer/export/text_escape.h"
#include "analyzer/export/trace_event_writer.h"
#include "analyzer/model/display_name.h"

namespace streamscope {
namespace {

constexpr double kChartHeight = 90;  // viewBox units of the tallest bar
constexpr double kTop = 6;           // above it: the slow marks
constexpr double kBarWidth = 10;     // viewBox units per bar (the chart stretches)

// Busy is the timeline's compute colour (the GPU ran work); slow is a
// magenta no timeline meaning uses (a red would read as a gap cause).
constexpr char kStyle[] = R"CSS(<style>
.instance-chart { width: 100%; height: 110px; display: block; }
.instance-bar { cursor: zoom-in; }
.instance-bar .busy { fill: #4b77b0; } .instance-bar .idle { fill: #c9ced6; }
.instance-bar.slow .idle, .instance-bar .slow-mark { fill: #d000d0; }
.instance-bar:hover rect { stroke: #1d2329; stroke-width: 1px; vector-effect: non-scaling-stroke; }
.instance-median { stroke: #1d2329; stroke-dasharray: 4 3; vector-effect: non-scaling-stroke; }
</style>
)CSS";

// A bar is a link to #instance-K: following it (a click, or a page opened
// on that address) zooms the timeline (html_assets.cc answers 'tl-zoom').
constexpr char kScript[] = R"JS(<script>
(function () {
  function zoomTo(bar) {
    var tl = document.getElementById('tl-svg');
    if (!tl) return;
    var s = parseFloat(bar.getAttribute('data-start')), w = parseFloat(bar.getAttribute('data-width'));
    tl.dispatchEvent(new CustomEvent('tl-zoom', { detail: { start: s - w * 0.05, width: w * 1.1 } }));
    var timeline = document.getElementById('timeline');
    if (timeline && timeline.scrollIntoView) timeline.scrollIntoView({ block: 'nearest' });
  }
  function fromAddress() {
    var m = /^#instance-(\d+)$/.exec(window.location.hash);
    var bar = m && document.querySelector('.instance-chart .instance-bar[data-instance="' + m[1] + '"]');
    if (bar) zoomTo(bar);
  }
  document.querySelectorAll('.instance-chart').forEach(function (chart) {
    chart.addEventListener('click', function (e) {
      var bar = e.target.closest('.instance-bar');
      if (bar) zoomTo(bar);
    });
  });
  window.addEventListener('hashchange', fromAddress);
  window.addEventListener('load', fromAddress);
})();
</script>
)JS";

std::string CauseText(const InstanceRow& x, const TraceModel& model) {
  if (!x.has_cause) return "no idle time";
  std::string text = absl::StrCat("largest idle cause ", std::string(GapCauseName(x.top_cause)));
  if (x.top_detail >= 0) absl::StrAppend(&text, " (", std::string(DisplayName(model.strings, x.top_detail)), ")");
  absl::StrAppend(&text, " ", FormatDuration(x.top_cause_ns));
  return text;
}

void AppendChart(const HtmlTimelineInput& t, int index, std::string* out) {
  const StepBreakdown& s = t.analysis->instances;
  const size_t n = std::min(s.rows.size(), kMaxInstanceBars);
  int64_t longest = 1;
  for (size_t k = 0; k < n; ++k) longest = std::max(longest, s.rows[k].length());
  const double scale = kChartHeight / static_cast<double>(longest);
  const std::string width = absl::StrFormat("%.0f", kBarWidth * static_cast<double>(n));
  absl::StrAppend(out, "<p>", s.rows.size(), " instances, median ", FormatDuration(s.median_ns), ", ", s.slow_count,
                  " slow (> ", kSlowInstanceFactor,
                  "x the median, marked red). Bar: duration, busy below, idle above; click a bar to zoom the "
                  "timeline to it.",
                  n < s.rows.size() ? absl::StrCat(" The first ", n, " are drawn.") : "", "</p>\n");
  absl::StrAppend(out, "<svg class=\"instance-chart\" data-timeline=\"", index, "\" viewBox=\"0 0 ", width, " ",
                  kChartHeight + kTop, "\" preserveAspectRatio=\"none\">\n");
  for (size_t k = 0; k < n; ++k) {
    const InstanceRow& x = s.rows[k];
    const double height = scale * static_cast<double>(x.length());
    const double busy =
        x.device_ns > 0 ? height * static_cast<double>(x.busy_ns) / static_cast<double>(x.device_ns) : 0;
    const double left = kBarWidth * static_cast<double>(k) + 1;
    std::string start, span;
    AppendMicros(x.start_ns - t.window.start_ns, &start);
    AppendMicros(x.length(), &span);
    absl::StrAppend(out, "<a href=\"#instance-", x.index + 1, "\"><g class=\"instance-bar", x.slow ? " slow" : "",
                    "\" data-instance=\"", x.index + 1, "\" data-start=\"", start, "\" data-width=\"", span,
                    "\"><title>");
    AppendHtmlEscaped(absl::StrCat("#", x.index + 1, ": ", FormatDuration(x.length()), x.slow ? " (slow)" : "",
                                   ", busy ", FormatShare(x.busy_ns, x.device_ns), ", idle ", FormatDuration(x.idle_ns),
                                   "; ", CauseText(x, *t.model)),
                      out);
    absl::StrAppend(out, "</title>",
                    absl::StrFormat("<rect class=\"idle\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"%.2f\"/>", left,
                                    kTop + kChartHeight - height, kBarWidth - 2, height - busy),
                    absl::StrFormat("<rect class=\"busy\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"%.2f\"/>", left,
                                    kTop + kChartHeight - busy, kBarWidth - 2, busy));
    if (x.slow) {
      absl::StrAppend(
          out, absl::StrFormat("<rect class=\"slow-mark\" x=\"%.1f\" y=\"%.2f\" width=\"%.1f\" height=\"4\"/>", left,
                               kTop + kChartHeight - height - 5, kBarWidth - 2));
    }
    absl::StrAppend(out, "</g></a>\n");
  }
  const double median = kTop + kChartHeight - scale * static_cast<double>(s.median_ns);
  absl::StrAppend(out,
                  absl::StrFormat("<line class=\"instance-median\" x1=\"0\" x2=\"%s\" y1=\"%.2f\" y2=\"%.2f\"/>", width,
                                  median, median),
                  "</svg>\n");
}

}  // namespace

void AppendInstanceChart(std::span<const HtmlTimelineInput> timelines, std::string* out) {
  bool any = false;
  for (const HtmlTimelineInput& t : timelines) any |= t.analysis != nullptr && !t.analysis->instances.rows.empty();
  if (!any) return;
  absl::StrAppend(out, "<section id=\"instances\"><h2>Instances</h2>\n", kStyle);
  for (size_t i = 0; i < timelines.size(); ++i) {
    const HtmlTimelineInput& t = timelines[i];
    if (t.analysis == nullptr || t.analysis->instances.rows.empty()) continue;
    if (!t.label.empty()) absl::StrAppend(out, "<h3>", HtmlEscaped(t.label), "</h3>");
    AppendChart(t, static_cast<int>(i), out);
  }
  absl::StrAppend(out, kScript, "</section>\n");
}

}  // namespace streamscope
