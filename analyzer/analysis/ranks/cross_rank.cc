#include "analyzer/analysis/ranks/cross_rank.h"
#include "analyzer/analysis/causes/lower_median.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace streamscope {
namespace {

constexpr int64_t kSuspectResidualNs = 100'000;

// One collective matched on every rank: the k-th kernel of `name`, and
// per rank the index of that kernel in the rank's comm_kernels.
struct Match {
  const std::string* name = nullptr;
  int64_t ordinal = 0;
  std::vector<int32_t> kernel;  // per input
};

void SumFigures(const RankFacts& facts, RankFigures& f) {
  f.path = facts.path;
  f.pid = facts.pid;
  f.host = facts.host;
  for (const RankWindowFacts& w : facts.windows) {
    for (const RankDeviceFigures& d : w.devices) {
      f.window_ns += d.window_ns;
      f.busy_ns += d.busy_ns;
      f.idle_ns += d.idle_ns;
      f.comm_ns += d.comm_ns;
      f.compute_ns += d.compute_ns;
      f.overlapped_ns += d.overlapped_ns;
    }
  }
  f.exposed_comm_ns = f.comm_ns - f.overlapped_ns;
}

// Per input its offset to the reference rank's clock; fills the alignment.
std::vector<int64_t> AlignClocks(const std::vector<RankFacts>& facts, const std::vector<Match>& matches, size_t ref,
                                 bool shared_clock, CrossRankResult& result) {
  const size_t n = facts.size();
  std::vector<int64_t> offset(n, 0);
  ClockAlignment& a = result.alignment;
  if (!shared_clock) {
    bool wall = true;
    for (const RankFacts& f : facts) wall &= f.start_wall_time_ns.has_value() && f.start_trace_ns.has_value();
    if (wall) {
      const int64_t ref_shift = *facts[ref].start_wall_time_ns - *facts[ref].start_trace_ns;
      for (size_t r = 0; r < n; ++r) offset[r] = (*facts[r].start_wall_time_ns - *facts[r].start_trace_ns) - ref_shift;
      a.method = "wall_clock";
    } else {
      a.method = "none";
      result.notes.push_back({CrossRankNote::Kind::kNoWallClockStart});
    }
    for (size_t r = 0; r < n; ++r) result.ranks[r].wall_clock_offset_ns = offset[r];
    if (!matches.empty()) {
      a.method = "collectives";
      auto end_of = [&](size_t r, const Match& m) { return facts[r].comm_kernels[m.kernel[r]].end_ns; };
      // First against the reference rank, then against the consensus end.
      for (size_t r = 0; r < n; ++r) {
        std::vector<int64_t> d;
        d.reserve(matches.size());
        for (const Match& m : matches) d.push_back(end_of(ref, m) - end_of(r, m));
        offset[r] = LowerMedian(std::move(d));
      }
      std::vector<int64_t> consensus;
      consensus.reserve(matches.size());
      for (const Match& m : matches) {
        std::vector<int64_t> ends;
        for (size_t r = 0; r < n; ++r) ends.push_back(end_of(r, m) + offset[r]);
        consensus.push_back(LowerMedian(std::move(ends)));
      }
      for (size_t r = 0; r < n; ++r) {
        std::vector<int64_t> d;
        for (size_t k = 0; k < matches.size(); ++k) d.push_back(consensus[k] - end_of(r, matches[k]));
        offset[r] = LowerMedian(std::move(d));
      }
      const int64_t ref_offset = offset[ref];
      for (int64_t& o : offset) o -= ref_offset;
    }
  }
  for (size_t r = 0; r < n; ++r) result.ranks[r].clock_offset_ns = offset[r];
  // Residual: how far each aligned end is from the consensus end.
  std::vector<int64_t> all, ends, scratch;
  for (const Match& m : matches) {
    ends.clear();
    for (size_t r = 0; r < n; ++r) ends.push_back(facts[r].comm_kernels[m.kernel[r]].end_ns + offset[r]);
    scratch.assign(ends.begin(), ends.end());  // LowerMedian reorders what it is given
    const int64_t consensus = LowerMedian(std::move(scratch));
    for (size_t r = 0; r < n; ++r) {
      int64_t dev = std::llabs(ends[r] - consensus);
      result.ranks[r].alignment_residual_ns = std::max(result.ranks[r].alignment_residual_ns, dev);
      all.push_back(dev);
    }
  }
  if (!all.empty()) {
    a.residual_max_ns = *std::max_element(all.begin(), all.end());
    a.residual_median_ns = LowerMedian(std::move(all));
  }
  // Collective ends agree within microseconds; far more means the k-th
  // kernels were not the same collective (a rank's window cut one off).
  if (a.method == "collectives" && a.residual_max_ns > kSuspectResidualNs) {
    result.notes.push_back({CrossRankNote::Kind::kLargeResidual, a.residual_max_ns});
  }
  return offset;
}

// Rank numbers: metadata first; the rest numbered after the largest.
// Returns the reference rank's input (the lowest number).
size_t NumberRanks(const std::vector<RankFacts>& facts, CrossRankResult& result) {
  const size_t n = facts.size();
  std::set<int64_t> used;
  int64_t next = 0;
  bool duplicate = false;
  for (size_t i = 0; i < n; ++i) {
    if (facts[i].rank) {
      result.ranks[i].rank = *facts[i].rank;
      result.ranks[i].rank_from_metadata = true;
      duplicate |= !used.insert(*facts[i].rank).second;
      next = std::max(next, *facts[i].rank + 1);
    }
  }
  int64_t unnumbered = 0;
  for (RankFigures& f : result.ranks) {
    if (f.rank_from_metadata) continue;
    f.rank = next++;
    ++unnumbered;
  }
  if (unnumbered > 0) {
    result.notes.push_back({CrossRankNote::Kind::kRanksNumberedInOrder, unnumbered});
  }
  if (duplicate) {
    result.notes.push_back({CrossRankNote::Kind::kDuplicateRank});
  }
  size_t ref = 0;
  for (size_t i = 0; i < n; ++i) {
    if (result.ranks[i].rank < result.ranks[ref].rank) ref = i;
  }
  return ref;
}

// Per collective name, per input the indices of its kernels in comm_kernels.
using KernelsByName = std::map<std::string, std::vector<std::vector<int32_t>>>;

KernelsByName GroupByName(const std::vector<RankFacts>& facts) {
  const size_t n = facts.size();
  KernelsByName by_name;
  for (size_t r = 0; r < n; ++r) {
    for (size_t i = 0; i < facts[r].comm_kernels.size(); ++i) {
      auto& lists = by_name[facts[r].comm_names[facts[r].comm_kernels[i].name]];
      lists.resize(n);
      lists[r].push_back(static_cast<int32_t>(i));
    }
  }
  return by_name;
}

// Matches the k-th collective of each name across the n ranks (the matches
// point into by_name).
std::vector<Match> MatchCollectives(const KernelsByName& by_name, size_t n, CrossRankResult& result) {
  std::vector<Match> matches;
  for (const auto& [name, lists] : by_name) {
    size_t common = SIZE_MAX, total = 0;
    for (const auto& list : lists) {
      common = std::min(common, list.size());
      total += list.size();
    }
    if (n < 2) common = 0;
    result.unmatched_kernels += static_cast<int64_t>(total - common * n);
    for (size_t k = 0; k < common; ++k) {
      Match m{&name, static_cast<int64_t>(k), std::vector<int32_t>(n)};
      for (size_t r = 0; r < n; ++r) m.kernel[r] = lists[r][k];
      matches.push_back(std::move(m));
    }
  }
  result.matched_collectives = static_cast<int64_t>(matches.size());
  for (size_t r = 0; r < n; ++r) result.ranks[r].collectives = result.matched_collectives;
  return matches;
}

// What the collectives of one step (a window of the reference rank) made
// each rank wait.
struct StepAcc {
  std::vector<int64_t> caused;
  int64_t max_skew = 0, collectives = 0;
};

// Per matched collective its skew, and what each rank waited for the last
// to arrive (counted against that one, and its step when `steps`).
std::vector<CollectiveSkew> AttributeWaits(const std::vector<RankFacts>& facts, const std::vector<Match>& matches,
                                           const std::vector<int64_t>& offset, size_t ref, bool steps,
                                           CrossRankResult& result, std::map<int64_t, StepAcc>& per_step) {
  const size_t n = facts.size();
  std::vector<CollectiveSkew> skews;
  for (const Match& m : matches) {
    auto arrival = [&](size_t r) { return facts[r].comm_kernels[m.kernel[r]].start_ns + offset[r]; };
    size_t first = 0, last = 0;
    for (size_t r = 0; r < n; ++r) {
      if (arrival(r) < arrival(first)) first = r;
      if (arrival(r) > arrival(last)) last = r;
    }
    const int64_t latest = arrival(last), earliest = arrival(first);
    StepAcc* step = nullptr;
    if (steps) {
      const int64_t at = facts[ref].comm_kernels[m.kernel[ref]].start_ns;
      const auto& w = facts[ref].windows;
      auto it =
          std::upper_bound(w.begin(), w.end(), at, [](int64_t t, const RankWindowFacts& x) { return t < x.start_ns; });
      if (it != w.begin() && at < std::prev(it)->end_ns) {
        step = &per_step[std::prev(it) - w.begin()];
        step->caused.resize(n);
        ++step->collectives;
        step->max_skew = std::max(step->max_skew, latest - earliest);
      }
    }
    for (size_t r = 0; r < n; ++r) {
      const CommKernelFact& k = facts[r].comm_kernels[m.kernel[r]];
      int64_t waited = std::min(latest - arrival(r), k.end_ns - k.start_ns);
      result.ranks[r].waited_ns += waited;
      if (r != last) {
        result.ranks[last].caused_wait_ns += waited;
        if (step) step->caused[last] += waited;
      }
    }
    if (latest > earliest) ++result.ranks[last].last_arrivals;
    skews.push_back(
        {*m.name, m.ordinal, result.ranks[first].rank, result.ranks[last].rank, earliest, latest, latest - earliest});
  }
  return skews;
}

// Each step's straggler: the rank that caused the most waiting in it.
void NameStragglers(const std::map<int64_t, StepAcc>& per_step, CrossRankResult& result) {
  const size_t n = result.ranks.size();
  for (const auto& [index, acc] : per_step) {
    size_t worst = 0;
    for (size_t r = 1; r < n; ++r) {
      if (acc.caused[r] > acc.caused[worst] ||
          (acc.caused[r] == acc.caused[worst] && result.ranks[r].rank < result.ranks[worst].rank)) {
        worst = r;
      }
    }
    if (acc.caused[worst] <= 0) continue;
    ++result.ranks[worst].straggler_steps;
    result.steps.push_back({index, result.ranks[worst].rank, acc.caused[worst], acc.max_skew, acc.collectives});
  }
}

}  // namespace

