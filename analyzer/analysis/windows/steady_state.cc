#include "analyzer/analysis/windows/steady_state.h"
#include "analyzer/analysis/causes/lower_median.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <tuple>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "analyzer/analysis/windows/submission_order.h"
#include "analyzer/base/threads.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

std::string_view SteadyStateMethodName(SteadyStateMethod m) {
  switch (m) {
    case SteadyStateMethod::kNvtxRange: return "nvtx_range";
    case SteadyStateMethod::kKernelSequence: return "kernel_sequence";
    case SteadyStateMethod::kGpuSpan: return "gpu_span";
    case SteadyStateMethod::kNone: return "none";
  }
  return "unknown";
}

namespace {

int64_t Duration(const TraceModel& m, size_t i) {
  return std::max<int64_t>(0, SaturatingSub(m.ops.end_ns[i], m.ops.start_ns[i]));
}

// Per op: when it was submitted (its call's start, else its own start).
std::vector<int64_t> SubmitTimes(const TraceModel& m) {
  std::vector<int64_t> t(m.ops.size());
  for (size_t i = 0; i < m.ops.size(); ++i) {
    int32_t a = m.ApiForOp(i);
    t[i] = a >= 0 ? m.api.start_ns[a] : m.ops.start_ns[i];
  }
  return t;
}

// GPU op time submitted inside `spans` (normalized) and the latest end of
// those ops.
std::pair<int64_t, int64_t> SubmittedInside(const TraceModel& m, const std::vector<int64_t>& submit,
                                            const IntervalList& spans) {
  int64_t time = 0, last_end = kMinTime;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    auto it = std::upper_bound(spans.begin(), spans.end(), submit[i],
                               [](int64_t t, const Interval& s) { return t < s.start; });
    if (it == spans.begin() || submit[i] >= (it - 1)->end) continue;
    time = SaturatingAdd(time, Duration(m, i));
    last_end = std::max(last_end, m.ops.end_ns[i]);
  }
  return {time, last_end};
}

// The ops in submission order (ties by index), so that the ops submitted
// inside a set of spans are runs of it. Only the order is kept (4 bytes an
// op, not 40): times, durations and ends are read through it, and submit
// times mostly follow the op order, so those reads stay near each other.
struct OpsBySubmit {
  OpsBySubmit(const TraceModel& m, const std::vector<int64_t>& submit)
      : m(m), submit(submit), order(SubmissionOrder(m, submit)) {}
  const TraceModel& m;
  const std::vector<int64_t>& submit;
  std::vector<uint32_t> order;
};

// SubmittedInside on ops in submission order (`spans` normalized: disjoint,
// so each op counts once; durations are not negative, so the saturating sum
// does not depend on the order): one run per span instead of a binary search
// per op (at 1M ops and up to 32 candidate ranges, 0.2 s).
std::pair<int64_t, int64_t> SubmittedInside(const OpsBySubmit& ops, const IntervalList& spans) {
  int64_t time = 0, last_end = kMinTime;
  const std::vector<uint32_t>& order = ops.order;
  for (const Interval& s : spans) {
    auto k = std::partition_point(order.begin(), order.end(), [&](uint32_t i) { return ops.submit[i] < s.start; });
    for (; k != order.end() && ops.submit[*k] < s.end; ++k) {
      time = SaturatingAdd(time, Duration(ops.m, *k));
      last_end = std::max(last_end, ops.m.ops.end_ns[*k]);
    }
  }
  return {time, last_end};
}

// Nesting depth of every range on its thread (ranges sorted by start).
std::vector<int32_t> NestingDepths(const TraceModel& m) {
  std::vector<int32_t> depth(m.nvtx_ranges.size(), 0);
  absl::flat_hash_map<int64_t, std::vector<int64_t>> open;  // tid -> ends of enclosing ranges
  for (size_t r = 0; r < m.nvtx_ranges.size(); ++r) {
    const NvtxRange& nr = m.nvtx_ranges[r];
    std::vector<int64_t>& stack = open[nr.tid];
    while (!stack.empty() && stack.back() <= nr.start_ns) stack.pop_back();
    depth[r] = static_cast<int32_t>(stack.size());
    stack.push_back(nr.end_ns.value_or(kMaxTime));
  }
  return depth;
}

