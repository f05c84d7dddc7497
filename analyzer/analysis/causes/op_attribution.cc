#include "analyzer/analysis/causes/op_attribution.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "absl/container/flat_hash_map.h"
#include "analyzer/model/saturating.h"

namespace streamscope {
namespace {

// The domain the torch.profiler importer gives CPU ops (kTorchCpuOpDomain in
// analyzer/importers/torch/torch_trace_importer.h; a test checks they agree).
constexpr std::string_view kCpuOpDomain = "torch.cpu_op";
constexpr int64_t kOpen = std::numeric_limits<int64_t>::max();

// The ranges open on one thread as its calls are visited in time order.
// Ranges of one kind nest, so the open ones form a stack; ranges that ended
// are dropped from the top, and skipped from the bottom by `base`.
struct OpenRanges {
  std::vector<int32_t> stack;
  size_t base = 0;

  void Push(int32_t range, int64_t start, const std::vector<int64_t>& ends) {
    while (stack.size() > base && ends[stack.back()] <= start) stack.pop_back();
    stack.push_back(range);
  }
  // Innermost and outermost range open at t (each -1 if none).
  std::pair<int32_t, int32_t> At(int64_t t, const std::vector<int64_t>& ends) {
    while (stack.size() > base && ends[stack.back()] <= t) stack.pop_back();
    while (base < stack.size() && ends[stack[base]] <= t) ++base;
    if (base >= stack.size()) {
      stack.clear();
      base = 0;
      return {-1, -1};
    }
    return {stack.back(), stack[base]};
  }
};

struct ThreadState {
  std::vector<int32_t> ranges;  // this thread's ranges by (start, longest first)
  size_t next = 0;              // first range not yet opened
  OpenRanges cpu_ops, annotations;
};

class Totals {
 public:
  explicit Totals(size_t ranges) : seen_(ranges, 0) {}
  void Add(const TraceModel& model, int32_t range, int32_t op, int64_t ns) {
    StringId name = range < 0 ? kNoString : model.nvtx_ranges[range].name;
    LauncherTotal& t = by_name_[name];
    t.name = name;
    t.gpu_ns = SaturatingAdd(t.gpu_ns, ns);
    ++t.op_count;
    OpCategory c = model.ops.category[op];
    if (c == OpCategory::kKernel)
      ++t.kernel_count;
    else if (c == OpCategory::kMemset)
      ++t.memset_count;
    else
      ++t.copy_count;
    if (range >= 0 && !seen_[range]) {
      seen_[range] = 1;
      ++t.instance_count;
    }
  }
  std::vector<LauncherTotal> Sorted(const TraceModel& model) const {
    std::vector<LauncherTotal> out;
    out.reserve(by_name_.size());
    for (const auto& [name, total] : by_name_) out.push_back(total);
    std::sort(out.begin(), out.end(), [&](const LauncherTotal& a, const LauncherTotal& b) {
      if (a.gpu_ns != b.gpu_ns) return a.gpu_ns > b.gpu_ns;
      if ((a.name == kNoString) != (b.name == kNoString)) return b.name == kNoString;
      return model.strings.Get(a.name) < model.strings.Get(b.name);
    });
    return out;
  }

