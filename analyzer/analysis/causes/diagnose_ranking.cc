#include "analyzer/analysis/causes/diagnose_ranking.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>
#include <vector>

#include "analyzer/analysis/causes/host_link_rate.h"

namespace streamscope {
namespace {

// Whether the what-if cause `c` removes what finding `f` blames.
bool Covers(const TraceModel& m, const DiagnoseFinding& f, const WhatIfCause& c) {
  switch (f.cause) {
    case DiagnoseCause::kPageableCopies:
      return c.kind == WhatIfKind::kPageableCopy ||
             (c.kind == WhatIfKind::kSync && c.blocking == BlockingKind::kPageableCopy);
    case DiagnoseCause::kSameStream: {
      if (c.kind != WhatIfKind::kSameStream) return false;
      const auto* facts = std::get_if<SameStreamFacts>(&f.facts);
      if (facts == nullptr || c.stream < 0 || static_cast<size_t>(c.stream) >= m.streams.size()) return false;
      for (const SameStreamFacts::Device& d : facts->devices) {
        if (d.stream_id == m.streams[c.stream].id) return true;
      }
      return false;
    }
    case DiagnoseCause::kSyncBetween: return c.kind == WhatIfKind::kSync && IsExplicitSync(c.blocking);
    case DiagnoseCause::kImplicitSyncCall:
      return c.kind == WhatIfKind::kSync &&
             (c.blocking == BlockingKind::kSyncCopy || c.blocking == BlockingKind::kDrain);
    case DiagnoseCause::kLegacyDefaultStream: return c.kind == WhatIfKind::kLegacyStream;
    case DiagnoseCause::kHardwareQueue: return c.kind == WhatIfKind::kHardwareQueue;
    case DiagnoseCause::kLazyLoading: return c.kind == WhatIfKind::kLazyLoading;
    case DiagnoseCause::kCpuStarvation: return c.kind == WhatIfKind::kHostWork;
    default: return false;
  }
}

// round_trip: the estimate is the read-backs gone (what_if.h, readback):
// the remedy tests the result less often, so the waits and the read-back
// calls go while the host work between calls stays. The host work removed
// alone and both together are in its facts: in a host-bound loop the
// read-backs cost little and the host work is what the GPU waits for.
template <typename Session>
void EstimateRoundTrip(Session& session, const std::vector<WhatIfCause>& host,
                       const std::optional<WhatIfEstimate>& host_alone, DiagnoseResult* result) {
  for (DiagnoseFinding& f : result->findings) {
    auto* facts = std::get_if<RoundTripFacts>(&f.facts);
    if (facts == nullptr) continue;
    const std::vector<WhatIfCause> readback{WhatIfCause{WhatIfKind::kReadback}};
    const WhatIfEstimate alone = session().EstimateTogether(readback);
    if (!alone.estimable || alone.call_count == 0) continue;
    std::vector<WhatIfCause> both = readback;
    both.insert(both.end(), host.begin(), host.end());
    const WhatIfEstimate together = host.empty() ? alone : session().EstimateTogether(both);
    facts->readback_saving_ns = std::max<int64_t>(0, alone.estimated_saving_ns);
    facts->host_alone_saving_ns =
        host_alone && host_alone->estimable ? std::max<int64_t>(0, host_alone->estimated_saving_ns) : 0;
    facts->together_saving_ns = together.estimable ? std::max<int64_t>(0, together.estimated_saving_ns) : -1;
    f.saving_estimated = true;
    f.estimated_saving_ns = alone.estimated_saving_ns;
    f.figures["readback_saving_ns"] = static_cast<double>(facts->readback_saving_ns);
    f.figures["host_alone_saving_ns"] = static_cast<double>(facts->host_alone_saving_ns);
    f.figures["together_saving_ns"] = static_cast<double>(facts->together_saving_ns);
  }
}

// The significance threshold of a diagnosis (the header says it).
int64_t SignificantNs(const DiagnoseOptions& options, const DiagnoseResult& result) {
  return std::max<int64_t>(options.min_impact_ns,
                           static_cast<int64_t>(options.min_impact_share * static_cast<double>(result.gpu_span_ns)));
}

// Causes acting on the same gaps: the waits, the host work and the launch
// calls' blocking, each alone and all together. Each alone may leave the
// GPU waiting for the others (a launch-bound loop that also syncs and
// prepares on the host); removing all of them can save clearly more.
template <typename Session>
void EstimateCombined(Session& session, const std::vector<WhatIfCause>& waits,
                      const std::optional<WhatIfEstimate>& waits_alone, const std::vector<WhatIfCause>& host,
                      const std::optional<WhatIfEstimate>& host_alone, const DiagnoseOptions& options,
                      DiagnoseResult* result) {
  CombinedEstimate& c = result->combined;
  const bool has_waits = !waits.empty() && waits_alone && waits_alone->estimable;
  const bool has_host = !host.empty() && host_alone && host_alone->estimable;
  if (!has_waits && !has_host) return;  // the launches alone make no combination
  // Host delays removed, the GPU still runs its work (as in OrderFindings):
  // no saving exceeds the idle time, so a combination cannot gain the
  // threshold beyond the savings alone when they leave less idle than it.
  // Then the two replays below (a few seconds and a few hundred MB at 10M
  // ops) are skipped.
  const bool clip = result->busy_ns > 0 && result->busy_ns <= result->gpu_span_ns;
  const int64_t room = clip ? result->gpu_span_ns - result->busy_ns : std::numeric_limits<int64_t>::max();
  auto saving = [&](const WhatIfEstimate& e) { return std::min(std::max<int64_t>(0, e.estimated_saving_ns), room); };
  const int64_t threshold = SignificantNs(options, *result);
  int64_t alone = (has_waits ? saving(*waits_alone) : 0) + (has_host ? saving(*host_alone) : 0);
  if (clip && room - alone < threshold) return;
  const WhatIfCause launches{WhatIfKind::kLaunchBlocking};
  const WhatIfEstimate launches_alone = session().EstimateTogether({launches});
  const bool has_launches = launches_alone.estimable && launches_alone.measured_cost_ns > 0;
  if (int{has_waits} + int{has_host} + int{has_launches} < 2) return;
  if (has_launches) alone += saving(launches_alone);
  if (clip && room - alone < threshold) return;
  std::vector<WhatIfCause> all;
  if (has_waits) all.insert(all.end(), waits.begin(), waits.end());
  if (has_host) all.insert(all.end(), host.begin(), host.end());
  if (has_launches) all.push_back(launches);
  const WhatIfEstimate together = session().EstimateTogether(all);
  if (!together.estimable) return;
  c.evaluated = true;
  if (has_waits) {
    c.waits_alone_ns = saving(*waits_alone);
    c.waits_cost_ns = waits_alone->measured_cost_ns;
  }
  if (has_host) {
    c.host_alone_ns = saving(*host_alone);
    c.host_cost_ns = host_alone->measured_cost_ns;
  }
  if (has_launches) {
    c.launches_alone_ns = saving(launches_alone);
    c.launches_cost_ns = launches_alone.measured_cost_ns;
  }
  c.together_ns = saving(together);
  // Acting on the same gaps: together saves more than the sum alone (causes
  // on different gaps add up), and clearly more than the best alone.
  const int64_t best = c.best_alone_ns();
  const int64_t sum = c.sum_alone_ns();
  c.reported = c.together_ns * 4 >= best * 5 && c.together_ns - sum >= threshold;
}

}  // namespace

WhatIfOptions RankingWhatIfOptions() {
  WhatIfOptions o;
  o.max_causes_per_kind = 4;
  o.max_listed = 0;
  o.replay_unchanged = false;  // the ranking reads the estimates only
  return o;
}

WhatIfOptions RankingWhatIfOptions(const TraceModel& model) {
  WhatIfOptions o = RankingWhatIfOptions();
  o.link_bytes_per_ns = LinkBytesPerNs(model);
  return o;
}

namespace {

// Fills every finding's estimate from `what_if` (the largest saving of the
// causes it covers).
void FillEstimates(const TraceModel& model, const WhatIfResult& what_if, DiagnoseResult* result) {
  std::vector<DiagnoseFinding>& findings = result->findings;
  for (DiagnoseFinding& f : findings) {
    f.saving_estimated = false;
    f.estimated_saving_ns = 0;
    for (const WhatIfEstimate& e : what_if.estimates) {
      if (!e.estimable || !Covers(model, f, e.cause)) continue;
      f.estimated_saving_ns =
          f.saving_estimated ? std::max(f.estimated_saving_ns, e.estimated_saving_ns) : e.estimated_saving_ns;
      f.saving_estimated = true;
    }
  }
}

// Orders the findings by their estimates (the header says how).
void OrderFindings(const DiagnoseOptions& options, DiagnoseResult* result) {
  std::vector<DiagnoseFinding>& findings = result->findings;
  // Host delays removed, the GPU still runs its work: a saving of host
  // delays never exceeds the window's GPU idle time (span - busy). The
  // replay can overshoot it when removed host work also released
  // stream-ordered copies.
  if (result->busy_ns > 0 && result->busy_ns <= result->gpu_span_ns) {
    const int64_t idle = result->gpu_span_ns - result->busy_ns;
    for (DiagnoseFinding& f : findings) {
      if ((f.cause == DiagnoseCause::kCpuStarvation || f.cause == DiagnoseCause::kRoundTrip) && f.saving_estimated) {
        f.estimated_saving_ns = std::min(f.estimated_saving_ns, idle);
      }
    }
  }
  const int64_t threshold = SignificantNs(options, *result);
  // Leading: a significant estimated saving (whatever the measured cost),
  // or significant without a what-if (then its measured cost stands in:
  // the best figure there is). Minor: both the cost and the saving small.
  // A significant small_grid leads after the others (small_grid.h).
  auto tier = [&](const DiagnoseFinding& f) {
    if (f.cause == DiagnoseCause::kSmallGrid) return f.significant ? 1 : 2;
    if (f.saving_estimated && f.estimated_saving_ns >= threshold) return 0;
    if (f.significant && !f.saving_estimated) return 0;
    return 2;
  };
  auto key = [](const DiagnoseFinding& f) { return f.saving_estimated ? f.estimated_saving_ns : f.impact_ns; };
  std::vector<int32_t> order(findings.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const DiagnoseFinding& x = findings[a];
    const DiagnoseFinding& y = findings[b];
    int tx = tier(x), ty = tier(y);
    if (tx != ty) return tx < ty;
    if (tx < 2) return key(x) > key(y);
    if (x.significant != y.significant) return x.significant;
    int64_t sx = x.saving_estimated ? x.estimated_saving_ns : -1, sy = y.saving_estimated ? y.estimated_saving_ns : -1;
    if (sx != sy) return sx > sy;
    return x.impact_ns > y.impact_ns;
  });
  result->leading_count =
      static_cast<int32_t>(std::count_if(order.begin(), order.end(), [&](int32_t i) { return tier(findings[i]) < 2; }));
  result->ranked = std::move(order);
  result->primary_index =
      !result->ranked.empty() && tier(findings[result->ranked.front()]) < 2 ? result->ranked.front() : -1;
}

}  // namespace

