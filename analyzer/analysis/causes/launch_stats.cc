#include "analyzer/analysis/causes/launch_stats.h"

#include <algorithm>
#include <limits>
#include <tuple>

#include "analyzer/analysis/causes/op_submitters.h"
#include "analyzer/analysis/overlap_gaps/busy_time_index.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/model/queue_delay.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

Distribution Summarize(std::span<int64_t> v) {
  Distribution d;
  if (v.empty()) return d;
  const size_t n = v.size();
  d.count = static_cast<int64_t>(n);
  d.min = d.max = v[0];
  for (int64_t x : v) {
    d.total = SaturatingAdd(d.total, x);  // forged traces: many huge durations
    d.min = std::min(d.min, x);
    d.max = std::max(d.max, x);
  }
  d.mean = static_cast<double>(d.total) / static_cast<double>(n);
  // Nearest-rank positions, ascending; each nth_element works on what lies
  // above the previous one, so the whole summary is linear on average.
  auto rank = [&](size_t pct) { return (pct * n + 99) / 100 - 1; };
  size_t from = 0;
  int64_t* out[] = {&d.median, &d.p90, &d.p99};
  size_t pct[] = {50, 90, 99};
  for (int k = 0; k < 3; ++k) {
    size_t r = rank(pct[k]);
    std::nth_element(v.begin() + static_cast<std::ptrdiff_t>(from), v.begin() + static_cast<std::ptrdiff_t>(r),
                     v.end());
    *out[k] = v[r];
    from = r;
  }
  return d;
}

