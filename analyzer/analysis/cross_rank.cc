#include "analyzer/analysis/cross_rank.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "analyzer/analysis/communication.h"
#include "analyzer/intervals/interval_set.h"

namespace streamscope {
namespace {

std::optional<int64_t> MetadataRank(const TraceModel& model) {
  auto it = model.metadata.find("env:RANK");
  if (it == model.metadata.end()) return std::nullopt;
  int64_t rank = 0;
  const std::string& text = it->second;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), rank);
  if (ec != std::errc() || ptr != text.data() + text.size() || rank < 0) return std::nullopt;
  return rank;
}

std::string Metadata(const TraceModel& model, const std::string& key) {
  auto it = model.metadata.find(key);
  return it == model.metadata.end() ? std::string() : it->second;
}

// One communication kernel on one rank: arrival (start) and duration.
struct Arrival {
  int64_t start_ns = 0, duration_ns = 0;
};

struct RankWork {
  RankFigures figures;
  // name -> arrivals in start order
  std::map<std::string, std::vector<Arrival>> collectives;
};

RankWork Measure(const RankInput& input) {
  RankWork work;
  const TraceModel& model = *input.model;
  const GpuOps& ops = model.ops;
  RankFigures& f = work.figures;
  f.path = model.path;
  f.pid = model.pid;
  std::map<int32_t, IntervalList> busy_by_device;
  for (const Window& window : input.windows) {
    for (const DeviceCommunication& d : AnalyzeCommunicationAllDevices(model, window).devices) {
      f.comm_ns += d.comm_ns;
      f.compute_ns += d.compute_ns;
      f.overlapped_ns += d.overlapped_ns;
    }
    auto [first, last] = model.OpRangeFor(window.start_ns, window.end_ns);
    std::map<int32_t, IntervalList> busy;
    for (size_t i = first; i < last; ++i) {
      Interval clipped{std::max(ops.start_ns[i], window.start_ns), std::min(ops.end_ns[i], window.end_ns)};
      if (clipped.empty()) continue;
      busy[ops.device_id[i]].push_back(clipped);
      if (ops.category[i] != OpCategory::kKernel || ops.name[i] < 0) continue;
      std::string_view name = model.strings.Get(ops.name[i]);
      if (IsCommunicationKernel(name)) {
        work.collectives[std::string(name)].push_back({ops.start_ns[i], ops.end_ns[i] - ops.start_ns[i]});
      }
    }
    // Every device that ran anything in the trace counts for the whole
    // window, busy or not.
    for (int32_t device : model.op_devices) busy[device];
    for (auto& [device, list] : busy) {
      int64_t b = TotalLength(Normalize(std::move(list)));
      f.window_ns += window.length();
      f.busy_ns += b;
      f.idle_ns += window.length() - b;
    }
  }
  f.exposed_comm_ns = f.comm_ns - f.overlapped_ns;
  for (auto& [name, arrivals] : work.collectives) {
    std::sort(arrivals.begin(), arrivals.end(),
              [](const Arrival& a, const Arrival& b) { return a.start_ns < b.start_ns; });
  }
  return work;
}

}  // namespace