bool ByNvtxRange(const TraceModel& m, const SteadyStateOptions& o, const std::vector<int64_t>& submit, int64_t total,
                 SteadyState& out) {
  struct Candidate {
    StringId name;
    std::vector<int32_t> instances;
    int32_t depth = std::numeric_limits<int32_t>::max();
  };
  std::vector<int32_t> depth = NestingDepths(m);
  absl::flat_hash_map<StringId, Candidate> by_name;
  for (size_t r = 0; r < m.nvtx_ranges.size(); ++r) {
    const NvtxRange& nr = m.nvtx_ranges[r];
    if (!nr.end_ns || *nr.end_ns <= nr.start_ns) continue;
    Candidate& c = by_name[nr.name];
    c.name = nr.name;
    c.instances.push_back(static_cast<int32_t>(r));
    c.depth = std::min(c.depth, depth[r]);
  }
  std::vector<Candidate*> candidates;
  for (auto& [name, c] : by_name) {
    if (c.instances.size() >= static_cast<size_t>(std::max(1, o.min_instances))) candidates.push_back(&c);
  }
  auto first_start = [&](const Candidate* c) { return m.nvtx_ranges[c->instances.front()].start_ns; };
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate* a, const Candidate* b) {
    return std::make_tuple(a->depth, -static_cast<int64_t>(a->instances.size()), first_start(a), a->name) <
           std::make_tuple(b->depth, -static_cast<int64_t>(b->instances.size()), first_start(b), b->name);
  });
  constexpr size_t kMaxEvaluated = 32;  // each costs a pass over the ops
  std::optional<OpsBySubmit> by_submit;
  for (size_t k = 0; k < candidates.size() && k < kMaxEvaluated; ++k) {
    const Candidate& c = *candidates[k];
    IntervalList spans;
    int64_t last_end = kMinTime;
    for (int32_t r : c.instances) {
      spans.push_back({m.nvtx_ranges[r].start_ns, *m.nvtx_ranges[r].end_ns});
      last_end = std::max(last_end, *m.nvtx_ranges[r].end_ns);
    }
    spans = Normalize(std::move(spans));
    if (!by_submit) by_submit.emplace(m, submit);
    auto [time, ops_end] = SubmittedInside(*by_submit, spans);
    // Of the GPU time submitted from the first instance on: what ran before
    // the program's loop (compilation, autotuning, warm-up) is reported
    // apart like start-up, not weighed against its steps.
    const int64_t from_first = SubmittedInside(*by_submit, {{spans.front().start, kMaxTime}}).first;
    const int64_t base = from_first > 0 ? from_first : total;
    double share = base > 0 ? static_cast<double>(time) / static_cast<double>(base) : 0;
    if (share < o.min_gpu_share) continue;
    out.method = SteadyStateMethod::kNvtxRange;
    out.nvtx_name = c.name;
    out.nvtx_instances = c.instances;
    out.nvtx_depth = c.depth;
    out.gpu_share = share;
    out.window.start_ns = spans.front().start;
    out.window.end_ns = std::max(last_end, ops_end);
    out.window.origin = WindowOrigin{};
    out.window.origin.kind = WindowKind::kSteadyNvtxRange;
    out.window.origin.name = std::string(m.strings.Get(c.name));
    out.window.origin.count = static_cast<int64_t>(c.instances.size());
    return true;
  }
  return false;
}