 private:
  absl::flat_hash_map<StringId, LauncherTotal> by_name_;
  std::vector<uint8_t> seen_;
};

}  // namespace

bool IsCpuOpRange(const TraceModel& model, const NvtxRange& range) {
  return model.strings.Get(range.domain) == kCpuOpDomain;
}

OpAttributionResult AnalyzeOpAttribution(const TraceModel& model, const Window& window, bool per_op) {
  OpAttributionResult r;
  r.window = window;
  const std::vector<NvtxRange>& ranges = model.nvtx_ranges;
  std::vector<uint8_t> is_cpu(ranges.size(), 0);
  std::vector<int64_t> ends(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    is_cpu[i] = IsCpuOpRange(model, ranges[i]) ? 1 : 0;
    (is_cpu[i] ? r.has_cpu_ops : r.has_annotations) = true;
    ends[i] = ranges[i].end_ns.value_or(kOpen);
  }

  if (!r.any_ranges()) return r;  // nothing to attribute to (the report shows nothing)

  // The window's ops, each with its clipped time; ops chained per call.
  const GpuOps& ops = model.ops;
  auto [first, last] = model.OpRangeFor(window.start_ns, window.end_ns);
  std::vector<int32_t> first_op_of_call(model.api.size(), -1);
  std::vector<int32_t> next_op_of_call;  // by slot in r.ops
  for (size_t i = first; i < last; ++i) {
    const int64_t start = ops.start_ns[i], end = ops.end_ns[i];
    const bool inside = end > start ? end > window.start_ns && start < window.end_ns
                                    : start >= window.start_ns && start < window.end_ns;
    if (!inside) continue;
    OpLaunchers l;
    l.op = static_cast<int32_t>(i);
    l.api = model.ApiForOp(i);
    ++r.op_count;
    r.gpu_ns =
        SaturatingAdd(r.gpu_ns, std::max<int64_t>(0, std::min(end, window.end_ns) - std::max(start, window.start_ns)));
    if (l.api < 0) ++r.without_call;
    r.ops.push_back(l);
    {
      next_op_of_call.push_back(l.api < 0 ? -1 : first_op_of_call[l.api]);
      if (l.api >= 0) first_op_of_call[l.api] = static_cast<int32_t>(r.ops.size() - 1);
    }
  }

  {
    // Each thread's ranges in start order (outer first on ties).
    absl::flat_hash_map<int64_t, ThreadState> threads;
    for (size_t i = 0; i < ranges.size(); ++i) threads[ranges[i].tid].ranges.push_back(static_cast<int32_t>(i));
    for (auto& [tid, state] : threads) {
      std::sort(state.ranges.begin(), state.ranges.end(), [&](int32_t a, int32_t b) {
        if (ranges[a].start_ns != ranges[b].start_ns) return ranges[a].start_ns < ranges[b].start_ns;
        if (ends[a] != ends[b]) return ends[a] > ends[b];
        return a < b;
      });
    }
    // Calls in start order (the model keeps them sorted), so each thread's
    // queries come in time order.
    for (size_t call = 0; call < first_op_of_call.size(); ++call) {
      if (first_op_of_call[call] < 0) continue;
      auto it = threads.find(model.api.tid[call]);
      if (it == threads.end()) continue;
      ThreadState& th = it->second;
      const int64_t t = model.api.start_ns[call];
      while (th.next < th.ranges.size() && ranges[th.ranges[th.next]].start_ns <= t) {
        int32_t range = th.ranges[th.next++];
        (is_cpu[range] ? th.cpu_ops : th.annotations).Push(range, ranges[range].start_ns, ends);
      }
      auto [inner_op, outer_op] = th.cpu_ops.At(t, ends);
      const int32_t inner_annotation = th.annotations.At(t, ends).first;
      for (int32_t slot = first_op_of_call[call]; slot >= 0; slot = next_op_of_call[slot]) {
        OpLaunchers& l = r.ops[slot];
        l.innermost_op = inner_op;
        l.outermost_op = outer_op;
        l.annotation = inner_annotation;
      }
    }
  }

  Totals by_operator(ranges.size()), by_top(ranges.size()), by_annotation(ranges.size());
  for (const OpLaunchers& l : r.ops) {
    const int64_t ns =
        std::max<int64_t>(0, std::min(ops.end_ns[l.op], window.end_ns) - std::max(ops.start_ns[l.op], window.start_ns));
    if (l.innermost_op >= 0) ++r.in_cpu_op;
    if (l.annotation >= 0) ++r.in_annotation;
    if (r.has_cpu_ops) {
      by_operator.Add(model, l.innermost_op, l.op, ns);
      by_top.Add(model, l.outermost_op, l.op, ns);
    }
    if (r.has_annotations) by_annotation.Add(model, l.annotation, l.op, ns);
  }
  r.by_operator = by_operator.Sorted(model);
  r.by_top_operator = by_top.Sorted(model);
  r.by_annotation = by_annotation.Sorted(model);
  if (!per_op) std::vector<OpLaunchers>().swap(r.ops);
  return r;
}

}  // namespace streamscope