CrossRankResult AnalyzeCrossRank(const std::vector<RankInput>& inputs, int top) {
  CrossRankResult result;
  std::vector<RankWork> work;
  work.reserve(inputs.size());
  for (const RankInput& input : inputs) work.push_back(Measure(input));

  // Rank numbers: metadata first; the rest numbered after the largest.
  std::set<int64_t> used;
  int64_t next = 0;
  bool duplicate = false;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (auto r = MetadataRank(*inputs[i].model)) {
      work[i].figures.rank = *r;
      work[i].figures.rank_from_metadata = true;
      duplicate |= !used.insert(*r).second;
      next = std::max(next, *r + 1);
    }
  }
  int64_t unnumbered = 0;
  for (RankWork& w : work) {
    if (w.figures.rank_from_metadata) continue;
    w.figures.rank = next++;
    ++unnumbered;
  }
  if (unnumbered > 0) {
    result.notes.push_back(absl::StrCat(unnumbered, " trace(s) carry no rank (metadata env:RANK); they are "
                                        "numbered in argument order after the others"));
  }
  if (duplicate) {
    result.notes.push_back("several traces claim the same rank (env:RANK): are they from different runs?");
  }

  // Arrival times are comparable only within one host and clock domain.
  std::set<std::string> hosts, clocks;
  for (const RankInput& input : inputs) {
    hosts.insert(Metadata(*input.model, "host"));
    clocks.insert(Metadata(*input.model, "clock_domain"));
  }
  if (hosts.size() > 1 || clocks.size() > 1) {
    result.comparable = false;
    result.notes.push_back(absl::StrCat("the traces come from ", hosts.size(), " host(s) and ", clocks.size(),
                                        " clock domain(s): arrival times are not comparable, so who waited "
                                        "on whom is not computed"));
  }

  // Match the k-th collective of each name across ranks.
  std::set<std::string> names;
  for (const RankWork& w : work) {
    for (const auto& [name, arrivals] : w.collectives) names.insert(name);
  }
  std::vector<CollectiveSkew> skews;
  for (const std::string& name : names) {
    size_t common = SIZE_MAX, total = 0;
    for (const RankWork& w : work) {
      auto it = w.collectives.find(name);
      size_t n = it == w.collectives.end() ? 0 : it->second.size();
      common = std::min(common, n);
      total += n;
    }
    if (work.size() < 2) common = 0;
    result.unmatched_kernels += static_cast<int64_t>(total - common * work.size());
    for (size_t k = 0; k < common; ++k) {
      ++result.matched_collectives;
      size_t first = 0, last = 0;
      for (size_t r = 0; r < work.size(); ++r) {
        const Arrival& a = work[r].collectives.at(name)[k];
        if (a.start_ns < work[first].collectives.at(name)[k].start_ns) first = r;
        if (a.start_ns > work[last].collectives.at(name)[k].start_ns) last = r;
        ++work[r].figures.collectives;
      }
      if (!result.comparable) continue;
      const int64_t latest = work[last].collectives.at(name)[k].start_ns;
      const int64_t earliest = work[first].collectives.at(name)[k].start_ns;
      for (size_t r = 0; r < work.size(); ++r) {
        const Arrival& a = work[r].collectives.at(name)[k];
        int64_t waited = std::min(latest - a.start_ns, a.duration_ns);
        work[r].figures.waited_ns += waited;
        if (r != last) work[last].figures.caused_wait_ns += waited;
      }
      if (latest > earliest) ++work[last].figures.last_arrivals;
      skews.push_back({name, static_cast<int64_t>(k), work[first].figures.rank, work[last].figures.rank, earliest,
                       latest, latest - earliest});
    }
  }
  if (result.unmatched_kernels > 0) {
    result.notes.push_back(absl::StrCat(result.unmatched_kernels,
                                        " communication kernel(s) have no counterpart on every rank (different "
                                        "counts per rank in the window): they are not matched"));
  }
  std::sort(skews.begin(), skews.end(), [](const CollectiveSkew& a, const CollectiveSkew& b) {
    return a.skew_ns != b.skew_ns ? a.skew_ns > b.skew_ns : a.first_start_ns < b.first_start_ns;
  });
  if (top >= 0 && skews.size() > static_cast<size_t>(top)) skews.resize(static_cast<size_t>(top));
  result.worst = std::move(skews);
  for (RankWork& w : work) result.ranks.push_back(std::move(w.figures));
  std::sort(result.ranks.begin(), result.ranks.end(),
            [](const RankFigures& a, const RankFigures& b) { return a.rank < b.rank; });
  return result;
}

}  // namespace streamscope