bool ByKernelSequence(const TraceModel& m, const SteadyStateOptions& o, const std::vector<int64_t>& submit,
                      int64_t total, SteadyState& out) {
  std::vector<int32_t> kernels;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] == OpCategory::kKernel) kernels.push_back(static_cast<int32_t>(i));
  }
  std::sort(kernels.begin(), kernels.end(), [&](int32_t a, int32_t b) {
    return std::make_tuple(submit[a], m.ops.correlation_id[a], a) <
           std::make_tuple(submit[b], m.ops.correlation_id[b], b);
  });
  const int64_t n = static_cast<int64_t>(kernels.size());
  const int64_t min_repeats = std::max(2, o.min_instances);
  if (n < min_repeats) return false;
  std::vector<StringId> names(kernels.size());
  for (size_t k = 0; k < kernels.size(); ++k) names[k] = m.ops.name[kernels[k]];
  // Candidate periods: distances between consecutive launches of a name.
  absl::flat_hash_map<StringId, int64_t> last_seen;
  absl::flat_hash_map<int64_t, int64_t> distance_count;
  for (int64_t k = 0; k < n; ++k) {
    auto [it, inserted] = last_seen.try_emplace(names[k], k);
    if (!inserted) {
      int64_t d = k - it->second;
      if (d * min_repeats <= n) ++distance_count[d];
      it->second = k;
    }
  }
  std::vector<std::pair<int64_t, int64_t>> periods(distance_count.begin(), distance_count.end());  // (d, count)
  std::sort(periods.begin(), periods.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  if (periods.size() > static_cast<size_t>(std::max(1, o.max_candidate_periods))) {
    periods.resize(static_cast<size_t>(std::max(1, o.max_candidate_periods)));
  }
  int64_t best_len = 0, best_p = 0, best_a = 0;
  for (const auto& [p, count] : periods) {
    int64_t run = 0;
    for (int64_t i = 0; i + p < n; ++i) {
      run = names[i] == names[i + p] ? run + 1 : 0;
      int64_t len = run + p;  // the stretch [i - run + 1, i + p]
      if (run > 0 && len / p >= min_repeats && (len > best_len || (len == best_len && p < best_p))) {
        best_len = len;
        best_p = p;
        best_a = i - run + 1;
      }
    }
  }
  if (best_len == 0) return false;
  int64_t repeats = best_len / best_p;
  int32_t first = kernels[best_a], last = kernels[best_a + repeats * best_p - 1];
  // The repeats hold the other ops submitted between their kernels too
  // (the copies of a chunked loop): from the first op submitted after the
  // kernel before the stretch (from the first op when there is none) to the
  // last op submitted before the kernel after it (to the last op).
  // At most one repeat's time (the median) before the stretch and after
  // it, so that start-up and tear-down stay out.
  std::vector<int64_t> periods_ns;
  for (int64_t r = 0; r + 1 < repeats; ++r) {
    periods_ns.push_back(submit[kernels[best_a + (r + 1) * best_p]] - submit[kernels[best_a + r * best_p]]);
  }
  const int64_t period_ns = std::max<int64_t>(0, LowerMedian(periods_ns));
  const int64_t after = best_a + repeats * best_p;
  int64_t lo = best_a > 0 ? std::min(SaturatingAdd(submit[kernels[best_a - 1]], 1), submit[first]) : kMinTime;
  lo = std::max(lo, SaturatingSub(submit[first], period_ns));
  int64_t hi = after < n ? std::max(submit[kernels[after]], SaturatingAdd(submit[last], 1)) : kMaxTime;
  hi = std::min(hi, std::max(SaturatingAdd(submit[last], period_ns), SaturatingAdd(submit[last], 1)));
  int64_t start = submit[first];
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (submit[i] >= lo && submit[i] < start) start = submit[i];
  }
  IntervalList span = {{start, hi}};
  auto [time, ops_end] = SubmittedInside(m, submit, span);
  double share = total > 0 ? static_cast<double>(time) / static_cast<double>(total) : 0;
  if (share < o.min_gpu_share) return false;
  out.method = SteadyStateMethod::kKernelSequence;
  out.period_kernels = best_p;
  out.repeats = repeats;
  out.first_kernel = first;
  out.last_kernel = last;
  out.gpu_share = share;
  out.window.start_ns = start;
  out.window.end_ns = std::max(ops_end, SaturatingAdd(submit[last], 1));
  out.window.origin = WindowOrigin{};
  out.window.origin.kind = WindowKind::kSteadyKernelSequence;
  out.window.origin.count = repeats;
  out.window.origin.period_kernels = best_p;
  return true;
}

