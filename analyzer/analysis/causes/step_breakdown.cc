#include "analyzer/analysis/causes/step_breakdown.h"

#include <algorithm>
#include <string_view>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/causes/lower_median.h"
#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

std::string_view InstanceSourceName(InstanceSource s) {
  switch (s) {
    case InstanceSource::kNone: return "none";
    case InstanceSource::kNvtxRange: return "nvtx_range";
    case InstanceSource::kKernelSequence: return "kernel_sequence";
    case InstanceSource::kProfilerStep: return "profiler_step";
  }
  return "none";
}

namespace {

int64_t SubmitTime(const TraceModel& m, size_t op) {
  int32_t a = m.ApiForOp(op);
  return a >= 0 ? m.api.start_ns[a] : m.ops.start_ns[op];
}

// One instance before its bounds are settled: its host span and the end of
// the GPU work submitted in it.
struct Pending {
  int64_t host_start = 0, host_end = 0;
  int64_t gpu_end = kMinTime;
  int32_t nvtx = -1;
};

// NVTX ranges as instances, by start; an op is an instance's work when its
// call started inside the range.
std::vector<Pending> NvtxInstances(const TraceModel& m, const std::vector<int32_t>& ranges) {
  std::vector<Pending> out;
  for (int32_t r : ranges) {
    const NvtxRange& nr = m.nvtx_ranges[r];
    if (nr.end_ns) out.push_back({nr.start_ns, *nr.end_ns, kMinTime, r});
  }
  std::sort(out.begin(), out.end(), [](const Pending& a, const Pending& b) {
    return std::tie(a.host_start, a.nvtx) < std::tie(b.host_start, b.nvtx);
  });
  for (size_t i = 0; i < m.ops.size() && !out.empty(); ++i) {
    const int64_t t = SubmitTime(m, i);
    auto it = std::upper_bound(out.begin(), out.end(), t, [](int64_t v, const Pending& x) { return v < x.host_start; });
    if (it == out.begin()) continue;
    Pending& x = *(it - 1);
    if (t < x.host_end) x.gpu_end = std::max(x.gpu_end, m.ops.end_ns[i]);
  }
  return out;
}

// The steady state's kernel-sequence repeats. The ops in submission order
// (the steady state's order: call start, correlation id, index): a
// repeat's work runs from its first kernel to the next repeat's first
// kernel; the last one's to its last kernel and the other ops submitted
// before the next kernel. Its host span: from the call that submitted its
// first kernel to the one that submitted the next repeat's.
std::vector<Pending> KernelSequenceInstances(const TraceModel& m, const SteadyState& ss) {
  std::vector<Pending> out;
  if (ss.period_kernels <= 0 || ss.first_kernel < 0 || ss.last_kernel < 0) return out;
  std::vector<int64_t> submit(m.ops.size());
  std::vector<int32_t> order(m.ops.size());
  for (size_t i = 0; i < m.ops.size(); ++i) {
    submit[i] = SubmitTime(m, i);
    order[i] = static_cast<int32_t>(i);
  }
  std::sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    return std::make_tuple(submit[a], m.ops.correlation_id[a], a) <
           std::make_tuple(submit[b], m.ops.correlation_id[b], b);
  });
  auto position = [&](int32_t op) {
    return static_cast<size_t>(std::find(order.begin(), order.end(), op) - order.begin());
  };
  size_t k = position(ss.first_kernel);
  const size_t last = position(ss.last_kernel);
  if (k >= order.size() || last >= order.size()) return out;
  size_t end = last + 1;  // past the last repeat's work
  while (end < order.size() && m.ops.category[order[end]] != OpCategory::kKernel) ++end;
  // Each repeat's first position: every period_kernels-th kernel from the first.
  std::vector<size_t> starts;
  int64_t kernels = 0;
  for (size_t p = k; p <= last; ++p) {
    if (m.ops.category[order[p]] != OpCategory::kKernel) continue;
    if (kernels++ % ss.period_kernels == 0 && static_cast<int64_t>(starts.size()) < ss.repeats) starts.push_back(p);
  }
  for (size_t r = 0; r < starts.size(); ++r) {
    const size_t to = r + 1 < starts.size() ? starts[r + 1] : end;
    Pending x;
    x.host_start = submit[order[starts[r]]];
    x.host_end = r + 1 < starts.size() ? submit[order[to]] : x.host_start;
    for (size_t p = starts[r]; p < to; ++p) x.gpu_end = std::max(x.gpu_end, m.ops.end_ns[order[p]]);
    out.push_back(x);
  }
  if (!out.empty()) out.front().host_start = std::min(out.front().host_start, ss.window.start_ns);
  return out;
}

