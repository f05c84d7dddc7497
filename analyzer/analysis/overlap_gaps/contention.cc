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

namespace {

int64_t ClippedDuration(const TraceModel& m, const Window& w, int32_t op) {
  return ClippedLength({m.ops.start_ns[op], m.ops.end_ns[op]}, w.interval());
}

// The window's ops sorted into groups, each op overlapped, alone or neither.
// Flat passes over compact per-group arrays instead of a vector per group:
// a trace can hold ~10^5 groups (copy sizes), so every per-op touch of a
// group is a likely cache miss; the counts stay small enough for L2.
struct ClassifiedOps {
  struct Count {
    int32_t over = 0, alone = 0;
  };
  std::vector<Count> count;
  std::vector<std::array<int32_t, 2>> first_over;  // the first two overlapped ops (evidence)
  std::vector<uint8_t> pageable;
  std::vector<int32_t> code;  // per op: group * 2 + overlapped; -1: neither
};

ClassifiedOps ClassifyOps(const TraceModel& m, const Window& w, const DiagnoseOptions& o, OpIndexRange ops,
                          OpGrouper& grouper) {
  ClassifiedOps c;
  c.code.assign(ops.size(), -1);
  std::vector<int64_t> shared = SharedTime(m, w, ops);
  for (size_t k = 0; k < ops.size(); ++k) {
    int32_t op = ops[k];
    int64_t dur = ClippedDuration(m, w, op);
    if (dur <= 0) continue;
    double frac = static_cast<double>(shared[k]) / static_cast<double>(dur);
    bool over = frac >= o.overlapped_fraction, alone = frac <= o.alone_fraction;
    if (!over && !alone) continue;
    size_t g = static_cast<size_t>(grouper.GroupOf(op));
    if (g >= c.count.size()) {
      c.count.resize(g + 1);
      c.first_over.resize(g + 1, {-1, -1});
      c.pageable.resize(g + 1, 0);
    }
    if (m.ops.src_kind[op] == MemoryKind::kPageable || m.ops.dst_kind[op] == MemoryKind::kPageable) {
      c.pageable[g] = 1;
    }
    if (over) {
      if (c.count[g].over < 2) c.first_over[g][static_cast<size_t>(c.count[g].over)] = op;
      ++c.count[g].over;
    } else {
      ++c.count[g].alone;
    }
    c.code[k] = static_cast<int32_t>(g) * 2 + (over ? 1 : 0);
  }
  return c;
}

// Durations of the groups with overlapped ops, group by group:
// [over..., alone...].
class GroupDurations {
 public:
  GroupDurations(const TraceModel& m, const Window& w, OpIndexRange ops, const ClassifiedOps& c)
      : count_(c.count), begin_(c.count.size() + 1, 0) {
    for (size_t g = 0; g < count_.size(); ++g) {
      begin_[g + 1] = begin_[g] + (count_[g].over > 0 ? int64_t{count_[g].over} + count_[g].alone : 0);
    }
    durations_.resize(static_cast<size_t>(begin_.back()));
    // Cursors are 32-bit (ops are int32-indexed) to keep the scatter's
    // working set small.
    struct Cursor {
      uint32_t over, alone;
    };
    std::vector<Cursor> next(count_.size());
    for (size_t g = 0; g < count_.size(); ++g) {
      next[g] = {static_cast<uint32_t>(begin_[g]), static_cast<uint32_t>(begin_[g] + count_[g].over)};
    }
    for (size_t k = 0; k < ops.size(); ++k) {
      if (c.code[k] < 0) continue;
      size_t g = static_cast<size_t>(c.code[k] >> 1);
      if (count_[g].over == 0) continue;
      uint32_t& slot = (c.code[k] & 1) ? next[g].over : next[g].alone;
      durations_[slot++] = ClippedDuration(m, w, ops[k]);
    }
  }
  std::span<int64_t> Over(size_t g) {
    return std::span<int64_t>(durations_.data() + begin_[g], static_cast<size_t>(count_[g].over));
  }
  std::span<int64_t> Alone(size_t g) {
    return std::span<int64_t>(durations_.data() + begin_[g] + count_[g].over, static_cast<size_t>(count_[g].alone));
  }

