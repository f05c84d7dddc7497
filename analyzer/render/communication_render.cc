#include "analyzer/render/communication_render.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "analyzer/base/units.h"
#include "analyzer/model/display_name.h"
#include "analyzer/render/text_layout.h"

namespace streamscope {

nlohmann::json CommunicationToJson(const CommunicationResult& result, const TraceModel& model,
                                   const RenderOptions& options) {
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceCommunication& d : result.devices) {
    nlohmann::json names = nlohmann::json::array();
    for (size_t i = 0; i < d.by_name.size() && static_cast<int>(i) < options.top; ++i) {
      const CommKernelStat& s = d.by_name[i];
      names.push_back({{"name", std::string(DisplayName(model.strings, s.name))},
                       {"mangled_name", std::string(model.strings.Get(s.name))},
                       {"count", s.count},
                       {"total_ns", s.total_ns}});
    }
    devices.push_back({{"device_id", d.device_id},
                       {"comm_kernels", d.comm_kernels},
                       {"compute_kernels", d.compute_kernels},
                       {"p2p_copies", d.p2p_copies},
                       {"comm_ns", d.comm_ns},
                       {"compute_ns", d.compute_ns},
                       {"overlapped_ns", d.overlapped_ns},
                       {"exposed_comm_ns", d.exposed_comm_ns},
                       {"hidden_share", d.hidden_share},
                       {"p2p_ns", d.p2p_ns},
                       {"p2p_overlapped_ns", d.p2p_overlapped_ns},
                       {"comm_kernels_by_name", names}});
  }
  return {{"devices", devices}};
}

void RenderCommunicationText(const CommunicationResult& result, const TraceModel& model, const RenderOptions& options,
                             std::ostream& out) {
  if (!result.any()) return;
  out << "\nCommunication (NCCL kernels and peer copies) vs compute:\n";
  for (const DeviceCommunication& d : result.devices) {
    out << "  device " << d.device_id << ":";
    if (d.comm_kernels > 0) {
      out << " " << d.comm_kernels << " communication kernels ran " << FormatDuration(d.comm_ns) << "; "
          << FormatDuration(d.overlapped_ns) << " of it overlapped compute (" << FormatShare(d.hidden_share)
          << " of the hideable time), " << FormatDuration(d.exposed_comm_ns) << " exposed.";
    }
    if (d.p2p_copies > 0) {
      out << " " << d.p2p_copies << " peer copies ran " << FormatDuration(d.p2p_ns) << ", "
          << FormatDuration(d.p2p_overlapped_ns) << " of it (" << FormatShare(d.p2p_overlapped_ns, d.p2p_ns)
          << ") alongside compute.";
    }
    out << "\n";
    for (size_t i = 0; i < d.by_name.size() && static_cast<int>(i) < options.top; ++i) {
      const CommKernelStat& s = d.by_name[i];
      out << "    " << s.count << " x " << ShortenName(DisplayName(model.strings, s.name)) << ": "
          << FormatDuration(s.total_ns) << "\n";
    }
  }
}

std::vector<ResultTable> CommunicationToTables(const CommunicationResult& result) {
  ResultTable t{"analysis_communication",
                {"device_id", "comm_kernels", "compute_kernels", "p2p_copies", "comm_ns", "compute_ns", "overlapped_ns",
                 "exposed_comm_ns", "hidden_share", "p2p_ns", "p2p_overlapped_ns"},
                {}};
  for (const DeviceCommunication& d : result.devices) {
    t.rows.push_back({int64_t{d.device_id}, d.comm_kernels, d.compute_kernels, d.p2p_copies, d.comm_ns, d.compute_ns,
                      d.overlapped_ns, d.exposed_comm_ns, d.hidden_share, d.p2p_ns, d.p2p_overlapped_ns});
  }
  return {t};
}

std::string CrossRankNoteText(const CrossRankNote& note) {
  switch (note.kind) {
    case CrossRankNote::Kind::kRanksNumberedInOrder:
      return absl::StrCat(note.value,
                          " trace(s) carry no rank (metadata env:RANK); they are "
                          "numbered in argument order after the others");
    case CrossRankNote::Kind::kDuplicateRank:
      return "several traces claim the same rank (env:RANK): are they from different runs?";
    case CrossRankNote::Kind::kNoWallClockStart:
      return "some traces record no wall-clock start (metadata start_wall_time_ns, start_trace_ns): "
             "their clocks have no first estimate";
    case CrossRankNote::Kind::kLargeResidual:
      return absl::StrCat("after alignment some collectives' ends still differ by up to ", note.value,
                          " ns: the k-th kernels of a name may not be the same "
                          "collective on every rank (do the windows cover the same steps?)");
    case CrossRankNote::Kind::kClocksNotComparable:
      return absl::StrCat("the traces come from ", note.value, " host(s) and ", note.clock_domains,
                          " clock domain(s) and share no collective to align their clocks with: "
                          "arrival times are not comparable, so who waited on whom is not computed");
    case CrossRankNote::Kind::kUnmatchedKernels:
      return absl::StrCat(note.value,
                          " communication kernel(s) have no counterpart on every rank (different "
                          "counts per rank in the window): they are not matched");
  }
  return "";
}

