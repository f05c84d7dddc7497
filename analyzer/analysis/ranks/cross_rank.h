// The processes (ranks) of one distributed run, side by side: the merge of
// their compact facts (rank_facts.h). `streamscope report A B ...` computes
// the facts of each trace in memory and merges them (pipeline/ranks.h);
// `streamscope facts`
// and `streamscope merge-facts` (the Dask path) do the same in two steps,
// so both give the same figures.
//
// Per rank, over the windows analyzed in its trace and summed over its
// devices: busy and idle device time, communication and compute time, how
// much communication compute hid (see communication.h).
//
// Which rank waited on which: NCCL runs the collectives of a communicator in
// the same order on every rank, so the k-th communication kernel of a given
// name on each rank is one collective. Its kernel starts when the rank
// arrives and then waits inside the kernel for the others; so for one
// collective with arrival (kernel start) times a_r, the last rank to arrive
// is the one the others waited for, and rank r waited
//     min(max_q a_q - a_r, duration_r).
// Summed per rank: `waited_ns` (time it spent waiting for others) and
// `caused_wait_ns` (others' waiting on collectives it arrived at last),
// with `last_arrivals` counting those collectives.
//
// Clocks. Traces of one host and one clock domain share a clock: times are
// compared as they are. Otherwise each rank's clock is aligned to the
// reference rank's (the lowest rank): a first estimate from the wall-clock
// start of each capture (metadata start_wall_time_ns and start_trace_ns),
// then refined from the collectives themselves: a collective ends at the
// same moment on every rank (within microseconds), so a rank's offset is
// the median, over the matched collectives, of the consensus end (median
// over ranks) minus its own end. The residual (|aligned end - consensus
// end|) is reported per rank (max) and overall (median, max). Without a
// matched collective across hosts arrival times are not comparable: the wait
// figures stay 0, `comparable` is false and a note says why.
//
// Steps: when the windows are the instances of one NVTX range (a training
// step), each matched collective belongs to the step of the reference rank
// in which it started; per step the rank the others waited for longest is
// that step's straggler, and `straggler_steps` counts them per rank.
//
// Rank numbers come from each trace's metadata `env:RANK` (written by the
// collector); traces without it are numbered after the others, in argument
// order, and a note says so. Pure functions; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_CROSS_RANK_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_CROSS_RANK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis/ranks/rank_facts.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct RankFigures {
  int64_t rank = 0;
  bool rank_from_metadata = false;
  std::string path;
  int64_t pid = 0;
  std::string host;
  int64_t window_ns = 0, busy_ns = 0, idle_ns = 0;  // summed over devices
  int64_t comm_ns = 0, compute_ns = 0, overlapped_ns = 0, exposed_comm_ns = 0;
  int64_t collectives = 0;  // matched communication kernels
  int64_t waited_ns = 0, caused_wait_ns = 0, last_arrivals = 0;
  // Added to this rank's trace times to get the reference rank's clock:
  // the wall-clock estimate and the final (collective-refined) offset.
  int64_t wall_clock_offset_ns = 0, clock_offset_ns = 0;
  int64_t alignment_residual_ns = 0;  // max |aligned end - consensus end|
  int64_t straggler_steps = 0;        // steps in which it was the straggler
};

struct CollectiveSkew {
  std::string name;
  int64_t ordinal = 0;  // k-th collective of this name (0-based)
  int64_t first_rank = 0, last_rank = 0;
  int64_t first_start_ns = 0, last_start_ns = 0;  // arrival times, reference rank's clock
  int64_t skew_ns = 0;                            // last - first arrival
};

struct ClockAlignment {
  // "shared_clock" (one host and clock domain), "collectives" (wall clock
  // refined from the collectives), "wall_clock" (no collective to refine
  // with), "none" (no wall-clock start recorded either).
  std::string method = "shared_clock";
  int64_t reference_rank = 0;
  int64_t hosts = 0;
  int64_t residual_median_ns = 0, residual_max_ns = 0;  // over ranks and matched collectives
};

struct StepStraggler {
  int64_t step = 0;  // window index on the reference rank
  int64_t straggler_rank = 0;
  int64_t caused_wait_ns = 0;  // others' waiting for it in this step
  int64_t max_skew_ns = 0;
  int64_t collectives = 0;
};

// Something the merge could not do, or doubts; the figures only
// (render/communication_render words it).
struct CrossRankNote {
  enum class Kind : uint8_t {
    kRanksNumberedInOrder,  // `value` traces carry no rank (env:RANK): numbered after the others
    kDuplicateRank,         // several traces claim the same rank
    kNoWallClockStart,      // some traces record no wall-clock start: no first clock estimate
    kLargeResidual,         // after alignment collective ends still differ by up to `value` ns
    kClocksNotComparable,   // `value` hosts and `clock_domains` clock domains share no collective
    kUnmatchedKernels,      // `value` communication kernels have no counterpart on every rank
  };
  Kind kind = Kind::kRanksNumberedInOrder;
  int64_t value = 0;
  int64_t clock_domains = 0;
};

struct CrossRankResult {
  std::vector<RankFigures> ranks;     // ascending rank
  bool comparable = true;             // arrival times comparable (shared or aligned clocks)
  int64_t matched_collectives = 0;    // collectives found on every rank
  int64_t unmatched_kernels = 0;      // communication kernels without a counterpart on every rank
  std::vector<CollectiveSkew> worst;  // largest skew first, at most `top`
  ClockAlignment alignment;
  std::vector<StepStraggler> steps;  // steps with a straggler, in step order
  std::vector<CrossRankNote> notes;
};

// Needs at least two inputs to say anything about waiting; with one it still
// fills that rank's figures. `facts` in argument order.
CrossRankResult MergeRankFacts(const std::vector<RankFacts>& facts, int top);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_CROSS_RANK_H_
