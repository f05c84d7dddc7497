// The parts of the HTML report (html_report.h) around its timeline: the
// answer (the report's summary beside its ranked diagnosis) above it; the
// notes on what was reduced, the traces' summaries, the analyses' findings
// and the distributions below it. Each appends its markup; pure functions
// of their inputs.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_HTML_PAGE_SECTIONS_H_
#define STREAMSCOPE_ANALYZER_EXPORT_HTML_PAGE_SECTIONS_H_

#include <span>
#include <string>
#include <vector>

#include "analyzer/export/html_report.h"
#include "analyzer/export/op_downsampler.h"

namespace streamscope {

// <section id="answer">: per timeline with a summary, <pre
// id="report-summary"> beside <ol id="diagnosis"> (ids on the first only).
void AppendHtmlAnswer(std::span<const HtmlTimelineInput> timelines, std::string* out);
// <div id="notes">: what the page reduced or could not show; nothing if none.
void AppendHtmlNotes(const std::vector<std::string>& notes, std::string* out);
// <h2>Trace</h2>: per timeline its trace, capture, workload, window,
// devices and ops per category (blocks: the timeline's drawn ops).
void AppendHtmlTraceSummaries(std::span<const HtmlTimelineInput> timelines, const std::vector<DownsampleResult>& blocks,
                              std::string* out);
// <h2>Findings</h2>: the analyses' findings per timeline.
void AppendHtmlFindings(std::span<const HtmlTimelineInput> timelines, std::string* out);
// <h2>Distributions</h2>: launch queue delay and idle gap length histograms.
void AppendHtmlDistributions(std::span<const HtmlTimelineInput> timelines, std::string* out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_HTML_PAGE_SECTIONS_H_
