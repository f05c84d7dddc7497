#include "analyzer/pipeline/compare_windows.h"

#include <algorithm>
#include <climits>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/pipeline/compare.h"
#include "analyzer/pipeline/compare_work.h"

namespace streamscope {

std::string_view CompareWindowRuleName(CompareWindowRule r) {
  switch (r) {
    case CompareWindowRule::kSteadyStateSameRange: return "steady_state_same_range";
    case CompareWindowRule::kNvtxMeasured: return "nvtx_measured";
    case CompareWindowRule::kSteadyStateMatched: return "steady_state_matched";
    case CompareWindowRule::kGpuSpanWorkDiffers: return "gpu_span_work_differs";
    case CompareWindowRule::kGpuSpanNoSteadyState: return "gpu_span_no_steady_state";
    case CompareWindowRule::kNvtx: return "nvtx";
    case CompareWindowRule::kWholeGpu: return "whole_gpu";
  }
  return "unknown";
}

absl::StatusOr<Window> GpuSpanWindow(const TraceModel& model) {
  if (model.ops.size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat(model.path, ": the trace holds no GPU op to compare"));
  }
  Window w;
  w.start_ns = model.ops.start_ns.front();
  w.end_ns = *std::max_element(model.ops.end_ns.begin(), model.ops.end_ns.end());
  w.end_ns = std::max(w.end_ns, w.start_ns + 1);
  w.origin.kind = WindowKind::kWholeGpuActivity;
  return w;
}

namespace {

bool HasNvtxRange(const TraceModel& m, const std::string& name) {
  for (const NvtxRange& r : m.nvtx_ranges) {
    if (m.strings.Get(r.name) == name) return true;
  }
  return false;
}

bool HasSteadyState(const SteadyState& s) {
  return s.method == SteadyStateMethod::kNvtxRange || s.method == SteadyStateMethod::kKernelSequence;
}

std::string SteadyRangeName(const TraceModel& m) {
  const SteadyState& s = DefaultSteadyState(m);
  return s.method == SteadyStateMethod::kNvtxRange ? std::string(m.strings.Get(s.nvtx_name)) : std::string();
}

// When each op was submitted: its call's start, else its own start.
int64_t SubmitTime(const TraceModel& m, size_t op) {
  int32_t a = m.ApiForOp(op);
  return a >= 0 ? m.api.start_ns[a] : m.ops.start_ns[op];
}

// Per NVTX instance (by start), the GPU start of the first op submitted
// inside it; instances that submitted nothing are left out.
std::vector<int64_t> NvtxInstanceStarts(const TraceModel& m, const SteadyState& s) {
  std::vector<std::pair<int64_t, int64_t>> by_submit;  // (submit, GPU start)
  by_submit.reserve(m.ops.size());
  for (size_t i = 0; i < m.ops.size(); ++i) by_submit.push_back({SubmitTime(m, i), m.ops.start_ns[i]});
  std::sort(by_submit.begin(), by_submit.end());
  std::vector<int64_t> starts;
  for (int32_t r : s.nvtx_instances) {
    const NvtxRange& nr = m.nvtx_ranges[r];
    int64_t end = nr.end_ns.value_or(nr.start_ns);
    int64_t first = INT64_MAX;
    for (auto it = std::lower_bound(by_submit.begin(), by_submit.end(), std::make_pair(nr.start_ns, INT64_MIN));
         it != by_submit.end() && it->first < end; ++it) {
      first = std::min(first, it->second);
    }
    if (first != INT64_MAX) starts.push_back(first);
  }
  return starts;
}

// Per repeat of the kernel sequence, the GPU start of its first kernel (the
// kernels in submission order, as steady_state.cc orders them).
std::vector<int64_t> SequenceRepeatStarts(const TraceModel& m, const SteadyState& s) {
  std::vector<int32_t> kernels;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == OpCategory::kKernel) kernels.push_back(static_cast<int32_t>(i));
  }
  std::sort(kernels.begin(), kernels.end(), [&](int32_t a, int32_t b) {
    return std::make_tuple(SubmitTime(m, a), m.ops.correlation_id[a], a) <
           std::make_tuple(SubmitTime(m, b), m.ops.correlation_id[b], b);
  });
  std::vector<int64_t> starts;
  auto first = std::find(kernels.begin(), kernels.end(), s.first_kernel);
  if (first == kernels.end() || s.period_kernels <= 0) return starts;
  const size_t pos = static_cast<size_t>(first - kernels.begin());
  for (int64_t r = 0; r < s.repeats; ++r) {
    size_t k = pos + static_cast<size_t>(r * s.period_kernels);
    if (k >= kernels.size()) break;
    starts.push_back(m.ops.start_ns[kernels[k]]);
  }
  return starts;
}