// torch.profiler's step ranges, "ProfilerStep#<n>" (closed ones).
std::vector<int32_t> ProfilerSteps(const TraceModel& m) {
  constexpr std::string_view kPrefix = "ProfilerStep#";
  std::vector<int32_t> out;
  for (size_t r = 0; r < m.nvtx_ranges.size(); ++r) {
    const NvtxRange& nr = m.nvtx_ranges[r];
    const std::string_view name = m.strings.Get(nr.name);
    if (!nr.end_ns || !name.starts_with(kPrefix) || name.size() == kPrefix.size()) continue;
    const std::string_view digits = name.substr(kPrefix.size());
    if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      out.push_back(static_cast<int32_t>(r));
    }
  }
  return out;
}

// Each instance from when the one before it finished (or its own start, if
// later) to the later of its own end and the end of its GPU work.
std::vector<InstanceRow> Settle(const std::vector<Pending>& pending) {
  std::vector<InstanceRow> rows;
  int64_t previous_end = kMinTime;
  for (size_t k = 0; k < pending.size(); ++k) {
    const Pending& p = pending[k];
    InstanceRow x;
    x.index = static_cast<int32_t>(k);
    x.nvtx = p.nvtx;
    x.start_ns = std::max(p.host_start, previous_end);
    x.end_ns = std::max({p.host_end, p.gpu_end, x.start_ns});
    previous_end = x.end_ns;
    rows.push_back(x);
  }
  return rows;
}

// Union time of a normalized list inside spans, by prefix sums.
class CoveredTime {
 public:
  explicit CoveredTime(IntervalList list) : list_(std::move(list)), prefix_(list_.size() + 1, 0) {
    for (size_t i = 0; i < list_.size(); ++i) prefix_[i + 1] = prefix_[i] + list_[i].length();
  }
  int64_t In(Interval span) const { return Before(span.end) - Before(span.start); }

 private:
  // Covered time before t.
  int64_t Before(int64_t t) const {
    auto it = std::upper_bound(list_.begin(), list_.end(), t, [](int64_t v, const Interval& x) { return v < x.start; });
    if (it == list_.begin()) return 0;
    const size_t i = static_cast<size_t>(it - list_.begin()) - 1;
    return prefix_[i] + std::min(t, list_[i].end) - list_[i].start;
  }
  IntervalList list_;
  std::vector<int64_t> prefix_;
};

// Compute, copy and copy-beside-compute time per span, summed over devices.
void AddOverlap(const TraceModel& m, const Window& w, std::vector<InstanceRow>& rows) {
  // Kernels and copies: united as they come (in start order), not listed
  // (at 100M ops, 1.5 GB of intervals).
  absl::flat_hash_map<int32_t, std::pair<SortedUnion, SortedUnion>> by_device;
  auto [first, last] = m.OpRangeFor(w.start_ns, w.end_ns);
  for (size_t i = first; i < last; ++i) {
    const OpCategory c = m.ops.category[i];
    if (c != OpCategory::kKernel && !IsCopy(c)) continue;
    Interval x = {std::max(m.ops.start_ns[i], w.start_ns), std::min(m.ops.end_ns[i], w.end_ns)};
    if (x.empty()) continue;
    auto& unions = by_device[m.ops.device_id[i]];
    (c == OpCategory::kKernel ? unions.first : unions.second).Add(x);
  }
  for (auto& [device, unions] : by_device) {
    IntervalList kernels = unions.first.Take(), copies = unions.second.Take();
    CoveredTime compute(kernels), copy(copies), both(Intersect(kernels, copies));
    for (InstanceRow& x : rows) {
      const Interval span = {x.start_ns, x.end_ns};
      const int64_t k = compute.In(span), c = copy.In(span);
      x.compute_ns += k;
      x.copy_ns += c;
      x.overlap_ns += both.In(span);
      x.overlap_possible_ns += std::min(k, c);
    }
  }
}