namespace {

// The kernels that start in the window, in op order, each with its group
// (index into result.kernels) and launch call (api index or -1).
struct KernelsInWindow {
  std::vector<int32_t> ops;
  std::vector<int32_t> group;
  std::vector<int32_t> api;
};

// Larger idle first; ties: the earlier one.
bool LargerGap(const RemovableGap& a, const RemovableGap& b) {
  if (a.idle_ns != b.idle_ns) return a.idle_ns > b.idle_ns;
  return a.next_op < b.next_op;
}

// Keeps the `keep` largest gaps in a bounded min-heap.
void KeepIfLarge(const RemovableGap& gap, size_t keep, std::vector<RemovableGap>& worst) {
  if (worst.size() < keep) {
    worst.push_back(gap);
    std::push_heap(worst.begin(), worst.end(), LargerGap);
  } else if (keep > 0 && LargerGap(gap, worst.front())) {
    std::pop_heap(worst.begin(), worst.end(), LargerGap);
    worst.back() = gap;
    std::push_heap(worst.begin(), worst.end(), LargerGap);
  }
}

// Groups the window's kernels by (name, from_graph) and counts the idle
// time before each one on its stream; each one's predecessor on its stream
// counts only if it is a kernel too.
KernelsInWindow CountKernelsAndGaps(const TraceModel& model, const Window& window, const LaunchStatsOptions& options,
                                    LaunchStatsResult& result) {
  const GpuOps& ops = model.ops;
  const ApiCalls& api = model.api;
  const BusyTimeIndex& busy = model.Derived<BusyTimeIndex>();
  const OpSubmitters submitters(model);

  // Group id per (name, from_graph): dense vectors indexed by name id, the
  // last slot for kernels without a name.
  const size_t names = model.strings.size() + 1;
  std::vector<int32_t> group_of[2] = {std::vector<int32_t>(names, -1), std::vector<int32_t>(names, -1)};
  std::vector<int64_t> stream_slot(model.streams.size(), -1);
  const size_t keep_gaps = static_cast<size_t>(std::max(options.max_listed, 0));
  KernelsInWindow in_window;

  const size_t first = FirstOpStartingAt(model, window.start_ns);
  const size_t last = std::max(first, FirstOpStartingAt(model, window.end_ns));
  StreamPredecessorWalk predecessors(model, first);
  for (size_t i = first; i < last; ++i) {
    int32_t stream = ops.stream[i];
    bool stream_ok = stream >= 0 && static_cast<size_t>(stream) < model.streams.size();
    int32_t prev = predecessors.Next(i);
    if (ops.category[i] != OpCategory::kKernel) continue;
    if (prev >= 0 && ops.category[prev] != OpCategory::kKernel) prev = -1;
    bool graph = ops.graph_id[i] >= 0;
    StringId name = ops.name[i];
    size_t name_slot = name >= 0 && static_cast<size_t>(name) < names - 1 ? name : names - 1;
    int32_t& g = group_of[graph ? 1 : 0][name_slot];
    if (g < 0) {
      g = static_cast<int32_t>(result.kernels.size());
      KernelLaunchStats k;
      k.name = name;
      k.from_graph = graph;
      k.first_op = static_cast<int32_t>(i);
      result.kernels.push_back(k);
    }
    KernelLaunchStats& k = result.kernels[g];
    k.count += 1;
    in_window.ops.push_back(static_cast<int32_t>(i));
    in_window.group.push_back(g);
    result.kernel_count += 1;
    if (graph) result.graph_kernel_count += 1;
    int32_t a = submitters[i];
    in_window.api.push_back(a);
    if (a < 0) {
      k.no_api_count += 1;
      result.no_api_count += 1;
    }
    if (!stream_ok) continue;
    if (stream_slot[stream] < 0) {
      stream_slot[stream] = static_cast<int64_t>(result.streams.size());
      StreamLaunchGaps s;
      s.stream = stream;
      s.device_id = ops.device_id[i];
      result.streams.push_back(s);
    }
    StreamLaunchGaps& sg = result.streams[stream_slot[stream]];
    sg.kernels += 1;
    if (prev < 0) continue;
    int64_t idle = busy.Idle(ops.device_id[i], std::max(ops.end_ns[prev], window.start_ns), ops.start_ns[i]);
    bool prev_graph = ops.graph_id[prev] >= 0;
    if (graph && prev_graph) {
      result.graph_kernel_gap_ns += idle;
      continue;
    }
    if (graph || prev_graph) continue;
    k.idle_before_ns += idle;
    k.idle_before_count += 1;
    sg.idle_between_ns += idle;
    // The launch call began before the previous kernel ended: the GPU idled
    // although the host was already submitting.
    if (a >= 0 && api.start_ns[a] < ops.end_ns[prev] && idle > 0) {
      k.graph_removable_ns += idle;
      k.graph_removable_gaps += 1;
      sg.graph_removable_ns += idle;
      sg.graph_removable_gaps += 1;
      result.graph_removable_ns += idle;
      result.graph_removable_gaps += 1;
      KeepIfLarge(RemovableGap{prev, static_cast<int32_t>(i), a, idle}, keep_gaps, result.worst_gaps);
    }
  }
  return in_window;
}

// Each group's distributions (GPU time, launch call, queue delay) and
// whether it is launch bound. The groups' values lie side by side in one
// buffer, filled in op order: one forward pass over the ops' columns per
// distribution. (A pass per group read the columns once per group: at 100M
// ops in 4 GiB, from spill files, 14.6 s.)
void SummarizeGroups(const TraceModel& model, const KernelsInWindow& in_window, const LaunchStatsOptions& options,
                     LaunchStatsResult& result) {
  const GpuOps& ops = model.ops;
  const ApiCalls& api = model.api;
  const size_t groups = result.kernels.size(), kernels = in_window.ops.size();
  // Where each group's values begin: of all its kernels, of those with a call.
  std::vector<size_t> all(groups + 1, 0), with_call(groups + 1, 0);
  for (size_t k = 0; k < kernels; ++k) {
    ++all[static_cast<size_t>(in_window.group[k]) + 1];
    if (in_window.api[k] >= 0) ++with_call[static_cast<size_t>(in_window.group[k]) + 1];
  }
  for (size_t g = 0; g < groups; ++g) {
    all[g + 1] += all[g];
    with_call[g + 1] += with_call[g];
  }
  std::vector<int64_t> buffer(kernels);
  std::vector<size_t> fill;
  // Fills the buffer with value(k) for each kernel k (with a call only, when
  // `calls` is set) and summarizes each group's into its `out`.
  auto summarize = [&](const std::vector<size_t>& begin, bool calls, auto value, Distribution KernelLaunchStats::*out) {
    fill.assign(begin.begin(), begin.end() - 1);
    for (size_t k = 0; k < kernels; ++k) {
      if (calls && in_window.api[k] < 0) continue;
      buffer[fill[static_cast<size_t>(in_window.group[k])]++] = value(k);
    }
    for (size_t g = 0; g < groups; ++g) {
      result.kernels[g].*out = Summarize(std::span<int64_t>(buffer.data() + begin[g], begin[g + 1] - begin[g]));
    }
  };
  summarize(
      all, false,
      [&](size_t k) {
        const auto op = static_cast<size_t>(in_window.ops[k]);
        return SaturatingSub(ops.end_ns[op], ops.start_ns[op]);
      },
      &KernelLaunchStats::gpu_ns);
  summarize(
      with_call, true,
      [&](size_t k) {
        const auto a = static_cast<size_t>(in_window.api[k]);
        return SaturatingSub(api.end_ns[a], api.start_ns[a]);
      },
      &KernelLaunchStats::api_ns);
  // Queue delays, and per group the kernels that started during their call
  // and the first in op order of those queued longest.
  std::vector<int64_t> max_queue(groups, std::numeric_limits<int64_t>::min());
  summarize(
      with_call, true,
      [&](size_t k) {
        const int32_t op = in_window.ops[k];
        const auto a = static_cast<size_t>(in_window.api[k]);
        const auto g = static_cast<size_t>(in_window.group[k]);
        KernelLaunchStats& stats = result.kernels[g];
        if (StartedDuringCall(ops.start_ns[op], api.end_ns[a])) ++stats.started_during_call;
        const int64_t q = QueueDelayNs(ops.start_ns[op], api.end_ns[a]);
        if (q > max_queue[g]) {
          max_queue[g] = q;
          stats.max_queue_op = op;
        }
        return q;
      },
      &KernelLaunchStats::queue_ns);
  for (KernelLaunchStats& k : result.kernels) {
    if (!k.from_graph && k.api_ns.count >= options.min_launches_for_launch_bound) {
      k.api_slower_than_gpu = k.api_ns.count > 0 && k.gpu_ns.median < k.api_ns.median;
      k.launch_gaps_exceed_gpu = k.graph_removable_ns > k.gpu_ns.total;
      if (k.launch_bound()) result.launch_bound_kernels += k.count;
    }
  }
}

}  // namespace