// The run's steady-state window as one window of `instances` instances.
RunWindow SteadyRunWindow(const TraceModel& m) {
  const SteadyState& s = DefaultSteadyState(m);
  RunWindow r;
  r.windows = {s.window};
  if (s.method == SteadyStateMethod::kNvtxRange) {
    r.source = "steady_state_nvtx_range";
    r.nvtx_name = std::string(m.strings.Get(s.nvtx_name));
    r.instances = static_cast<int64_t>(s.nvtx_instances.size());
    r.instance_starts_ns = NvtxInstanceStarts(m, s);
  } else {
    r.source = "steady_state_kernel_sequence";
    r.period_kernels = s.period_kernels;
    r.instances = s.repeats;
    r.instance_starts_ns = SequenceRepeatStarts(m, s);
  }
  std::sort(r.instance_starts_ns.begin(), r.instance_starts_ns.end());
  r.instances = std::max<int64_t>(1, r.instances);
  return r;
}

absl::StatusOr<RunWindow> GpuSpanRunWindow(const TraceModel& m, GpuSpanReason why) {
  absl::StatusOr<Window> w = GpuSpanWindow(m);
  if (!w.ok()) return w.status();
  RunWindow r;
  r.windows = {*w};
  r.source = "gpu_span";
  r.why = why;
  if (why == GpuSpanReason::kSteadyStateUnused || why == GpuSpanReason::kSteadyStateOtherWork) {
    r.steady_state = DefaultSteadyState(m).window.origin;
  }
  return r;
}

absl::StatusOr<RunWindow> NvtxRunWindow(const TraceModel& m, const CompareOptions& o, const std::string& name) {
  WindowSpec spec;
  spec.kind = WindowSpec::Kind::kNvtxRange;
  spec.nvtx_name = name;
  spec.nvtx_instance = o.nvtx_instance;
  absl::StatusOr<std::vector<Window>> w = ResolveWindows(m, spec);
  if (!w.ok()) return w.status();
  RunWindow r;
  r.windows = *std::move(w);
  r.source = "nvtx_range";
  r.nvtx_name = name;
  r.nvtx_instance = o.nvtx_instance;
  r.instances = std::max<int64_t>(1, static_cast<int64_t>(r.windows.size()));
  return r;
}

