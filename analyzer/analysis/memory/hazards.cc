#include "analyzer/analysis/memory/hazards.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/container/flat_hash_map.h"

namespace streamscope {
namespace {

using Access = MemoryAccess::Access;

bool Conflicts(Access a, Access b) { return !(a == Access::kRead && b == Access::kRead); }
bool IsCertain(Access a, Access b) { return a != Access::kUnknown && b != Access::kUnknown; }

// Kernel name, or a negative code for the op's category.
int64_t OpKind(const TraceModel& m, int32_t op) {
  return m.ops.category[op] == OpCategory::kKernel ? m.ops.name[op] : -2 - static_cast<int64_t>(m.ops.category[op]);
}

int64_t LaterStart(const TraceModel& m, const Hazard& h) {
  return std::max(m.ops.start_ns[h.op_a], m.ops.start_ns[h.op_b]);
}

}  // namespace

std::vector<Hazard> FindHazards(const TraceModel& m, const HappensBefore& order, const HazardOptions& o,
                                HazardScanStats* stats) {
  return FindHazards(m, order, ResolveAccesses(m), o, stats);
}

std::vector<Hazard> FindHazards(const TraceModel& m, const HappensBefore& order, ResolvedAccesses resolved,
                                const HazardOptions& o, HazardScanStats* stats) {
  std::vector<Hazard> out;
  int64_t truncated = 0;
  if (stats != nullptr) {
    stats->access_rows = resolved.rows;
    stats->accesses_without_op = resolved.without_op;
    stats->accesses_empty = resolved.empty_range;
  }
  std::vector<ResolvedAccess>& acc = resolved.accesses;
  // Per allocation (accesses come grouped by allocation), in submission order.
  absl::flat_hash_map<std::tuple<int64_t, int32_t, int32_t>, size_t> seen;  // (alloc, a, b) -> out index
  const size_t max_scan = static_cast<size_t>(std::max(o.max_scan_per_stream, 1));
  for (size_t first = 0; first < acc.size();) {
    size_t last = first;
    while (last < acc.size() && acc[last].allocation == acc[first].allocation) ++last;
    std::sort(acc.begin() + static_cast<std::ptrdiff_t>(first), acc.begin() + static_cast<std::ptrdiff_t>(last),
              [&](const ResolvedAccess& x, const ResolvedAccess& y) {
                return std::make_pair(order.SubmitRank(x.op), x.row) < std::make_pair(order.SubmitRank(y.op), y.row);
              });
    // Stream index -> the accesses so far on it (positions ascending).
    std::map<int32_t, std::vector<size_t>> per_stream;
    for (size_t i = first; i < last; ++i) {
      const ResolvedAccess& y = acc[i];
      int32_t sy = m.ops.stream[y.op];
      if (order.Position(y.op) == HappensBefore::kNoPosition) continue;
      for (auto& [sa, list] : per_stream) {
        if (sa == sy) continue;
        uint32_t cover = order.Cover(y.op, sa);
        auto from = std::lower_bound(list.begin(), list.end(), cover,
                                     [&](size_t k, uint32_t c) { return order.Position(acc[k].op) < c; });
        // Most recent first. Ordering an access of stream sa before y also
        // orders every earlier access of sa, so the most recent conflicting
        // one is the hazard to report; a certain one is still looked for
        // behind a possible one (a kernel argument), no further.
        const bool want_certain = y.access != Access::kUnknown;
        bool got_possible = false, done = false;
        size_t scanned = 0;
        for (auto it = list.end(); it != from && !done;) {
          if (scanned++ == max_scan) {
            ++truncated;
            break;
          }
          --it;
          const ResolvedAccess& x = acc[*it];
          if (x.op == y.op || !Conflicts(x.access, y.access)) continue;
          uint64_t lo = std::max(x.lo, y.lo), hi = std::min(x.hi, y.hi);
          if (lo >= hi) continue;
          bool certain = IsCertain(x.access, y.access);
          if (certain) {
            done = true;
          } else if (got_possible) {
            continue;
          } else {
            got_possible = true;
            done = !want_certain;
          }
          auto [slot, inserted] = seen.try_emplace(std::make_tuple(y.allocation, x.op, y.op), out.size());
          if (inserted) {
            Hazard h;
            h.allocation = y.allocation;
            h.op_a = x.op;
            h.op_b = y.op;
            h.access_a = x.access;
            h.access_b = y.access;
            h.certain = certain;
            h.lo = lo;
            h.hi = hi;
            h.observed_concurrent =
                m.ops.start_ns[x.op] < m.ops.end_ns[y.op] && m.ops.start_ns[y.op] < m.ops.end_ns[x.op];
            out.push_back(h);
          } else {
            Hazard& h = out[slot->second];
            if (certain && !h.certain) {
              h.certain = true;
              h.access_a = x.access;
              h.access_b = y.access;
            }
            h.lo = std::min(h.lo, lo);
            h.hi = std::max(h.hi, hi);
          }
        }
      }
      per_stream[sy].push_back(i);
    }
    first = last;
  }
  std::sort(out.begin(), out.end(), [&](const Hazard& a, const Hazard& b) {
    return std::make_tuple(LaterStart(m, a), a.op_a, a.op_b, a.allocation) <
           std::make_tuple(LaterStart(m, b), b.op_a, b.op_b, b.allocation);
  });
  if (stats != nullptr) stats->scans_truncated = truncated;
  return out;
}

HazardsResult SummarizeHazards(const TraceModel& m, const std::vector<Hazard>& all, const Window& w,
                               const HazardOptions& o, const HazardScanStats& stats) {
  HazardsResult r;
  r.window = w;
  r.has_access_data = !m.memory_accesses.empty();
  r.stats = stats;
  using GroupKey = std::tuple<bool, int64_t, int32_t, int32_t, int64_t, int64_t>;
  std::map<GroupKey, HazardGroup> groups;
  // `all` is sorted by the later op's start (FindHazards): the window's
  // hazards are one run.
  auto by_start = [&](const Hazard& h, int64_t t) { return LaterStart(m, h) < t; };
  auto first = std::lower_bound(all.begin(), all.end(), w.start_ns, by_start);
  auto last = std::lower_bound(first, all.end(), std::max(w.start_ns, w.end_ns), by_start);
  for (auto it = first; it != last; ++it) {
    const Hazard& h = *it;
    (h.certain ? r.certain_count : r.possible_count) += 1;
    if (h.observed_concurrent) (h.certain ? r.certain_observed : r.possible_observed) += 1;
    (h.certain ? r.certain : r.possible).push_back(h);
    GroupKey key{!h.certain,           h.allocation,      m.ops.stream[h.op_a],
                 m.ops.stream[h.op_b], OpKind(m, h.op_a), OpKind(m, h.op_b)};
    HazardGroup& g = groups[key];
    if (g.count == 0 || (h.observed_concurrent && !g.example.observed_concurrent)) g.example = h;
    g.allocation = h.allocation;
    g.stream_a = m.ops.stream[h.op_a];
    g.stream_b = m.ops.stream[h.op_b];
    g.certain = h.certain;
    g.count += 1;
    g.observed_concurrent += h.observed_concurrent ? 1 : 0;
  }
  auto listed_order = [&](const Hazard& a, const Hazard& b) {
    if (a.observed_concurrent != b.observed_concurrent) return a.observed_concurrent;
    return LaterStart(m, a) < LaterStart(m, b);
  };
  for (std::vector<Hazard>* list : {&r.certain, &r.possible}) {
    size_t keep = o.max_listed < 0 ? list->size() : std::min(list->size(), static_cast<size_t>(o.max_listed));
    std::stable_sort(list->begin(), list->end(), listed_order);
    list->resize(keep);
  }
  for (auto& [key, g] : groups) r.groups.push_back(g);
  r.groups_total = static_cast<int64_t>(r.groups.size());
  std::stable_sort(r.groups.begin(), r.groups.end(), [](const HazardGroup& a, const HazardGroup& b) {
    if (a.certain != b.certain) return a.certain;
    return a.count > b.count;
  });
  r.groups.resize(std::min(r.groups.size(), static_cast<size_t>(std::max(o.max_groups, 0))));
  return r;
}

TraceHazards PrepareHazards(const TraceModel& model, const HazardOptions& options) {
  TraceHazards t;
  bool elapsed = false;
  for (const EventOp& e : model.event_ops) elapsed |= e.op == EventOp::Op::kElapsed;
  if (!model.memory_accesses.empty() || elapsed) t.order.emplace(model);
  if (!model.memory_accesses.empty()) {
    t.accesses = ResolveAccesses(model);
    t.all = FindHazards(model, *t.order, t.accesses, options, &t.stats);
  }
  t.stats.access_rows = static_cast<int64_t>(model.memory_accesses.size());
  return t;
}

HazardsResult AnalyzeHazards(const TraceModel& model, const Window& window, const HazardOptions& options) {
  HappensBefore order(model);
  HazardScanStats stats;
  std::vector<Hazard> all = FindHazards(model, order, options, &stats);
  return SummarizeHazards(model, all, window, options, stats);
}

}  // namespace streamscope