void RankDiagnoseFindings(const TraceModel& model, const WhatIfResult& what_if, const DiagnoseOptions& options,
                          DiagnoseResult* result) {
  FillEstimates(model, what_if, result);
  OrderFindings(options, result);
}

namespace {

bool HasWhatIf(DiagnoseCause c) {
  return c == DiagnoseCause::kPageableCopies || c == DiagnoseCause::kSameStream || c == DiagnoseCause::kSyncBetween ||
         c == DiagnoseCause::kImplicitSyncCall || c == DiagnoseCause::kLegacyDefaultStream ||
         c == DiagnoseCause::kCpuStarvation || c == DiagnoseCause::kRoundTrip || c == DiagnoseCause::kHardwareQueue ||
         c == DiagnoseCause::kLazyLoading;
}

}  // namespace

bool RankingNeedsWhatIf(const DiagnoseResult& result) {
  return std::any_of(result.findings.begin(), result.findings.end(),
                     [](const DiagnoseFinding& f) { return HasWhatIf(f.cause); });
}

bool RankingNeedsWhatIf(const DiagnoseResult& result, const RankingShown& shown) {
  return (shown.every_finding || shown.leading || shown.primary) && RankingNeedsWhatIf(result);
}

void RankDiagnoseFindings(const TraceModel& model, const DependencyGraph& graph, const DiagnoseOptions& options,
                          DiagnoseResult* result, const WindowDetections* detections) {
  const bool any = RankingNeedsWhatIf(*result);
  if (!any) {  // no finding reads an estimate: the replays below would be wasted
    RankDiagnoseFindings(model, WhatIfResult{}, options, result);
    return;
  }
  // Built on first use, shared by the estimates below.
  std::optional<WhatIfSession> shared;
  auto session = [&]() -> const WhatIfSession& {
    if (!shared) shared.emplace(model, graph, RankingWhatIfOptions(model), detections);
    return *shared;
  };
  // Only the causes an estimate is read from are replayed: those a finding
  // covers, and the host work (the combination and round_trip read it with
  // or without a cpu_starvation finding). A stream of copies beside
  // kernels on four streams made four same_stream replays that no finding
  // read: 5 of 11 s at 10M ops.
  std::vector<WhatIfCause> read;
  for (const WhatIfCause& c : session().Candidates()) {
    if (c.kind == WhatIfKind::kHostWork || std::any_of(result->findings.begin(), result->findings.end(),
                                                       [&](const DiagnoseFinding& f) { return Covers(model, f, c); })) {
      read.push_back(c);
    }
  }
  WhatIfResult what_if = session().EstimateSavings(read);
  // sync_between: every way the host waits for its work each iteration,
  // dropped together: the explicit syncs and the pageable *Async copies
  // that held the host until their copy ran (a sync after such a copy waits
  // for nothing more, so dropping it alone saves nothing).
  std::vector<WhatIfCause> waits;
  bool explicit_sync = false;
  for (size_t c = 0; c < graph.call_count(); ++c) {
    BlockingKind b = graph.CallBlocking(c);
    if (!IsExplicitSync(b) && b != BlockingKind::kPageableCopy) continue;
    explicit_sync |= IsExplicitSync(b);
    WhatIfCause cause{WhatIfKind::kSync, model.api.name[graph.ModelCall(c)], b, graph.CallSyncStream(c)};
    if (std::find(waits.begin(), waits.end(), cause) == waits.end()) waits.push_back(cause);
  }
  // pageable_copies: the *Async copies that held the host no longer hold
  // it, each copy keeping its measured time: a lower bound that needs no
  // pinned rate (the pageable_copy what-if needs one).
  std::vector<WhatIfCause> holds;
  for (const WhatIfCause& c : waits) {
    if (c.blocking == BlockingKind::kPageableCopy) holds.push_back(c);
  }
  const bool waits_hold = !holds.empty();
  if (any && holds.empty()) {
    for (size_t c = 0; c < graph.call_count(); ++c) {
      if (graph.CallBlocking(c) != BlockingKind::kPageableCopy) continue;
      WhatIfCause cause{WhatIfKind::kSync, model.api.name[graph.ModelCall(c)], BlockingKind::kPageableCopy,
                        graph.CallSyncStream(c)};
      if (std::find(holds.begin(), holds.end(), cause) == holds.end()) holds.push_back(cause);
    }
  }
  std::optional<WhatIfEstimate> holds_alone;
  if (!holds.empty()) holds_alone = session().EstimateTogether(holds);
  std::optional<WhatIfEstimate> waits_alone;  // every wait dropped, nothing subtracted
  if (!explicit_sync && waits_hold) waits_alone = holds_alone;
  if (explicit_sync) {
    // Listed under an explicit sync cause, so that sync_between covers it.
    std::stable_partition(waits.begin(), waits.end(), [](const WhatIfCause& c) { return IsExplicitSync(c.blocking); });
    // One wait alone was replayed above when a finding covers it: a sync
    // cause only removes edges, so its replay together is the same one.
    auto replayed = what_if.estimates.end();
    if (waits.size() == 1) {
      replayed = std::find_if(what_if.estimates.begin(), what_if.estimates.end(),
                              [&](const WhatIfEstimate& e) { return e.cause == waits.front(); });
    }
    WhatIfEstimate together = replayed != what_if.estimates.end() ? *replayed : session().EstimateTogether(waits);
    waits_alone = together;
    // The syncs' share is what they add to the pageable holds: dropping both
    // saves at least what dropping the holds alone saves (a sync before 16
    // pageable 64 MiB copies "saved" the copies' 42.9 ms), while a sync right
    // after each tiny pageable copy (tiny_sync) saves nearly all of it.
    if (waits_hold && holds_alone && holds_alone->estimable && together.estimable) {
      together.estimated_saving_ns =
          std::max<int64_t>(0, together.estimated_saving_ns - holds_alone->estimated_saving_ns);
    }
    what_if.estimates.push_back(std::move(together));
  }
  if (holds_alone) what_if.estimates.push_back(*std::move(holds_alone));
  // cpu_starvation: the host work of every NVTX range (and of unannotated
  // code) removed together: a data loader's work is often split over the
  // step's range and code outside any range, and removing one name alone
  // leaves the GPU waiting for the other.
  std::vector<WhatIfCause> host_work;
  for (const WhatIfEstimate& e : what_if.estimates) {
    if (e.cause.kind == WhatIfKind::kHostWork && e.estimable &&
        std::find(host_work.begin(), host_work.end(), e.cause) == host_work.end()) {
      host_work.push_back(e.cause);
    }
  }
  std::optional<WhatIfEstimate> host_alone;
  if (host_work.size() > 1) {
    host_alone = session().EstimateTogether(host_work);
    what_if.estimates.push_back(*host_alone);
  } else if (host_work.size() == 1) {
    for (const WhatIfEstimate& e : what_if.estimates) {
      if (e.cause == host_work.front()) host_alone = e;
    }
  }
  FillEstimates(model, what_if, result);
  EstimateRoundTrip(session, host_work, host_alone, result);
  EstimateCombined(session, waits, waits_alone, host_work, host_alone, options, result);
  OrderFindings(options, result);
}

}  // namespace streamscope