// The default window into `out` (whose window is the whole trace): an NVTX
// range's instances, else a repeating kernel sequence, else the GPU span.
void FindWindow(const TraceModel& m, const SteadyStateOptions& o, const Window& whole, SteadyState& out) {
  if (m.ops.size() == 0) {
    out.window.origin.kind = WindowKind::kWholeTraceNoGpuOp;
    return;
  }
  int64_t first_op = m.ops.start_ns.front(), last_end = kMinTime, total = 0;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    last_end = std::max(last_end, m.ops.end_ns[i]);
    total = SaturatingAdd(total, Duration(m, i));
  }
  out.startup = {whole.start_ns, first_op};
  std::vector<int64_t> submit = SubmitTimes(m);
  if (ByNvtxRange(m, o, submit, total, out) || ByKernelSequence(m, o, submit, total, out)) {
    // From its first GPU op: host time before it (the first instance's
    // set-up, a first launch that loads the module) is not GPU idle time.
    auto it = std::lower_bound(m.ops.start_ns.begin(), m.ops.start_ns.end(), out.window.start_ns);
    if (it != m.ops.start_ns.end() && *it < out.window.end_ns) out.window.start_ns = *it;
    return;
  }
  out.method = SteadyStateMethod::kGpuSpan;
  out.gpu_share = 1;
  out.window.start_ns = first_op;
  out.window.end_ns = std::max(first_op, last_end);
  out.window.origin.kind = WindowKind::kGpuActivity;
}

}  // namespace

