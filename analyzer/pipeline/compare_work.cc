#include "analyzer/pipeline/compare_work.h"

#include <algorithm>
#include <set>

namespace streamscope {

WorkSummary WorkIn(const TraceModel& model, const std::vector<Window>& windows) {
  WorkSummary work;
  for (const Window& w : windows) {
    auto [lo, hi] = model.OpRangeFor(w.start_ns, w.end_ns);
    for (size_t i = lo; i < hi; ++i) {
      if (model.ops.start_ns[i] < w.start_ns || model.ops.start_ns[i] >= w.end_ns) continue;
      OpCategory c = model.ops.category[i];
      if (c == OpCategory::kKernel) {
        work.kernels[std::string(model.strings.Get(model.ops.name[i]))] += 1;
      } else if (c == OpCategory::kMemset) {
        work.memset_count += 1;
        work.memset_bytes += model.ops.bytes[i];
      } else {
        work.copy_count[static_cast<int>(c)] += 1;
        work.copy_bytes[static_cast<int>(c)] += model.ops.bytes[i];
      }
    }
  }
  return work;
}

namespace {

// expected x ae == actual x ee: equal per instance (ae = ee = 1: equal).
bool Same(int64_t expected, int64_t actual, int64_t ee, int64_t ae) {
  return static_cast<__int128>(expected) * ae == static_cast<__int128>(actual) * ee;
}

std::vector<WorkDifference> Diff(const WorkSummary& expected, int64_t ee, const WorkSummary& actual, int64_t ae,
                                 bool per_instance) {
  std::vector<WorkDifference> out;
  auto add = [&](WorkDifference d) {
    if (per_instance) {
      d.expected_instances = ee;
      d.actual_instances = ae;
    }
    out.push_back(std::move(d));
  };
  std::set<std::string> names;
  for (const auto& [n, c] : expected.kernels) names.insert(n);
  for (const auto& [n, c] : actual.kernels) names.insert(n);
  for (const std::string& n : names) {
    auto e = expected.kernels.find(n);
    auto a = actual.kernels.find(n);
    int64_t ec = e == expected.kernels.end() ? 0 : e->second;
    int64_t ac = a == actual.kernels.end() ? 0 : a->second;
    if (!Same(ec, ac, ee, ae)) add({"kernel", n, ec, ac, 0, 0});
  }
  for (int c = 0; c < kNumOpCategories; ++c) {
    if (!IsCopy(static_cast<OpCategory>(c))) continue;
    if (!Same(expected.copy_count[c], actual.copy_count[c], ee, ae) ||
        !Same(expected.copy_bytes[c], actual.copy_bytes[c], ee, ae)) {
      add({"copy", std::string(OpCategoryName(static_cast<OpCategory>(c))), expected.copy_count[c],
           actual.copy_count[c], expected.copy_bytes[c], actual.copy_bytes[c]});
    }
  }
  if (!Same(expected.memset_count, actual.memset_count, ee, ae) ||
      !Same(expected.memset_bytes, actual.memset_bytes, ee, ae)) {
    add({"memset", "memset", expected.memset_count, actual.memset_count, expected.memset_bytes, actual.memset_bytes});
  }
  return out;
}

}  // namespace

std::vector<WorkDifference> DiffWork(const WorkSummary& expected, const WorkSummary& actual) {
  return Diff(expected, 1, actual, 1, false);
}

std::vector<WorkDifference> DiffWorkPerInstance(const WorkSummary& expected, int64_t expected_instances,
                                                const WorkSummary& actual, int64_t actual_instances) {
  if (expected_instances <= 1 && actual_instances <= 1) return DiffWork(expected, actual);
  return Diff(expected, std::max<int64_t>(1, expected_instances), actual, std::max<int64_t>(1, actual_instances), true);
}

bool IsOccasional(const WorkDifference& d) {
  return d.expected_instances > 0 && d.actual_instances > 0 && d.expected_count < d.expected_instances &&
         d.actual_count < d.actual_instances;
}

bool IsFewerReadbacks(const WorkDifference& d) {
  if (d.kind != "copy" || d.key != "D2H" || d.actual_count >= d.expected_count || d.actual_count <= 0) return false;
  return d.expected_bytes <= kSmallReadbackBytes * d.expected_count &&
         d.actual_bytes <= kSmallReadbackBytes * d.actual_count;
}

}  // namespace streamscope