nlohmann::json CrossRankToJson(const CrossRankResult& result) {
  std::vector<std::string> notes;
  for (const CrossRankNote& n : result.notes) notes.push_back(CrossRankNoteText(n));
  nlohmann::json ranks = nlohmann::json::array();
  for (const RankFigures& r : result.ranks) {
    ranks.push_back({{"rank", r.rank},
                     {"rank_from_metadata", r.rank_from_metadata},
                     {"path", r.path},
                     {"pid", r.pid},
                     {"window_ns", r.window_ns},
                     {"busy_ns", r.busy_ns},
                     {"idle_ns", r.idle_ns},
                     {"comm_ns", r.comm_ns},
                     {"compute_ns", r.compute_ns},
                     {"overlapped_ns", r.overlapped_ns},
                     {"exposed_comm_ns", r.exposed_comm_ns},
                     {"collectives", r.collectives},
                     {"waited_ns", r.waited_ns},
                     {"caused_wait_ns", r.caused_wait_ns},
                     {"last_arrivals", r.last_arrivals},
                     {"host", r.host},
                     {"wall_clock_offset_ns", r.wall_clock_offset_ns},
                     {"clock_offset_ns", r.clock_offset_ns},
                     {"alignment_residual_ns", r.alignment_residual_ns},
                     {"straggler_steps", r.straggler_steps}});
  }
  nlohmann::json worst = nlohmann::json::array();
  for (const CollectiveSkew& s : result.worst) {
    worst.push_back({{"name", s.name},
                     {"ordinal", s.ordinal},
                     {"first_rank", s.first_rank},
                     {"last_rank", s.last_rank},
                     {"first_start_ns", s.first_start_ns},
                     {"last_start_ns", s.last_start_ns},
                     {"skew_ns", s.skew_ns}});
  }
  nlohmann::json steps = nlohmann::json::array();
  for (const StepStraggler& s : result.steps) {
    steps.push_back({{"step", s.step},
                     {"straggler_rank", s.straggler_rank},
                     {"caused_wait_ns", s.caused_wait_ns},
                     {"max_skew_ns", s.max_skew_ns},
                     {"collectives", s.collectives}});
  }
  const ClockAlignment& a = result.alignment;
  nlohmann::json alignment = {{"method", a.method},
                              {"reference_rank", a.reference_rank},
                              {"hosts", a.hosts},
                              {"residual_median_ns", a.residual_median_ns},
                              {"residual_max_ns", a.residual_max_ns}};
  return {{"ranks", ranks},
          {"alignment", alignment},
          {"steps", steps},
          {"comparable", result.comparable},
          {"matched_collectives", result.matched_collectives},
          {"unmatched_kernels", result.unmatched_kernels},
          {"worst_skews", worst},
          {"notes", notes}};
}

void RenderCrossRankText(const CrossRankResult& result, std::ostream& out) {
  out << "\nAcross ranks (" << result.ranks.size() << " processes, " << result.matched_collectives
      << " collectives matched):\n";
  for (const RankFigures& r : result.ranks) {
    out << "  rank " << r.rank << (r.rank_from_metadata ? "" : "?") << " (pid " << r.pid << "): busy "
        << FormatDuration(r.busy_ns) << " of " << FormatDuration(r.window_ns) << ", idle " << FormatDuration(r.idle_ns)
        << "; communication " << FormatDuration(r.comm_ns) << ", " << FormatShare(r.overlapped_ns, r.comm_ns)
        << " of it hidden behind compute, " << FormatDuration(r.exposed_comm_ns) << " exposed";
    if (result.comparable && result.matched_collectives > 0) {
      out << "; waited " << FormatDuration(r.waited_ns) << " for other ranks, arrived last at " << r.last_arrivals
          << " collective(s) (others waited " << FormatDuration(r.caused_wait_ns) << " for it)";
    }
    out << "\n";
  }
  if (result.comparable && result.ranks.size() > 1 && result.matched_collectives > 0) {
    const RankFigures* straggler = &result.ranks.front();
    for (const RankFigures& r : result.ranks) {
      if (r.caused_wait_ns > straggler->caused_wait_ns) straggler = &r;
    }
    if (straggler->caused_wait_ns > 0) {
      out << "  Finding: rank " << straggler->rank << " kept the others waiting longest ("
          << FormatDuration(straggler->caused_wait_ns) << " in total over " << straggler->last_arrivals
          << " collectives it reached last).\n";
    }
    for (const CollectiveSkew& s : result.worst) {
      out << "    " << s.name << " #" << s.ordinal + 1 << ": rank " << s.last_rank << " arrived "
          << FormatDuration(s.skew_ns) << " after rank " << s.first_rank << " [" << s.first_start_ns << ", "
          << s.last_start_ns << "] ns\n";
    }
  }
  const ClockAlignment& a = result.alignment;
  if (a.method != "shared_clock") {
    out << "  Clocks of " << a.hosts << " hosts aligned to rank " << a.reference_rank << "'s ("
        << (a.method == "collectives"  ? "wall-clock start, refined from the collectives' ends"
            : a.method == "wall_clock" ? "wall-clock start only"
                                       : "no estimate")
        << "); residual: median " << FormatDuration(a.residual_median_ns) << ", max "
        << FormatDuration(a.residual_max_ns) << ".\n";
  }
  if (!result.steps.empty()) {
    std::vector<const RankFigures*> stragglers;
    for (const RankFigures& r : result.ranks) {
      if (r.straggler_steps > 0) stragglers.push_back(&r);
    }
    std::stable_sort(stragglers.begin(), stragglers.end(), [](const RankFigures* x, const RankFigures* y) {
      return x->straggler_steps > y->straggler_steps;
    });
    out << "  Stragglers over " << result.steps.size() << " step(s):";
    for (size_t i = 0; i < stragglers.size() && i < 5; ++i) {
      out << (i ? ", rank " : " rank ") << stragglers[i]->rank << " in " << stragglers[i]->straggler_steps;
    }
    out << ".\n";
  }
  for (const CrossRankNote& note : result.notes) out << "  Note: " << CrossRankNoteText(note) << ".\n";
}

}  // namespace streamscope