std::vector<FirstLaunchOutlier> FindFirstLaunchOutliers(const TraceModel& m, const SteadyStateOptions& o) {
  struct Launch {  // its start is the call's: read through `api` (8 bytes a launch, not 16)
    int32_t api, op;
  };
  if (m.api.size() == 0) return {};  // no launch call to time
  // Room for each kernel's launches at once (at most its ops): a vector grown
  // by doubling would briefly hold three times its launches.
  absl::flat_hash_map<StringId, std::vector<Launch>> by_kernel;
  {
    absl::flat_hash_map<StringId, size_t> kernel_ops;
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (m.ops.category[i] == OpCategory::kKernel) ++kernel_ops[m.ops.name[i]];
    }
    for (const auto& [name, n] : kernel_ops) by_kernel[name].reserve(n);
  }
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] != OpCategory::kKernel) continue;
    int32_t a = m.ApiForOp(i);
    if (a < 0 || m.api.end_ns[a] < m.api.start_ns[a]) continue;
    std::vector<Launch>& v = by_kernel[m.ops.name[i]];
    if (!v.empty() && v.back().api == a) continue;  // one call, several kernels of this name (a graph)
    v.push_back({a, static_cast<int32_t>(i)});
  }
  // Call durations per API name, each call once: only of the names of calls
  // that launched a kernel launched once, the ones whose median is used.
  absl::flat_hash_map<StringId, std::vector<int64_t>> by_api_name;
  for (const auto& [kernel, launches] : by_kernel) {
    if (launches.size() == 1) by_api_name[m.api.name[launches.front().api]];
  }
  if (!by_api_name.empty()) {
    std::vector<uint8_t> seen(m.api.size(), 0);
    for (size_t i = 0; i < m.ops.size(); ++i) {
      if (m.ops.category[i] != OpCategory::kKernel) continue;
      int32_t a = m.ApiForOp(i);
      if (a < 0 || m.api.end_ns[a] < m.api.start_ns[a] || seen[a]) continue;
      seen[a] = 1;
      if (auto it = by_api_name.find(m.api.name[a]); it != by_api_name.end()) {
        it->second.push_back(SaturatingSub(m.api.end_ns[a], m.api.start_ns[a]));
      }
    }
  }
  absl::flat_hash_map<StringId, int64_t> api_median;
  for (auto& [name, d] : by_api_name) {
    if (d.size() >= 2) api_median[name] = LowerMedian(d);
  }
  std::vector<FirstLaunchOutlier> out;
  for (auto& [kernel, launches] : by_kernel) {
    if (launches.empty()) continue;  // reserved, but no launch with a call
    // The first launch: the earliest call, of equal ones the first in op
    // order (min_element keeps the first of equal minima). The others' median
    // needs no order: none is sorted (at 10M ops a stable sort of the
    // launches of kernels on four streams took about 0.3 s).
    auto by_call = [&](const Launch& a, const Launch& b) { return m.api.start_ns[a.api] < m.api.start_ns[b.api]; };
    const auto first_it = std::min_element(launches.begin(), launches.end(), by_call);
    const Launch first = *first_it;
    int64_t call_ns = SaturatingSub(m.api.end_ns[first.api], m.api.start_ns[first.api]);
    int64_t median = -1;
    if (launches.size() >= 2) {
      std::vector<int64_t> others;
      others.reserve(launches.size() - 1);
      for (auto it = launches.begin(); it != launches.end(); ++it) {
        if (it != first_it) others.push_back(SaturatingSub(m.api.end_ns[it->api], m.api.start_ns[it->api]));
      }
      median = LowerMedian(std::move(others));
    } else if (auto it = api_median.find(m.api.name[first.api]); it != api_median.end()) {
      median = it->second;
    }
    if (median < 0) continue;
    if (static_cast<double>(call_ns) >= o.first_launch_factor * static_cast<double>(median) &&
        call_ns - median >= o.first_launch_min_excess_ns) {
      out.push_back({first.api, first.op, kernel, call_ns, median});
    }
  }
  std::sort(out.begin(), out.end(), [&](const FirstLaunchOutlier& a, const FirstLaunchOutlier& b) {
    return std::tie(m.api.start_ns[a.api], a.api, a.op) < std::tie(m.api.start_ns[b.api], b.api, b.op);
  });
  // A call that launched several first kernels counts once.
  out.erase(std::unique(out.begin(), out.end(),
                        [](const FirstLaunchOutlier& a, const FirstLaunchOutlier& b) { return a.api == b.api; }),
            out.end());
  return out;
}

SteadyState FindSteadyState(const TraceModel& m, const SteadyStateOptions& o) {
  SteadyState out;
  Window whole = WholeTraceWindow(m);
  out.window = whole;
  {
    // The first launches and the window read the trace apart: at 10M ops
    // each takes most of a second, on a core of its own.
    TaskThreads first_launches(m.ops.size() >= kOpsWorthAThread);
    first_launches.Start([&] { out.first_launches = FindFirstLaunchOutliers(m, o); });
    FindWindow(m, o, whole, out);
  }
  for (const FirstLaunchOutlier& f : out.first_launches) {
    out.first_launch_excess_ns = SaturatingAdd(out.first_launch_excess_ns, f.excess_ns());
  }
  return out;
}

namespace {
struct DefaultSteadyStateFact {
  explicit DefaultSteadyStateFact(const TraceModel& m) : value(FindSteadyState(m)) {}
  SteadyState value;
};
}  // namespace

const SteadyState& DefaultSteadyState(const TraceModel& model) { return model.Derived<DefaultSteadyStateFact>().value; }

}  // namespace streamscope
