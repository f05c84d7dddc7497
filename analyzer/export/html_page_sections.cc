#include "analyzer/export/html_page_sections.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "analyzer/analysis/windows/trace_summary.h"
#include "analyzer/export/svg_histogram.h"
#include "analyzer/export/text_escape.h"
#include "analyzer/export/timeline_labels.h"
#include "analyzer/model/queue_delay.h"
#include "analyzer/render/trace_summary_render.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

void AppendSummary(const HtmlTimelineInput& in, const DownsampleResult& blocks, std::string* out) {
  const TraceModel& m = *in.model;
  absl::StrAppend(out, "<div class=\"summary\">");
  if (!in.label.empty()) absl::StrAppend(out, "<h3>", HtmlEscaped(in.label), "</h3>");
  absl::StrAppend(out, "<table class=\"kv\">");
  auto kv = [&](std::string_view k, std::string_view v, std::string_view cls = {}) {
    absl::StrAppend(out, "<tr><th>", HtmlEscaped(k), "</th><td",
                    cls.empty() ? "" : absl::StrCat(" class=\"", std::string(cls), "\""), ">", HtmlEscaped(v),
                    "</td></tr>");
  };
  kv("trace", m.path);
  kv("format", m.format);
  if (auto it = m.metadata.find("host"); it != m.metadata.end()) kv("host", it->second);
  kv("pid", absl::StrCat(m.pid));
  if (auto it = m.metadata.find("command_line"); it != m.metadata.end()) kv("command", TruncatedUtf8(it->second, 300));
  if (in.summary != nullptr) {
    const TraceSummary& sum = *in.summary;
    if (!sum.capture_end.empty()) kv("capture end", sum.capture_end, sum.capture_abnormal ? "fail" : "");
    if (sum.has_workload || !sum.workload.variant.empty()) kv("workload", sum.workload.variant);
    for (auto& [k, v] : sum.workload.params) kv(absl::StrCat("param ", k), v);
    if (!sum.workload.validation.empty()) {
      kv("validation", sum.workload.validation, sum.workload.validation_failed() ? "fail" : "pass");
    }
  }
  // The analyses' window (the one the page opens on) and, when the page draws
  // more around it, the drawn span: their lengths must not be mixed up.
  const Window& view = in.view.length() > 0 ? in.view : in.window;
  kv("window", absl::StrCat(WindowLabel(view), " — ", FormatDuration(view.length())));
  if (view.start_ns != in.window.start_ns || view.end_ns != in.window.end_ns) {
    kv("drawn", absl::StrCat(FormatDuration(in.window.length()), ", ", blocks.ops,
                             " ops (zoom out to see what lies outside the window)"));
  }
  int64_t ops_in_view = 0;
  {
    auto [first, last] = m.OpRangeFor(view.start_ns, view.end_ns + 1);
    for (size_t i = first; i < last; ++i) ops_in_view += InWindow(m.ops.start_ns[i], m.ops.end_ns[i], view) ? 1 : 0;
  }
  kv("ops in window", absl::StrCat(ops_in_view));
  absl::StrAppend(out, "</table>");
  if (!m.devices.empty()) {
    absl::StrAppend(out,
                    "<table class=\"grid\"><tr><th>device</th><th>CC</th><th>SMs</th><th>copy engines</th>"
                    "<th>concurrent kernels</th><th>memory</th></tr>");
    for (const Device& d : m.devices) {
      absl::StrAppend(out, "<tr><td>", HtmlEscaped(DeviceLabel(m, d.id)), "</td><td>", d.compute_major, ".",
                      d.compute_minor, "</td><td>", d.sm_count, "</td><td>",
                      d.async_engine_count < 0 ? "?" : absl::StrCat(d.async_engine_count), "</td><td>",
                      d.concurrent_kernels < 0 ? "?" : (d.concurrent_kernels ? "yes" : "no"), "</td><td>",
                      FormatBytes(d.global_memory_bytes), "</td></tr>");
    }
    absl::StrAppend(out, "</table>");
  }
  // Ops per category and stream in the window.
  std::array<int64_t, kNumOpCategories> cat{};
  std::array<int64_t, kNumOpCategories> cat_ns{};
  auto [first, last] = m.OpRangeFor(view.start_ns, view.end_ns + 1);
  for (size_t i = first; i < last; ++i) {
    if (!InWindow(m.ops.start_ns[i], m.ops.end_ns[i], view)) continue;
    int c = static_cast<int>(m.ops.category[i]);
    ++cat[c];
    cat_ns[c] += m.ops.end_ns[i] - m.ops.start_ns[i];
  }
  absl::StrAppend(out, "<table class=\"grid\"><tr><th>category</th><th>ops</th><th>summed time</th></tr>");
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (cat[c] == 0) continue;
    absl::StrAppend(out, "<tr><td>", std::string(OpCategoryName(static_cast<OpCategory>(c))), "</td><td>", cat[c],
                    "</td><td>", FormatDuration(cat_ns[c]), "</td></tr>");
  }
  absl::StrAppend(out, "</table>");
  if (in.summary != nullptr) {
    for (const std::string& wmsg : TraceSummaryWarnings(*in.summary))
      absl::StrAppend(out, "<p class=\"fail\">", HtmlEscaped(wmsg), "</p>");
  }
  absl::StrAppend(out, "</div>\n");
}

