#include "analyzer/analysis/overlap_gaps/contention.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/analysis/causes/diagnose_support.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/saturating.h"

namespace streamscope {

using diagnose_support::CiteOp;
using diagnose_support::MedianInPlace;
using diagnose_support::OpGrouper;
using diagnose_support::OpsStartingIn;
using diagnose_support::SharedTime;

std::optional<DiagnoseFinding> AnalyzeContention(const TraceModel& m, const Window& w, const DiagnoseOptions& o) {
  const std::vector<int32_t> ops = OpsStartingIn(m, w);
  auto clipped = [&](int32_t op) { return ClippedLength({m.ops.start_ns[op], m.ops.end_ns[op]}, w.interval()); };
  // Flat passes over compact per-group arrays instead of a vector per group:
  // a trace can hold ~10^5 groups (copy sizes), so every per-op touch of a
  // group is a likely cache miss; the counts stay small enough for L2.
  struct Count {
    int32_t over = 0, alone = 0;
  };
  std::vector<Count> count;
  std::vector<std::array<int32_t, 2>> first_over;  // the first two overlapped ops (evidence)
  std::vector<uint8_t> pageable;
  OpGrouper grouper(m);
  std::vector<int32_t> code(ops.size(), -1);  // group * 2 + overlapped; -1: neither
  {
    std::vector<int64_t> shared = SharedTime(m, w, ops);
    for (size_t k = 0; k < ops.size(); ++k) {
      int32_t op = ops[k];
      int64_t dur = clipped(op);
      if (dur <= 0) continue;
      double frac = static_cast<double>(shared[k]) / static_cast<double>(dur);
      bool over = frac >= o.overlapped_fraction, alone = frac <= o.alone_fraction;
      if (!over && !alone) continue;
      size_t g = static_cast<size_t>(grouper.GroupOf(op));
      if (g >= count.size()) {
        count.resize(g + 1);
        first_over.resize(g + 1, {-1, -1});
        pageable.resize(g + 1, 0);
      }
      if (m.ops.src_kind[op] == MemoryKind::kPageable || m.ops.dst_kind[op] == MemoryKind::kPageable) {
        pageable[g] = 1;
      }
      if (over) {
        if (count[g].over < 2) first_over[g][static_cast<size_t>(count[g].over)] = op;
        ++count[g].over;
      } else {
        ++count[g].alone;
      }
      code[k] = static_cast<int32_t>(g) * 2 + (over ? 1 : 0);
    }
  }
  // Durations of the groups with overlapped ops, group by group:
  // [over..., alone...]. Cursors are 32-bit (ops are int32-indexed) to keep
  // the scatter's working set small.
  std::vector<int64_t> begin(count.size() + 1, 0);
  for (size_t g = 0; g < count.size(); ++g) {
    begin[g + 1] = begin[g] + (count[g].over > 0 ? int64_t{count[g].over} + count[g].alone : 0);
  }
  std::vector<int64_t> durations(static_cast<size_t>(begin.back()));
  {
    struct Cursor {
      uint32_t over, alone;
    };
    std::vector<Cursor> next(count.size());
    for (size_t g = 0; g < count.size(); ++g) {
      next[g] = {static_cast<uint32_t>(begin[g]), static_cast<uint32_t>(begin[g] + count[g].over)};
    }
    for (size_t k = 0; k < ops.size(); ++k) {
      if (code[k] < 0) continue;
      size_t g = static_cast<size_t>(code[k] >> 1);
      if (count[g].over == 0) continue;
      uint32_t& slot = (code[k] & 1) ? next[g].over : next[g].alone;
      durations[slot++] = clipped(ops[k]);
    }
  }
  auto over_durations = [&](size_t g) {
    return std::span<int64_t>(durations.data() + begin[g], static_cast<size_t>(count[g].over));
  };
  auto alone_durations = [&](size_t g) {
    return std::span<int64_t>(durations.data() + begin[g] + count[g].over, static_cast<size_t>(count[g].alone));
  };
  std::vector<int64_t> alone_of_slowed(count.size(), -1);  // group -> alone median; -1: not slowed
  struct Slowed {
    ContentionFacts::Group facts;
    int64_t excess;
    size_t group;
  };
  std::vector<Slowed> slowed;
  IntervalList excess;
  DiagnoseFinding f;
  f.cause = DiagnoseCause::kContention;
  for (const auto& [key, gid] : grouper.KeysInOrder([&](int32_t g) {
         return static_cast<size_t>(g) < count.size() && count[static_cast<size_t>(g)].over > 0;
       })) {
    size_t g = static_cast<size_t>(gid);
    int64_t alone = 0;
    std::string reference_source;  // "": alone in this trace
    if (count[g].alone > 0) {
      alone = MedianInPlace(alone_durations(g));
    } else if (o.reference != nullptr) {
      auto it = o.reference->alone_median_ns.find(key);
      if (it == o.reference->alone_median_ns.end()) continue;
      alone = it->second;
      reference_source = o.reference->source;
    } else {
      continue;
    }
    int64_t over = MedianInPlace(over_durations(g));
    if (alone <= 0 || static_cast<double>(over) < o.contention_min_ratio * static_cast<double>(alone) ||
        static_cast<double>(over) > o.contention_max_ratio * static_cast<double>(alone) ||
        over - alone < o.min_impact_ns) {
      continue;
    }
    alone_of_slowed[g] = alone;
    double ratio = static_cast<double>(over) / static_cast<double>(alone);
    ContentionFacts::Group group{
        grouper.Example(gid),          reference_source, over, alone, ratio, static_cast<int64_t>(count[g].over),
        static_cast<bool>(pageable[g])};
    slowed.push_back({std::move(group), 0, g});
    f.figures[key + ":overlapped_median_ns"] = static_cast<double>(over);
    f.figures[key + ":alone_median_ns"] = static_cast<double>(alone);
    for (int32_t op : first_over[g]) {
      if (op >= 0) CiteOp(f, op, o.max_evidence);
    }
  }
  // The time each slowed op ran past its group's alone median.
  std::vector<int64_t> excess_of(count.size(), 0);
  for (size_t k = 0; k < ops.size(); ++k) {
    if (code[k] < 0 || !(code[k] & 1)) continue;
    size_t g = static_cast<size_t>(code[k] >> 1);
    int64_t alone = alone_of_slowed[g];
    if (alone < 0) continue;
    int32_t op = ops[k];
    excess.push_back({m.ops.start_ns[op] + alone, m.ops.end_ns[op]});
    excess_of[g] = SaturatingAdd(
        excess_of[g], std::max<int64_t>(0, SaturatingSub(SaturatingSub(m.ops.end_ns[op], m.ops.start_ns[op]), alone)));
  }
  for (Slowed& x : slowed) x.excess = excess_of[x.group];
  if (slowed.empty()) return std::nullopt;
  std::stable_sort(slowed.begin(), slowed.end(), [](const Slowed& a, const Slowed& b) { return a.excess > b.excess; });
  ContentionFacts facts;
  for (size_t i = 0; i < slowed.size() && i < 3; ++i) facts.groups.push_back(std::move(slowed[i].facts));
  f.impact_ns = TotalLength(Clip(Normalize(std::move(excess)), w.interval()));
  facts.extra_ns = f.impact_ns;
  f.facts = std::move(facts);
  return f;
}

}  // namespace streamscope
