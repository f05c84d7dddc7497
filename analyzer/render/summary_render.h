// The summary a report opens with: the window and why it was
// chosen, GPU busy and idle time in it, copy/compute overlap achieved
// against possible, and the top findings by estimated saving, each with the
// one change to make. At most kSummaryMaxLines lines of at most
// kSummaryColumns columns of text; the same figures as JSON and for the
// HTML page.
//
// Definitions (analyzer/README.md "The summary"):
//   busy / idle      union of the device's ops in the window / the rest of
//                    the window (idle_gaps.h);
//   overlap achieved time a copy (any direction) ran while a kernel ran on
//                    the same device (copy time - exposed copy time);
//   overlap possible per device min(copy time, compute time), both as union
//                    time in the window: the most copy/compute overlap the
//                    same work could have had; summed over devices.
//   top findings     the leading findings of DiagnoseResult::ranked
//                    (largest estimated saving first: a significant
//                    saving leads whatever the measured cost), or the
//                    significant findings in the findings' order when it
//                    is empty; at most 3, and fewer when their remedies
//                    would not fit the line budget.
// Pure functions of their inputs; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_RENDER_SUMMARY_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_SUMMARY_RENDER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/pipeline/window_results.h"
#include "nlohmann/json.hpp"

namespace streamscope {

inline constexpr size_t kSummaryMaxLines = 15;
inline constexpr size_t kSummaryColumns = 100;
inline constexpr int kSummaryMaxFindings = 3;

struct SummaryDevice {
  int32_t device_id = 0;
  int64_t window_ns = 0, busy_ns = 0, idle_ns = 0;
  int64_t copy_ns = 0, compute_ns = 0;
  int64_t overlap_ns = 0, overlap_possible_ns = 0;  // copy beside compute; min(copy, compute)
  int64_t first_launch_ns = 0;  // of idle_ns: host blocked in a first launch (module loading); gap causes
};

struct SummaryFinding {
  int32_t finding = -1;  // index into DiagnoseResult::findings
  DiagnoseCause cause = DiagnoseCause::kSameStream;
  bool saving_estimated = false;
  int64_t estimated_saving_ns = 0;  // when saving_estimated
  int64_t impact_ns = 0;            // measured cost on the GPU timeline
  std::string summary;              // DiagnoseSummary
  // What tells two findings of one cause apart in the summary: the copy
  // direction of copy_bandwidth_bound ("D2H"); empty for the other causes.
  std::string qualifier;
  std::string change;  // DiagnoseRemedy: the one change to make
};

struct ReportSummary {
  Window window;
  std::string chosen_by;       // why this window: "default", "--nvtx", "--from/--to"
  int window_count = 1;        // windows the spec selected
  bool longest = false;        // of several: the summary is of the longest (else of the first)
  int64_t trace_start_ns = 0;  // the whole-trace window's start (offsets count from it)
  std::vector<SummaryDevice> devices;
  int64_t busy_ns = 0, idle_ns = 0, device_window_ns = 0;  // summed over devices
  int64_t copy_ns = 0, overlap_ns = 0, overlap_possible_ns = 0;
  int64_t any_pair_overlap_ns = 0;  // ops of any two kinds ran at once (union), all devices
  std::vector<SummaryFinding> top;  // at most kSummaryMaxFindings, ranked
  bool diagnosed = false;           // the diagnosis ran
  bool ranked = false;              // by estimated saving (else in the diagnosis' order)
  bool over_memory = false;         // ranked by measured cost: the dependency graph did not fit
  // Ranked: significant findings left out of `top` because no estimate says
  // removing them would end the window sooner (saving below the threshold).
  int lesser_significant = 0;
};

// "saves about 4.30 ms (estimate); costs 4.30 ms measured", or "costs
// 4.30 ms measured (no saving estimate)".
std::string SummarySavingText(const SummaryFinding& finding);

// "default", "--nvtx", "--from/--to".
std::string WindowChosenBy(const WindowSpec& spec);

// The summary of one window's results (overlap, idle gaps and diagnose must
// have run for the figures to be non-zero). `trace_start_ns`: the
// whole-trace window's start when the caller has it (else it is found, a
// scan of the trace: pass it when summarizing many windows).
ReportSummary SummarizeWindow(const WindowResults& results, const TraceModel& model, const WindowSpec& spec,
                              int window_count = 1, bool longest = false,
                              std::optional<int64_t> trace_start_ns = std::nullopt);

// At most kSummaryMaxLines lines within kSummaryColumns columns; `path`
// names the trace in the first line.
void RenderSummaryText(const ReportSummary& summary, const TraceModel& model, std::ostream& out);
// The text lines RenderSummaryText writes (for the HTML page).
std::vector<std::string> SummaryTextLines(const ReportSummary& summary, const TraceModel& model);

// {"window": {label, start_ns, end_ns, length_ns, chosen_by, windows},
//  "busy_ns", "idle_ns", "device_window_ns", "overlap_ns", "overlap_possible_ns",
//  "any_pair_overlap_ns",
//  "devices": [{device_id, window_ns, busy_ns, idle_ns, copy_ns, compute_ns,
//               overlap_ns, overlap_possible_ns}],
//  "top_findings": [{rank, finding_index, cause, step, saving_estimated,
//                    estimated_saving_ns (null when not estimated), impact_ns,
//                    summary, change}]}
nlohmann::json SummaryToJson(const ReportSummary& summary);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_SUMMARY_RENDER_H_