std::vector<int64_t> QueueDelays(const TraceModel& m, const Window& w) {
  std::vector<int64_t> out;
  auto [first, last] = m.OpRangeFor(w.start_ns, w.end_ns + 1);
  for (size_t i = first; i < last; ++i) {
    if (!InWindow(m.ops.start_ns[i], m.ops.end_ns[i], w)) continue;
    int32_t api = m.ApiForOp(i);
    if (api >= 0) out.push_back(QueueDelayNs(m.ops.start_ns[i], m.api.end_ns[api]));
  }
  return out;
}

}  // namespace

// The report's summary lines and the ranked diagnosis of each timeline,
// above everything else: what a reader needs first.
void AppendHtmlAnswer(std::span<const HtmlTimelineInput> timelines, std::string* out) {
  bool any = false;
  for (const HtmlTimelineInput& t : timelines) any |= t.analysis != nullptr && !t.analysis->summary_lines.empty();
  if (!any) return;
  // The summary beside the diagnosis, each scrolling in a bounded box, so
  // that the timeline starts on the first screen.
  absl::StrAppend(out, "<section id=\"answer\">\n");
  bool first = true;
  for (const HtmlTimelineInput& t : timelines) {
    if (t.analysis == nullptr || t.analysis->summary_lines.empty()) continue;
    absl::StrAppend(out, "<div class=\"answer\">");
    if (!t.label.empty()) absl::StrAppend(out, "<div class=\"answer-label\">", HtmlEscaped(t.label), "</div>");
    absl::StrAppend(out, "<pre class=\"report-summary\"", first ? " id=\"report-summary\"" : "", ">");
    for (const std::string& line : t.analysis->summary_lines) absl::StrAppend(out, HtmlEscaped(line), "\n");
    absl::StrAppend(out, "</pre>\n<div class=\"diagnosis-box\">");
    if (t.analysis->diagnosis.empty()) {
      absl::StrAppend(out, "<p class=\"diagnosis-none\">Diagnosis: no significant finding in this window.</p>");
    } else {
      absl::StrAppend(out, "<ol class=\"diagnosis\"", first ? " id=\"diagnosis\"" : "", ">");
      for (size_t i = 0; i < t.analysis->diagnosis.size(); ++i) {
        const DiagnosisItem& d = t.analysis->diagnosis[i];
        absl::StrAppend(out, "<li class=\"finding", i == 0 ? " primary" : "", "\" data-cause=\"", HtmlEscaped(d.cause),
                        "\"><b>", HtmlEscaped(d.cause), "</b>", i == 0 ? " (primary)" : "", ": ", HtmlEscaped(d.saving),
                        "<br><span class=\"finding-summary\">", HtmlEscaped(d.summary),
                        "</span><br><span class=\"remedy\"><b>Fix:</b> ", HtmlEscaped(d.remedy), "</span></li>\n");
      }
      absl::StrAppend(out, "</ol>");
    }
    absl::StrAppend(out, "</div></div>\n");
    first = false;
  }
  absl::StrAppend(out, "</section>\n");
}

void AppendHtmlNotes(const std::vector<std::string>& notes, std::string* out) {
  if (notes.empty()) return;
  absl::StrAppend(out, "<div class=\"notes\" id=\"notes\"><b>What this report reduced or could not show</b>");
  for (const std::string& n : notes) absl::StrAppend(out, "<p>", HtmlEscaped(n), "</p>");
  absl::StrAppend(out, "</div>\n");
}

void AppendHtmlTraceSummaries(std::span<const HtmlTimelineInput> timelines, const std::vector<DownsampleResult>& blocks,
                              std::string* out) {
  absl::StrAppend(out, "<h2>Trace</h2><div class=\"summaries\" id=\"summary\">\n");
  for (size_t i = 0; i < timelines.size(); ++i) AppendSummary(timelines[i], blocks[i], out);
  absl::StrAppend(out, "</div>\n");
}

void AppendHtmlFindings(std::span<const HtmlTimelineInput> timelines, std::string* out) {
  absl::StrAppend(out, "<h2>Findings</h2><div id=\"findings\">\n");
  for (const HtmlTimelineInput& t : timelines) {
    if (!t.label.empty()) absl::StrAppend(out, "<h3>", HtmlEscaped(t.label), "</h3>");
    if (t.analysis == nullptr || t.analysis->findings.empty()) {
      absl::StrAppend(out, "<p>No analysis findings (the analyses did not run for this trace).</p>\n");
      continue;
    }
    absl::StrAppend(out, "<ul class=\"findings\">");
    for (const Finding& f : t.analysis->findings) {
      absl::StrAppend(out, "<li class=\"", HtmlEscaped(f.severity), "\">", HtmlEscaped(f.text), "</li>");
    }
    absl::StrAppend(out, "</ul>\n");
  }
  absl::StrAppend(out, "</div>\n");
}

void AppendHtmlDistributions(std::span<const HtmlTimelineInput> timelines, std::string* out) {
  absl::StrAppend(out, "<h2>Distributions</h2><div class=\"plots\" id=\"plots\">\n");
  for (const HtmlTimelineInput& t : timelines) {
    std::string prefix = t.label.empty() ? "" : absl::StrCat(t.label, ": ");
    std::vector<int64_t> delays = QueueDelays(*t.model, t.window);
    AppendSvgHistogram(
        absl::StrCat(prefix, "launch queue delay (op start − end of its API call; 0 when it started during the call)"),
        "delay", delays, out);
    if (t.analysis != nullptr && !t.analysis->gap_lengths_ns.empty()) {
      AppendSvgHistogram(absl::StrCat(prefix, "device idle gap length"), "gaps", t.analysis->gap_lengths_ns, out);
    }
  }
  absl::StrAppend(out, "</div>\n");
}

}  // namespace streamscope
