// Compare (docs/DEFINITIONS.md): control vs variant, one or more runs
// (traces) per side. Accepts an optimization only on a verified workload:
// comparable windows on both sides, same work, validation passed, overlap
// present in the variant, and a figure that improved beyond noise.
//
// Windows (compare_windows.h): --nvtx NAME (every trace must have it),
// --window whole (whole GPU activity: first GPU op start to last GPU op
// end), or by default each run's steady state (steady_state.h) when every
// run has one, matched across runs even when the ranges are renamed or one
// run's is a repeating kernel sequence; the NVTX range 'measured' when
// every trace has it and the steady states are not all the same range;
// else every run's GPU span. Never a steady window against a whole run.
// Per instance whenever some run's windows hold more than one instance:
// the figure is the time per instance (steady windows: the mean period
// between instances' GPU starts, one-off stalls left out, compare_windows.h;
// named ranges: total_interval / instances) and work is compared per
// instance; over the whole window (total_interval) otherwise.
//
// Per run: work (ops that start inside the windows: kernel instances per
// name, count and bytes per copy direction, memset count and bytes),
// validation (the workload's "validation=" mark; "" when not recorded) and
// metrics: time_per_instance (listed per instance only), total_interval
// (first GPU op start to last GPU op end inside each window), window length, busy, overlap (time at least two ops of a
// pair ran together, any pair), overlap per category pair, idle and its causes (gap causes), kernel launch gaps (launch
// statistics).
//
// Verdict, first failing condition wins:
//   DIFFERENT_WORK     some run's work differs from the first control run's;
//   VALIDATION_FAILED  some run recorded "validation=failed...";
//   HAZARD             a variant run has certain cross-stream hazards
//                      (hazards) in its windows;
//   NO_OVERLAP         (goal overlap) variant median overlap_ns <
//                      min_overlap_share x its median busy time (or 0);
//   WITHIN_NOISE       |saved| <= noise, noise = max(noise_pct % of the
//                      control median figure, the larger min-max range of
//                      the two sides); the figure is time_per_instance per
//                      instance, else total_interval;
//   OVERLAP_WITHOUT_GAIN (goal overlap) / NO_GAIN (goal speedup): the total
//                      got worse beyond noise;
//   VERIFIED           otherwise: saved = control median - variant median.
// When the verdict is not VERIFIED for lack of overlap or gain, the variant
// run whose total is the median is diagnosed (diagnose.h), with the control's
// median run as reference. Pure functions of the models; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_H_
#define STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_H_

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/analysis/memory/hazards.h"
#include "analyzer/analysis/overlap_gaps/overlap.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/pipeline/compare_windows.h"
#include "analyzer/pipeline/compare_work.h"