// Idle time per span and its largest cause, from the partition's parts.
void AddIdle(const GapCausesResult& gaps, std::vector<InstanceRow>& rows, StepBreakdown& out) {
  using Key = std::pair<GapCause, StringId>;
  std::vector<absl::flat_hash_map<Key, int64_t>> by_key(rows.size());
  int64_t inside = 0;
  for (const GapPart& p : gaps.parts) {
    auto it = std::upper_bound(rows.begin(), rows.end(), p.start_ns,
                               [](int64_t v, const InstanceRow& x) { return v < x.start_ns; });
    if (it != rows.begin()) --it;
    for (; it != rows.end() && it->start_ns < p.end_ns; ++it) {
      const int64_t ns = ClippedLength({p.start_ns, p.end_ns}, {it->start_ns, it->end_ns});
      if (ns <= 0) continue;
      it->idle_ns += ns;
      inside += ns;
      by_key[static_cast<size_t>(it - rows.begin())][{p.cause, p.detail}] += ns;
    }
  }
  out.idle_ns = gaps.idle_ns;
  out.outside_idle_ns = gaps.idle_ns - inside;
  for (size_t k = 0; k < rows.size(); ++k) {
    std::array<int64_t, kNumGapCauses> cause_ns{};
    for (const auto& [key, ns] : by_key[k]) cause_ns[static_cast<int>(key.first)] += ns;
    const auto top = std::max_element(cause_ns.begin(), cause_ns.end());
    if (*top <= 0) continue;
    InstanceRow& x = rows[k];
    x.has_cause = true;
    x.top_cause = static_cast<GapCause>(top - cause_ns.begin());
    x.top_cause_ns = *top;
    int64_t best = 0;
    for (const auto& [key, ns] : by_key[k]) {
      if (key.first == x.top_cause && (ns > best || (ns == best && key.second < x.top_detail))) {
        best = ns;
        x.top_detail = key.second;
      }
    }
  }
}

}  // namespace

StepBreakdown AnalyzeStepBreakdown(const TraceModel& model, const Window& window, const GapCausesResult& gaps) {
  StepBreakdown out;
  // One instance of a named range (--nvtx NAME): a window of its own, the
  // instances' other view; no rows.
  if (window.origin.kind == WindowKind::kNvtxInstance) return out;
  const SteadyState& ss = DefaultSteadyState(model);
  std::vector<Pending> pending;
  if (std::vector<int32_t> steps = ProfilerSteps(model); steps.size() >= 2) {
    out.source = InstanceSource::kProfilerStep;
    pending = NvtxInstances(model, steps);
  } else if (ss.method == SteadyStateMethod::kNvtxRange) {
    out.source = InstanceSource::kNvtxRange;
    out.nvtx_name = ss.nvtx_name;
    pending = NvtxInstances(model, ss.nvtx_instances);
  } else if (ss.method == SteadyStateMethod::kKernelSequence) {
    out.source = InstanceSource::kKernelSequence;
    out.period_kernels = ss.period_kernels;
    pending = KernelSequenceInstances(model, ss);
  }
  for (InstanceRow& x : Settle(pending)) {
    x.start_ns = std::max(x.start_ns, window.start_ns);
    x.end_ns = std::min(x.end_ns, window.end_ns);
    if (x.end_ns > x.start_ns) out.rows.push_back(x);
  }
  if (out.rows.size() < 2) {
    out.rows.clear();
    return out;
  }
  const int64_t devices = static_cast<int64_t>(gaps.devices.size());
  int64_t covered = 0;
  std::vector<int64_t> lengths;
  for (InstanceRow& x : out.rows) {
    x.device_ns = x.length() * devices;
    covered += x.length();
    lengths.push_back(x.length());
  }
  out.outside_ns = std::max<int64_t>(0, window.length() - covered);
  AddOverlap(model, window, out.rows);
  AddIdle(gaps, out.rows, out);
  out.median_ns = LowerMedian(lengths);
  for (InstanceRow& x : out.rows) {
    x.busy_ns = x.device_ns - x.idle_ns;
    x.slow = static_cast<double>(x.length()) > kSlowInstanceFactor * static_cast<double>(out.median_ns);
    out.slow_count += x.slow ? 1 : 0;
  }
  return out;
}

}  // namespace streamscope
