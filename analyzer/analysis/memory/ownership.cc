#include "analyzer/analysis/memory/ownership.h"

#include <algorithm>
#include <tuple>

#include "absl/container/flat_hash_map.h"

namespace streamscope {

std::string_view AccessName(MemoryAccess::Access a) {
  switch (a) {
    case MemoryAccess::Access::kRead: return "read";
    case MemoryAccess::Access::kWrite: return "write";
    case MemoryAccess::Access::kUnknown: return "unknown";
  }
  return "unknown";
}

ResolvedAccesses ResolveAccesses(const TraceModel& m) {
  ResolvedAccesses out;
  out.rows = static_cast<int64_t>(m.memory_accesses.size());
  if (m.memory_accesses.empty()) return out;
  // Correlation id -> ops (a graph launch submits several).
  absl::flat_hash_map<int64_t, std::vector<int32_t>> by_corr;
  by_corr.reserve(m.ops.size());
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.correlation_id[i] >= 0) by_corr[m.ops.correlation_id[i]].push_back(static_cast<int32_t>(i));
  }
  const int64_t allocations = static_cast<int64_t>(m.allocations.size());
  for (size_t r = 0; r < m.memory_accesses.size(); ++r) {
    const MemoryAccess& a = m.memory_accesses[r];
    if (a.bytes == 0) {
      ++out.empty_range;
      continue;
    }
    auto it = by_corr.find(a.correlation_id);
    if (it == by_corr.end()) {
      ++out.without_op;
      continue;
    }
    uint64_t hi = a.address + a.bytes < a.address ? UINT64_MAX : a.address + a.bytes;
    int64_t alloc = a.allocation >= 0 && a.allocation < allocations ? a.allocation : -1;
    for (int32_t op : it->second) {
      out.accesses.push_back({op, static_cast<int32_t>(r), a.access, a.address, hi, alloc});
    }
  }
  std::sort(out.accesses.begin(), out.accesses.end(), [&](const ResolvedAccess& x, const ResolvedAccess& y) {
    return std::tie(x.allocation, m.ops.start_ns[x.op], x.op, x.row) <
           std::tie(y.allocation, m.ops.start_ns[y.op], y.op, y.row);
  });
  return out;
}

OwnershipResult AnalyzeOwnership(const TraceModel& m, const Window& w, const OwnershipOptions& o) {
  return AnalyzeOwnership(m, ResolveAccesses(m), w, o);
}

OwnershipResult AnalyzeOwnership(const TraceModel& m, const ResolvedAccesses& resolved, const Window& w,
                                 const OwnershipOptions& o) {
  OwnershipResult result;
  result.window = w;
  result.has_data = !m.memory_accesses.empty();
  result.access_rows = resolved.rows;
  result.accesses_without_op = resolved.without_op;
  result.accesses_empty = resolved.empty_range;
  AllocationOwnership* current = nullptr;
  // Accesses are sorted by allocation, then op start: per allocation, the
  // window's accesses are one run found by binary search, so a window costs
  // the allocations and its own accesses, not every access of the trace.
  const std::vector<ResolvedAccess>& all = resolved.accesses;
  auto op_start = [&](const ResolvedAccess& a) { return m.ops.start_ns[a.op]; };
  std::vector<std::pair<size_t, size_t>> runs;  // [first, last) in the window, by allocation
  for (size_t group = 0; group < all.size();) {
    const int64_t allocation = all[group].allocation;
    size_t group_end =
        static_cast<size_t>(std::upper_bound(all.begin() + static_cast<std::ptrdiff_t>(group), all.end(), allocation,
                                             [](int64_t v, const ResolvedAccess& a) { return v < a.allocation; }) -
                            all.begin());
    auto by_start = [&](const ResolvedAccess& a, int64_t t) { return op_start(a) < t; };
    auto lo = std::lower_bound(all.begin() + static_cast<std::ptrdiff_t>(group),
                               all.begin() + static_cast<std::ptrdiff_t>(group_end), w.start_ns, by_start);
    auto hi = std::lower_bound(lo, all.begin() + static_cast<std::ptrdiff_t>(group_end), std::max(w.start_ns, w.end_ns),
                               by_start);
    if (lo != hi) runs.push_back({static_cast<size_t>(lo - all.begin()), static_cast<size_t>(hi - all.begin())});
    group = group_end;
  }
  for (const auto& [first, last] : runs) {
    for (size_t k = first; k < last; ++k) {
      const ResolvedAccess& a = all[k];
      if (current == nullptr || current->allocation != a.allocation) {
        result.allocations.push_back({});
        current = &result.allocations.back();
        current->allocation = a.allocation;
      }
      ++result.accesses_in_window;
      ++current->access_count;
      switch (a.access) {
        case MemoryAccess::Access::kRead: ++current->reads; break;
        case MemoryAccess::Access::kWrite: ++current->writes; break;
        case MemoryAccess::Access::kUnknown: ++current->unknown; break;
      }
      int32_t s = m.ops.stream[a.op];
      auto pos = std::lower_bound(current->streams.begin(), current->streams.end(), s);
      if (pos == current->streams.end() || *pos != s) current->streams.insert(pos, s);
      if (o.max_accesses_listed < 0 || current->accesses.size() < static_cast<size_t>(o.max_accesses_listed)) {
        current->accesses.push_back(a);
      }
    }
  }
  return result;
}

}  // namespace streamscope