namespace streamscope {

enum class CompareVerdict : uint8_t {
  kVerified = 0,
  kDifferentWork = 1,
  kValidationFailed = 2,
  kNoOverlap = 3,
  kOverlapWithoutGain = 4,
  kWithinNoise = 5,
  kNoGain = 6,
  kHazard = 7,  // the variant has certain cross-stream hazards (hazards.h)
};
// "VERIFIED", "DIFFERENT_WORK", "VALIDATION_FAILED", "NO_OVERLAP",
// "OVERLAP_WITHOUT_GAIN", "WITHIN_NOISE", "NO_GAIN", "HAZARD"
std::string_view CompareVerdictName(CompareVerdict v);

// kOverlap: an overlap optimization (overlap required). kSpeedup: any
// optimization (e.g. a CUDA graph): overlap not required.
enum class CompareGoal : uint8_t { kOverlap = 0, kSpeedup = 1 };
std::string_view CompareGoalName(CompareGoal g);  // "overlap", "speedup"

struct CompareOptions {
  enum class WindowRule { kDefault, kNvtx, kWholeGpu };
  WindowRule window_rule = WindowRule::kDefault;
  std::string nvtx_name = "measured";  // kNvtx (the default rule sets the steady state's range)
  std::optional<int> nvtx_instance;    // 1-based; nullopt = all instances, summed
  double noise_pct = 2.0;
  CompareGoal goal = CompareGoal::kOverlap;
  double min_overlap_share = 0.01;  // of the variant's busy time
  DiagnoseOptions diagnose;         // reference is filled in by Compare
};

struct RunMetrics {
  int64_t total_interval_ns = 0;  // sum over windows of (last op end - first op start)
  int64_t window_ns = 0;
  int64_t busy_ns = 0, overlap_ns = 0, idle_ns = 0;
  std::array<int64_t, kNumOverlapPairs> pair_ns{};
  std::array<int64_t, kNumGapCauses> idle_cause_ns{};
  int64_t kernel_gap_ns = 0;         // idle before kernels, from their previous kernel on the stream
  int64_t graph_removable_ns = 0;    // launch statistics
  int64_t launch_api_ns = 0;         // time in kernel launch calls
  int64_t time_per_instance_ns = 0;  // see "Per instance" above; total_interval_ns with one instance
};

struct CompareRun {
  std::string path;
  int64_t pid = 0;
  const TraceModel* model = nullptr;  // not owned
  std::vector<Window> windows;
  // Where the windows come from, what one instance is and how many there
  // are (compare_windows.h RunWindow; windows is its windows).
  RunWindow window;
  std::string workload;    // variant name from the workload mark, "" if none
  std::string validation;  // "passed", "failed: ...", "" = not recorded
  WorkSummary work;
  RunMetrics metrics;
  // Hazards over the windows (hazards_checked: the trace has memory_access rows).
  bool hazards_checked = false;
  int64_t certain_hazards = 0, possible_hazards = 0, certain_hazards_observed = 0;
  std::optional<Hazard> first_certain_hazard;  // one of them (an observed one if any)
};

// Median, min, max, and (n >= 3) MAD and sample standard deviation.
struct MetricStats {
  std::vector<int64_t> values;  // in run order
  int64_t median = 0, min = 0, max = 0;
  std::optional<double> mad, stdev;
  int64_t range() const { return max - min; }
};
MetricStats ComputeStats(std::vector<int64_t> values);

struct MetricComparison {
  std::string name;  // "total_interval_ns", "overlap:compute|H2D", "idle:host_nvtx_range", ...
  MetricStats control, variant;
  int64_t change_ns = 0;  // variant median - control median
  double change_pct = 0;  // of the control median (0 when it is 0)
};

struct RunWorkDifference {
  std::string side;  // "control", "variant"
  std::string path;
  WorkDifference difference;
};

// A run whose workload recorded a failed validation (its "validation="
// mark, as recorded: "failed: ...").
struct RunValidationFailure {
  std::string side;  // "control", "variant"
  std::string path;
  std::string validation;
};

struct CompareResult {
  CompareOptions options;
  // The rule that chose the windows (compare_windows.h), whether the runs
  // are compared per instance, and why (names both sides' windows when
  // they differ; no note when every run's window is the same kind of range;
  // worded by render/compare_windows_render.h).
  CompareWindowRule window_rule = CompareWindowRule::kGpuSpanNoSteadyState;
  bool per_instance = false;
  CompareWindowNote window_note;
  // "time_per_instance_ns" (per_instance) or "total_interval_ns": the
  // figure the verdict is on (control_total_ns, variant_total_ns, saved).
  std::string figure = "total_interval_ns";
  bool windows_from_nvtx = false;  // every run's windows are instances of options.nvtx_name
  bool steady_state_rule = false;  // window_rule is kSteadyStateSameRange
  std::vector<CompareRun> control, variant;
  std::string reference_path;  // the first control run: the work every run must match
  bool work_same = true;
  std::vector<RunWorkDifference> work_differences;
  // Per instance: differences in work that is not part of every instance
  // (IsOccasional), listed but not counted in work_same.
  std::vector<RunWorkDifference> occasional_work;
  bool validation_passed = true;
  std::vector<RunValidationFailure> validation_failures;
  int64_t validation_not_recorded = 0;
  bool overlap_present = false;
  int64_t variant_certain_hazards = 0;  // summed over the variant runs
  int hazard_run = -1;                  // the first variant run with a certain hazard (index into variant)
  // Per instance: every metric's values are per instance (the run's figure
  // over its windows / its instances).
  std::vector<MetricComparison> metrics;  // the figure first, then total_interval_ns (when not the figure), ...
  int64_t control_total_ns = 0, variant_total_ns = 0;  // medians of the figure
  int64_t saved_ns = 0;                                // control - variant (negative: worse)
  double saved_pct = 0;                                // of the control figure
  int64_t noise_ns = 0;
  CompareVerdict verdict = CompareVerdict::kVerified;
  std::vector<std::string> failed_conditions;  // "work", "validation", "overlap", "gain"
  int diagnosed_run = -1;                      // index into variant
  std::optional<DiagnoseResult> diagnose;      // for variant[diagnosed_run], first window
  std::optional<DiagnoseReference> reference;
  const MetricComparison* Find(std::string_view name) const;
};

// The window(s) of one trace: options' NVTX range (use_nvtx) or the whole
// GPU activity. OUT_OF_RANGE when --nvtx names a range a trace lacks; INVALID_ARGUMENT
// when a trace has no GPU op.
absl::StatusOr<std::vector<Window>> CompareWindows(const TraceModel& model, const CompareOptions& options,
                                                   bool use_nvtx);

// Work, validation and metrics of one run over its windows, measured
// through the analysis pipeline (ComparePlan).
absl::StatusOr<CompareRun> MeasureRun(const TraceModel& model, const std::vector<Window>& windows);
// The same over a chosen RunWindow (instances and time per instance filled in).
absl::StatusOr<CompareRun> MeasureRun(const TraceModel& model, const RunWindow& window);

// The whole comparison. Every model must outlive the result (runs point to
// them). INVALID_ARGUMENT if a side is empty; window errors as above.
absl::StatusOr<CompareResult> Compare(const std::vector<const TraceModel*>& control,
                                      const std::vector<const TraceModel*>& variant, const CompareOptions& options);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_PIPELINE_COMPARE_H_