CrossRankResult MergeRankFacts(const std::vector<RankFacts>& facts, int top) {
  CrossRankResult result;
  const size_t n = facts.size();
  result.ranks.resize(n);
  for (size_t i = 0; i < n; ++i) SumFigures(facts[i], result.ranks[i]);
  const size_t ref = NumberRanks(facts, result);

  std::set<std::string> hosts, clocks;
  for (const RankFacts& f : facts) {
    hosts.insert(f.host);
    clocks.insert(f.clock_domain);
  }
  const bool shared_clock = hosts.size() <= 1 && clocks.size() <= 1;
  result.alignment.hosts = static_cast<int64_t>(hosts.size());
  result.alignment.reference_rank = n > 0 ? result.ranks[ref].rank : 0;

  const KernelsByName by_name = GroupByName(facts);
  const std::vector<Match> matches = MatchCollectives(by_name, n, result);
  const std::vector<int64_t> offset = AlignClocks(facts, matches, ref, shared_clock, result);
  if (!shared_clock && matches.empty()) {
    result.comparable = false;
    result.notes.push_back({CrossRankNote::Kind::kClocksNotComparable, static_cast<int64_t>(hosts.size()),
                            static_cast<int64_t>(clocks.size())});
  }

  // Steps: the reference rank's windows, when every trace's are steps.
  bool steps = n >= 2 && result.comparable;
  for (const RankFacts& f : facts) steps &= f.windows_are_steps;
  std::map<int64_t, StepAcc> per_step;
  std::vector<CollectiveSkew> skews;
  if (result.comparable) skews = AttributeWaits(facts, matches, offset, ref, steps, result, per_step);
  NameStragglers(per_step, result);
  if (result.unmatched_kernels > 0) {
    result.notes.push_back({CrossRankNote::Kind::kUnmatchedKernels, result.unmatched_kernels});
  }
  std::sort(skews.begin(), skews.end(), [](const CollectiveSkew& a, const CollectiveSkew& b) {
    return a.skew_ns != b.skew_ns ? a.skew_ns > b.skew_ns : a.first_start_ns < b.first_start_ns;
  });
  if (top >= 0 && skews.size() > static_cast<size_t>(top)) skews.resize(static_cast<size_t>(top));
  result.worst = std::move(skews);
  std::stable_sort(result.ranks.begin(), result.ranks.end(),
                   [](const RankFigures& a, const RankFigures& b) { return a.rank < b.rank; });
  return result;
}

}  // namespace streamscope