// Work differences of every run from the first control run, per instance,
// without occasional work or fewer small read-backs (compare_work.h).
std::vector<WorkDifference> PerInstanceDifferences(const std::vector<const TraceModel*>& models,
                                                   const std::vector<RunWindow>& runs) {
  std::vector<WorkDifference> out;
  WorkSummary expected = WorkIn(*models.front(), runs.front().windows);
  for (size_t i = 1; i < models.size(); ++i) {
    for (WorkDifference& d : DiffWorkPerInstance(expected, runs.front().instances, WorkIn(*models[i], runs[i].windows),
                                                 runs[i].instances)) {
      if (!IsOccasional(d) && !IsFewerReadbacks(d)) out.push_back(std::move(d));
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<CompareWindowChoice> ChooseCompareWindows(const std::vector<const TraceModel*>& control,
                                                         const std::vector<const TraceModel*>& variant,
                                                         const CompareOptions& options) {
  CompareWindowChoice c;
  std::vector<const TraceModel*> all = control;
  all.insert(all.end(), variant.begin(), variant.end());
  // Fills both sides with make(model) -> StatusOr<RunWindow>.
  auto fill = [&](auto make) -> absl::Status {
    c.control.clear();
    c.variant.clear();
    for (int side = 0; side < 2; ++side) {
      for (const TraceModel* m : side == 0 ? control : variant) {
        absl::StatusOr<RunWindow> r = make(*m);
        if (!r.ok()) return r.status();
        (side == 0 ? c.control : c.variant).push_back(*std::move(r));
      }
    }
    return absl::OkStatus();
  };
  auto nvtx = [&](const std::string& name) {
    c.nvtx_name = name;
    return fill([&](const TraceModel& m) { return NvtxRunWindow(m, options, name); });
  };
  auto gpu_span = [&](auto why) { return fill([&](const TraceModel& m) { return GpuSpanRunWindow(m, why(m)); }); };
  auto steady = [&]() {
    return fill([&](const TraceModel& m) -> absl::StatusOr<RunWindow> {
      if (m.ops.size() == 0) return GpuSpanWindow(m).status();
      return SteadyRunWindow(m);
    });
  };

  absl::Status status;
  if (options.window_rule == CompareOptions::WindowRule::kNvtx) {
    c.rule = CompareWindowRule::kNvtx;
    status = nvtx(options.nvtx_name);
  } else if (options.window_rule == CompareOptions::WindowRule::kWholeGpu) {
    c.rule = CompareWindowRule::kWholeGpu;
    status = gpu_span([](const TraceModel&) { return GpuSpanReason::kAskedFor; });
  } else {
    std::string name = SteadyRangeName(*all.front());
    bool same_range = !name.empty();
    bool measured = true, steady_everywhere = true;
    std::vector<CompareWindowNote::Run> without;  // runs without a steady state
    for (int side = 0; side < 2; ++side) {
      for (const TraceModel* m : side == 0 ? control : variant) {
        same_range &= SteadyRangeName(*m) == name;
        measured &= HasNvtxRange(*m, "measured");
        if (!HasSteadyState(DefaultSteadyState(*m))) {
          steady_everywhere = false;
          without.push_back({side == 0, m->path});
        }
      }
    }
    if (same_range) {
      c.rule = CompareWindowRule::kSteadyStateSameRange;
      c.nvtx_name = name;
      status = steady();
    } else if (measured) {
      c.rule = CompareWindowRule::kNvtxMeasured;
      status = nvtx("measured");
    } else if (steady_everywhere) {
      c.rule = CompareWindowRule::kSteadyStateMatched;
      status = steady();
      if (status.ok()) {
        c.note.steady_control = c.control;
        c.note.steady_variant = c.variant;
        std::vector<WorkDifference> diffs = PerInstanceDifferences(all, [&] {
          std::vector<RunWindow> runs = c.control;
          runs.insert(runs.end(), c.variant.begin(), c.variant.end());
          return runs;
        }());
        if (!diffs.empty()) {
          // One side's instance is not the other's (a kernel sequence that
          // is one layer of a step): the whole GPU activity, if it did the
          // same work, is the comparable window.
          CompareWindowChoice steady_choice = c;
          absl::Status span = gpu_span([](const TraceModel&) { return GpuSpanReason::kSteadyStateOtherWork; });
          std::vector<RunWindow> runs = c.control;
          runs.insert(runs.end(), c.variant.begin(), c.variant.end());
          if (span.ok() && PerInstanceDifferences(all, runs).empty()) {
            c.rule = CompareWindowRule::kGpuSpanWorkDiffers;
            c.note.difference = diffs.front();
          } else {
            c = std::move(steady_choice);
            c.note.work_differs_everywhere = true;
          }
        }
      }
    } else {
      c.rule = CompareWindowRule::kGpuSpanNoSteadyState;
      status = gpu_span([](const TraceModel& m) {
        return HasSteadyState(DefaultSteadyState(m)) ? GpuSpanReason::kSteadyStateUnused
                                                     : GpuSpanReason::kNoSteadyState;
      });
      c.note.without_steady_state = std::move(without);
    }
  }
  if (!status.ok()) return status;
  for (const std::vector<RunWindow>* side : {&c.control, &c.variant}) {
    for (const RunWindow& r : *side) c.per_instance |= r.instances > 1;
  }
  return c;
}

}  // namespace streamscope