 private:
  const std::vector<ClassifiedOps::Count>& count_;
  std::vector<int64_t> begin_;
  std::vector<int64_t> durations_;
};

struct Slowed {
  ContentionFacts::Group facts;
  int64_t excess;
  size_t group;
};

// The groups whose overlapped median ran slower than their alone median (in
// this trace, else in the reference), in key order; cites them in `f` and
// sets alone_of_slowed (group -> alone median; -1: not slowed).
std::vector<Slowed> FindSlowedGroups(const DiagnoseOptions& o, const OpGrouper& grouper, const ClassifiedOps& c,
                                     GroupDurations& durations, DiagnoseFinding& f,
                                     std::vector<int64_t>& alone_of_slowed) {
  std::vector<Slowed> slowed;
  for (const auto& [key, gid] : grouper.KeysInOrder([&](int32_t g) {
         return static_cast<size_t>(g) < c.count.size() && c.count[static_cast<size_t>(g)].over > 0;
       })) {
    size_t g = static_cast<size_t>(gid);
    int64_t alone = 0;
    std::string reference_source;  // "": alone in this trace
    if (c.count[g].alone > 0) {
      alone = MedianInPlace(durations.Alone(g));
    } else if (o.reference != nullptr) {
      auto it = o.reference->alone_median_ns.find(key);
      if (it == o.reference->alone_median_ns.end()) continue;
      alone = it->second;
      reference_source = o.reference->source;
    } else {
      continue;
    }
    int64_t over = MedianInPlace(durations.Over(g));
    if (alone <= 0 || static_cast<double>(over) < o.contention_min_ratio * static_cast<double>(alone) ||
        static_cast<double>(over) > o.contention_max_ratio * static_cast<double>(alone) ||
        over - alone < o.min_impact_ns) {
      continue;
    }
    alone_of_slowed[g] = alone;
    double ratio = static_cast<double>(over) / static_cast<double>(alone);
    ContentionFacts::Group group{grouper.Example(gid),
                                 reference_source,
                                 over,
                                 alone,
                                 ratio,
                                 static_cast<int64_t>(c.count[g].over),
                                 static_cast<bool>(c.pageable[g])};
    slowed.push_back({std::move(group), 0, g});
    f.figures[key + ":overlapped_median_ns"] = static_cast<double>(over);
    f.figures[key + ":alone_median_ns"] = static_cast<double>(alone);
    for (int32_t op : c.first_over[g]) {
      if (op >= 0) CiteOp(f, op, o.max_evidence);
    }
  }
  return slowed;
}

// The time each slowed op ran past its group's alone median: sets each
// group's excess and returns the intervals.
IntervalList ExcessPastAlone(const TraceModel& m, OpIndexRange ops, const ClassifiedOps& c,
                             const std::vector<int64_t>& alone_of_slowed, std::vector<Slowed>& slowed) {
  IntervalList excess;
  std::vector<int64_t> excess_of(c.count.size(), 0);
  for (size_t k = 0; k < ops.size(); ++k) {
    if (c.code[k] < 0 || !(c.code[k] & 1)) continue;
    size_t g = static_cast<size_t>(c.code[k] >> 1);
    int64_t alone = alone_of_slowed[g];
    if (alone < 0) continue;
    int32_t op = ops[k];
    excess.push_back({m.ops.start_ns[op] + alone, m.ops.end_ns[op]});
    excess_of[g] = SaturatingAdd(
        excess_of[g], std::max<int64_t>(0, SaturatingSub(SaturatingSub(m.ops.end_ns[op], m.ops.start_ns[op]), alone)));
  }
  for (Slowed& x : slowed) x.excess = excess_of[x.group];
  return excess;
}

}  // namespace

std::optional<DiagnoseFinding> AnalyzeContention(const TraceModel& m, const Window& w, const DiagnoseOptions& o) {
  const OpIndexRange ops = OpsStartingIn(m, w);
  OpGrouper grouper(m);
  const ClassifiedOps classified = ClassifyOps(m, w, o, ops, grouper);
  GroupDurations durations(m, w, ops, classified);
  std::vector<int64_t> alone_of_slowed(classified.count.size(), -1);
  DiagnoseFinding f;
  f.cause = DiagnoseCause::kContention;
  std::vector<Slowed> slowed = FindSlowedGroups(o, grouper, classified, durations, f, alone_of_slowed);
  IntervalList excess = ExcessPastAlone(m, ops, classified, alone_of_slowed, slowed);
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
