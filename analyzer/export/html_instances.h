// The HTML page's per-instance chart (html_report.h draws it below the
// summary and diagnosis): one bar per instance of the analysed window
// (step_breakdown.h, render/instances_render.h), its height the instance's
// duration, split into busy time (below) and idle time (above), slow
// instances (> kSlowInstanceFactor x the median) marked, the median as a
// dashed line. Each bar links to #instance-K (K 1-based): following it, or
// opening the page on that address, zooms the timeline to the instance.
//
// DOM contract: <section id="instances"> holds, per timeline with
// instances, <svg class="instance-chart" data-timeline=T> with
// <a href="#instance-K"><g class="instance-bar[ slow]" data-instance=K data-start=US
// data-width=US> (the instance, µs from the timeline's drawn window
// start: the tl-svg's units), each with a <title>. A click, or the address
// #instance-K, dispatches a CustomEvent 'tl-zoom' {start, width} (µs: the
// instance and 5% on each side) on #tl-svg, which the page's script
// answers by showing that range.
// Not thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_HTML_INSTANCES_H_
#define STREAMSCOPE_ANALYZER_EXPORT_HTML_INSTANCES_H_

#include <cstddef>
#include <span>
#include <string>

#include "analyzer/export/html_report.h"

namespace streamscope {

// Bars drawn at most per timeline (the first ones, in time order); the
// chart says how many were drawn (about 190 KB of page at 500 bars).
inline constexpr size_t kMaxInstanceBars = 500;

// Appends the chart section; nothing when no timeline has instances.
void AppendInstanceChart(std::span<const HtmlTimelineInput> timelines, std::string* out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_HTML_INSTANCES_H_