LaunchStatsResult AnalyzeLaunchStats(const TraceModel& model, const Window& window, const LaunchStatsOptions& options) {
  LaunchStatsResult result;
  result.window = window;
  result.options = options;
  KernelsInWindow in_window = CountKernelsAndGaps(model, window, options, result);
  SummarizeGroups(model, in_window, options, result);
  std::sort(result.kernels.begin(), result.kernels.end(), [](const KernelLaunchStats& a, const KernelLaunchStats& b) {
    return std::tie(b.gpu_ns.total, a.first_op) < std::tie(a.gpu_ns.total, b.first_op);
  });
  std::sort(result.worst_gaps.begin(), result.worst_gaps.end(), LargerGap);
  for (const FirstLaunchOutlier& f : DefaultSteadyState(model).first_launches) {
    if (f.op >= 0 && model.ops.start_ns[f.op] >= window.start_ns && model.ops.start_ns[f.op] < window.end_ns) {
      result.first_launches.push_back(f);
    }
  }
  std::sort(result.streams.begin(), result.streams.end(), [](const StreamLaunchGaps& a, const StreamLaunchGaps& b) {
    return std::tie(b.graph_removable_ns, a.stream) < std::tie(a.graph_removable_ns, b.stream);
  });
  return result;
}

}  // namespace streamscope
