#include "analyzer/pipeline/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "analyzer/analysis/causes/launch_stats.h"
#include "analyzer/analysis/memory/hazards.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/pipeline/analysis_plan.h"
#include "analyzer/pipeline/prepared_trace.h"
#include "analyzer/pipeline/run_plan.h"

namespace streamscope {

std::string_view CompareVerdictName(CompareVerdict v) {
  switch (v) {
    case CompareVerdict::kVerified: return "VERIFIED";
    case CompareVerdict::kDifferentWork: return "DIFFERENT_WORK";
    case CompareVerdict::kValidationFailed: return "VALIDATION_FAILED";
    case CompareVerdict::kNoOverlap: return "NO_OVERLAP";
    case CompareVerdict::kOverlapWithoutGain: return "OVERLAP_WITHOUT_GAIN";
    case CompareVerdict::kWithinNoise: return "WITHIN_NOISE";
    case CompareVerdict::kNoGain: return "NO_GAIN";
    case CompareVerdict::kHazard: return "HAZARD";
  }
  return "UNKNOWN";
}

std::string_view CompareGoalName(CompareGoal g) { return g == CompareGoal::kOverlap ? "overlap" : "speedup"; }

MetricStats ComputeStats(std::vector<int64_t> values) {
  MetricStats s;
  s.values = values;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  s.min = values.front();
  s.max = values.back();
  s.median = n % 2 == 1 ? values[n / 2] : values[n / 2 - 1] + (values[n / 2] - values[n / 2 - 1]) / 2;
  if (n >= 3) {
    std::vector<double> dev;
    double mean = 0;
    for (int64_t v : values) {
      dev.push_back(std::fabs(static_cast<double>(v - s.median)));
      mean += static_cast<double>(v);
    }
    std::sort(dev.begin(), dev.end());
    s.mad = n % 2 == 1 ? dev[n / 2] : (dev[n / 2 - 1] + dev[n / 2]) / 2;
    mean /= static_cast<double>(n);
    double ss = 0;
    for (int64_t v : values) ss += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
    s.stdev = std::sqrt(ss / static_cast<double>(n - 1));
  }
  return s;
}

const MetricComparison* CompareResult::Find(std::string_view name) const {
  for (const MetricComparison& m : metrics) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

namespace {

// A period between instance starts longer than this many times the median
// is a one-off (autotuning, a graph's instantiation), not the loop's pace,
// when such periods are few: at most kMaxOneOffs, or a tenth of the periods.
// More are the loop's own rhythm (a DataLoader whose workers deliver
// batches in bursts: three quick steps, then a long wait) and all count.
constexpr int64_t kOneOffPeriodFactor = 3;
constexpr size_t kMaxOneOffs = 2;

// Index of the run whose figure (time per instance or total interval) is
// closest to the median.
int MedianRun(const std::vector<CompareRun>& runs, int64_t median, bool per_instance) {
  auto figure = [per_instance](const CompareRun& run) {
    return per_instance ? run.metrics.time_per_instance_ns : run.metrics.total_interval_ns;
  };
  int best = 0;
  for (size_t i = 1; i < runs.size(); ++i) {
    if (std::llabs(figure(runs[i]) - median) < std::llabs(figure(runs[best]) - median)) {
      best = static_cast<int>(i);
    }
  }
  return best;
}

// Per instance, every metric is the run's figure over its windows divided
// by its instances, so that runs of 12 and 14 steps compare (the time per
// instance already is one).
int64_t PerRun(const CompareResult& r, const CompareRun& run, const std::string& name, int64_t value) {
  if (!r.per_instance || name == "time_per_instance_ns") return value;
  return value / std::max<int64_t>(1, run.window.instances);
}

void AddMetric(CompareResult& r, const std::string& name, int64_t RunMetrics::*field) {
  std::vector<int64_t> c, v;
  for (const CompareRun& run : r.control) c.push_back(PerRun(r, run, name, run.metrics.*field));
  for (const CompareRun& run : r.variant) v.push_back(PerRun(r, run, name, run.metrics.*field));
  MetricComparison m{name, ComputeStats(c), ComputeStats(v), 0, 0};
  m.change_ns = m.variant.median - m.control.median;
  m.change_pct =
      m.control.median != 0 ? 100.0 * static_cast<double>(m.change_ns) / static_cast<double>(m.control.median) : 0;
  r.metrics.push_back(std::move(m));
}

template <typename Get>
void AddMetricBy(CompareResult& r, const std::string& name, Get get, bool skip_if_zero) {
  std::vector<int64_t> c, v;
  bool any = false;
  for (const CompareRun& run : r.control) {
    c.push_back(PerRun(r, run, name, get(run.metrics)));
    any |= c.back() != 0;
  }
  for (const CompareRun& run : r.variant) {
    v.push_back(PerRun(r, run, name, get(run.metrics)));
    any |= v.back() != 0;
  }
  if (skip_if_zero && !any) return;
  MetricComparison m{name, ComputeStats(c), ComputeStats(v), 0, 0};
  m.change_ns = m.variant.median - m.control.median;
  m.change_pct =
      m.control.median != 0 ? 100.0 * static_cast<double>(m.change_ns) / static_cast<double>(m.control.median) : 0;
  r.metrics.push_back(std::move(m));
}

void Decide(CompareResult& r) {
  const CompareOptions& o = r.options;
  bool beyond_noise = std::llabs(r.saved_ns) > r.noise_ns;
  if (!r.work_same) r.failed_conditions.push_back("work");
  if (!r.validation_passed) r.failed_conditions.push_back("validation");
  if (r.variant_certain_hazards > 0) r.failed_conditions.push_back("hazards");
  if (o.goal == CompareGoal::kOverlap && !r.overlap_present) r.failed_conditions.push_back("overlap");
  if (!beyond_noise || r.saved_ns <= 0) r.failed_conditions.push_back("gain");

  if (!r.work_same) {
    r.verdict = CompareVerdict::kDifferentWork;
  } else if (!r.validation_passed) {
    r.verdict = CompareVerdict::kValidationFailed;
  } else if (r.variant_certain_hazards > 0) {
    r.verdict = CompareVerdict::kHazard;  // a speed-up with unordered accesses is not a verified overlap
  } else if (o.goal == CompareGoal::kOverlap && !r.overlap_present) {
    r.verdict = CompareVerdict::kNoOverlap;
  } else if (!beyond_noise) {
    r.verdict = CompareVerdict::kWithinNoise;
  } else if (r.saved_ns < 0) {
    r.verdict = o.goal == CompareGoal::kOverlap ? CompareVerdict::kOverlapWithoutGain : CompareVerdict::kNoGain;
  } else {
    r.verdict = CompareVerdict::kVerified;
  }
}

}  // namespace

absl::StatusOr<std::vector<Window>> CompareWindows(const TraceModel& model, const CompareOptions& options,
                                                   bool use_nvtx) {
  if (use_nvtx) {
    WindowSpec spec;
    spec.kind = WindowSpec::Kind::kNvtxRange;
    spec.nvtx_name = options.nvtx_name;
    spec.nvtx_instance = options.nvtx_instance;
    return ResolveWindows(model, spec);
  }
  absl::StatusOr<Window> w = GpuSpanWindow(model);
  if (!w.ok()) return w.status();
  return std::vector<Window>{*w};
}

absl::StatusOr<CompareRun> MeasureRun(const TraceModel& model, const std::vector<Window>& windows) {
  const AnalysisPlan plan = ComparePlan();
  CompareRun run;
  run.path = model.path;
  run.pid = model.pid;
  run.model = &model;
  run.windows = windows;
  // Hazards: the order and hazards once per trace, only when it recorded accesses.
  run.hazards_checked = !model.memory_accesses.empty();
  TracePreparation what;
  what.summary = true;
  what.hazards = run.hazards_checked;
  absl::StatusOr<PreparedTrace> prepared = PrepareTrace(model, what);
  if (!prepared.ok()) return prepared.status();
  run.workload = prepared->summary.workload.variant;
  run.validation = prepared->summary.workload.validation;
  run.work = WorkIn(model, windows);
  run.window.windows = windows;
  RunMetrics& x = run.metrics;
  const TraceHazards* hazards = run.hazards_checked ? &prepared->hazards : nullptr;
  for (const Window& w : windows) {
    x.window_ns += w.length();
    int64_t first = INT64_MAX, last = INT64_MIN;
    auto [lo, hi] = model.OpRangeFor(w.start_ns, w.end_ns);
    for (size_t i = lo; i < hi; ++i) {
      if (model.ops.start_ns[i] < w.start_ns || model.ops.start_ns[i] >= w.end_ns) continue;
      first = std::min(first, model.ops.start_ns[i]);
      last = std::max(last, model.ops.end_ns[i]);
    }
    if (first != INT64_MAX) x.total_interval_ns += std::min(last, w.end_ns) - first;
    absl::StatusOr<WindowResults> results = RunPlan(model, w, plan, hazards);
    if (!results.ok()) return results.status();
    for (const DeviceOverlap& d : results->overlap.devices) {
      x.busy_ns += d.busy_ns;
      for (const PairOverlap& p : d.pairs) x.pair_ns[p.pair] += p.overlapped_ns;
      IntervalList any;
      for (const OverlapInterval& iv : d.intervals) any.push_back({iv.start_ns, iv.end_ns});
      x.overlap_ns += TotalLength(Normalize(std::move(any)));
    }
    if (hazards) {
      const HazardsResult& h = results->hazards;
      run.certain_hazards += h.certain_count;
      run.possible_hazards += h.possible_count;
      run.certain_hazards_observed += h.certain_observed;
      if (!h.certain.empty() && (!run.first_certain_hazard || h.certain.front().observed_concurrent)) {
        run.first_certain_hazard = h.certain.front();
      }
    }
    const GapCausesResult& gaps = results->gap_causes;
    x.idle_ns += gaps.idle_ns;
    for (int c = 0; c < kNumGapCauses; ++c) x.idle_cause_ns[c] += gaps.cause_ns[c];
    const LaunchStatsResult& launch = results->launch_stats;
    x.graph_removable_ns += launch.graph_removable_ns;
    for (const KernelLaunchStats& k : launch.kernels) x.kernel_gap_ns += k.idle_before_ns;
    // Host time in the calls that launched the window's kernels, each call
    // once: the kernels of one graph replay share a single cudaGraphLaunch.
    absl::flat_hash_set<int32_t> launch_calls;
    for (size_t i = lo; i < hi; ++i) {
      if (model.ops.category[i] != OpCategory::kKernel) continue;
      if (model.ops.start_ns[i] < w.start_ns || model.ops.start_ns[i] >= w.end_ns) continue;
      int32_t a = model.ApiForOp(i);
      if (a >= 0 && launch_calls.insert(a).second) {
        x.launch_api_ns += model.api.end_ns[a] - model.api.start_ns[a];
      }
    }
  }
  x.time_per_instance_ns = x.total_interval_ns;
  return run;
}

absl::StatusOr<CompareRun> MeasureRun(const TraceModel& model, const RunWindow& window) {
  absl::StatusOr<CompareRun> run = MeasureRun(model, window.windows);
  if (!run.ok()) return run.status();
  run->window = window;
  // Steady windows: the mean period between instance starts, leaving out
  // one-off periods (compare_windows.h); named ranges: their GPU
  // intervals, summed, per instance.
  const std::vector<int64_t>& starts = window.instance_starts_ns;
  if (window.source.rfind("steady_state", 0) == 0 && starts.size() >= 2) {
    std::vector<int64_t> periods;
    for (size_t i = 1; i < starts.size(); ++i) periods.push_back(starts[i] - starts[i - 1]);
    std::vector<int64_t> sorted = periods;
    std::sort(sorted.begin(), sorted.end());
    const int64_t median = sorted[(sorted.size() - 1) / 2];
    auto one_off = [median](int64_t p) { return median > 0 && p > kOneOffPeriodFactor * median; };
    const size_t long_periods = static_cast<size_t>(std::count_if(periods.begin(), periods.end(), one_off));
    const bool leave_out = long_periods <= std::max(kMaxOneOffs, periods.size() / 10);
    int64_t sum = 0, count = 0;
    for (int64_t p : periods) {
      if (leave_out && one_off(p)) continue;
      sum += p;
      count += 1;
    }
    run->metrics.time_per_instance_ns = count > 0 ? sum / count : median;
    return run;
  }
  run->metrics.time_per_instance_ns = run->metrics.total_interval_ns / std::max<int64_t>(1, window.instances);
  return run;
}

absl::StatusOr<CompareResult> Compare(const std::vector<const TraceModel*>& control,
                                      const std::vector<const TraceModel*>& variant, const CompareOptions& options) {
  if (control.empty() || variant.empty()) {
    return absl::InvalidArgumentError("compare needs at least one control and one variant trace");
  }
  CompareResult r;
  r.options = options;
  r.options.diagnose.reference = nullptr;
  absl::StatusOr<CompareWindowChoice> choice = ChooseCompareWindows(control, variant, options);
  if (!choice.ok()) return choice.status();
  r.window_rule = choice->rule;
  r.per_instance = choice->per_instance;
  r.window_note = choice->note;
  r.figure = r.per_instance ? "time_per_instance_ns" : "total_interval_ns";
  r.windows_from_nvtx = choice->rule == CompareWindowRule::kSteadyStateSameRange ||
                        choice->rule == CompareWindowRule::kNvtxMeasured || choice->rule == CompareWindowRule::kNvtx;
  r.steady_state_rule = choice->rule == CompareWindowRule::kSteadyStateSameRange;
  if (r.windows_from_nvtx) r.options.nvtx_name = choice->nvtx_name;
  for (int side = 0; side < 2; ++side) {
    const std::vector<const TraceModel*>& models = side == 0 ? control : variant;
    for (size_t i = 0; i < models.size(); ++i) {
      absl::StatusOr<CompareRun> run = MeasureRun(*models[i], (side == 0 ? choice->control : choice->variant)[i]);
      if (!run.ok()) return run.status();
      (side == 0 ? r.control : r.variant).push_back(*std::move(run));
    }
  }

  // Same work as the first control run.
  r.reference_path = r.control.front().path;
  const WorkSummary& expected = r.control.front().work;
  for (int side = 0; side < 2; ++side) {
    const std::vector<CompareRun>& runs = side == 0 ? r.control : r.variant;
    for (size_t i = side == 0 ? 1 : 0; i < runs.size(); ++i) {
      for (WorkDifference& d :
           DiffWorkPerInstance(expected, r.control.front().window.instances, runs[i].work, runs[i].window.instances)) {
        (IsOccasional(d) || IsFewerReadbacks(d) ? r.occasional_work : r.work_differences)
            .push_back({side == 0 ? "control" : "variant", runs[i].path, std::move(d)});
      }
    }
  }
  r.work_same = r.work_differences.empty();

  for (int side = 0; side < 2; ++side) {
    for (const CompareRun& run : side == 0 ? r.control : r.variant) {
      if (run.validation.empty()) {
        r.validation_not_recorded += 1;
      } else if (run.validation.rfind("failed", 0) == 0) {
        r.validation_failures.push_back({side == 0 ? "control" : "variant", run.path, run.validation});
      }
    }
  }
  r.validation_passed = r.validation_failures.empty();
  for (size_t i = 0; i < r.variant.size(); ++i) {
    r.variant_certain_hazards += r.variant[i].certain_hazards;
    if (r.hazard_run < 0 && r.variant[i].first_certain_hazard) r.hazard_run = static_cast<int>(i);
  }

  if (r.per_instance) AddMetric(r, "time_per_instance_ns", &RunMetrics::time_per_instance_ns);
  AddMetric(r, "total_interval_ns", &RunMetrics::total_interval_ns);
  AddMetric(r, "window_ns", &RunMetrics::window_ns);
  AddMetric(r, "busy_ns", &RunMetrics::busy_ns);
  AddMetric(r, "overlap_ns", &RunMetrics::overlap_ns);
  for (int p = 0; p < kNumOverlapPairs; ++p) {
    AddMetricBy(
        r, absl::StrCat("overlap:", OverlapPairName(p)), [p](const RunMetrics& m) { return m.pair_ns[p]; }, true);
  }
  AddMetric(r, "idle_ns", &RunMetrics::idle_ns);
  for (int c = 0; c < kNumGapCauses; ++c) {
    AddMetricBy(
        r, absl::StrCat("idle:", std::string(GapCauseName(static_cast<GapCause>(c)))),
        [c](const RunMetrics& m) { return m.idle_cause_ns[c]; }, true);
  }
  AddMetric(r, "kernel_gap_ns", &RunMetrics::kernel_gap_ns);
  AddMetric(r, "graph_removable_ns", &RunMetrics::graph_removable_ns);
  AddMetric(r, "launch_api_ns", &RunMetrics::launch_api_ns);

  const MetricComparison& total = r.metrics.front();  // the figure
  r.control_total_ns = total.control.median;
  r.variant_total_ns = total.variant.median;
  r.saved_ns = r.control_total_ns - r.variant_total_ns;
  r.saved_pct =
      r.control_total_ns > 0 ? 100.0 * static_cast<double>(r.saved_ns) / static_cast<double>(r.control_total_ns) : 0;
  r.noise_ns =
      std::max({static_cast<int64_t>(std::llround(options.noise_pct / 100.0 * static_cast<double>(r.control_total_ns))),
                total.control.range(), total.variant.range()});
  const MetricComparison* ov = r.Find("overlap_ns");
  const MetricComparison* busy = r.Find("busy_ns");
  r.overlap_present =
      ov->variant.median > 0 &&
      static_cast<double>(ov->variant.median) >= options.min_overlap_share * static_cast<double>(busy->variant.median);
  Decide(r);

  bool diagnose = r.verdict == CompareVerdict::kNoOverlap || r.verdict == CompareVerdict::kOverlapWithoutGain ||
                  r.verdict == CompareVerdict::kWithinNoise || r.verdict == CompareVerdict::kNoGain;
  if (diagnose) {
    int c = MedianRun(r.control, r.control_total_ns, r.per_instance);
    r.diagnosed_run = MedianRun(r.variant, r.variant_total_ns, r.per_instance);
    const CompareRun& run = r.variant[r.diagnosed_run];
    r.reference = BuildDiagnoseReference(*r.control[c].model, r.control[c].windows, options.diagnose);
    if (!run.windows.empty()) {
      DiagnoseOptions d = options.diagnose;
      d.reference = &*r.reference;
      absl::StatusOr<WindowResults> diagnosed = RunPlan(*run.model, run.windows.front(), DiagnosePlan(d));
      if (!diagnosed.ok()) return diagnosed.status();
      r.diagnose = std::move(diagnosed->diagnose);
      if (run.windows.size() > 1) {
        r.diagnose->notes.push_back({DiagnoseNote::Kind::kFirstOfWindows, static_cast<int64_t>(run.windows.size())});
      }
    }
  }
  return r;
}

}  // namespace streamscope
