// The processes (ranks) of one distributed run, side by side.
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
// with `last_arrivals` counting those collectives. Arrival times are only
// compared when every trace comes from one host with one clock domain
// (timestamps of different hosts are not comparable); otherwise the wait
// figures are left at 0 and `comparable` is false with a note saying why.
//
// Rank numbers come from each trace's metadata `env:RANK` (written by the
// collector); traces without it are numbered after the others, in argument
// order, and a note says so. Pure function; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_CROSS_RANK_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_CROSS_RANK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/analysis/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct RankInput {
  const TraceModel* model = nullptr;
  std::vector<Window> windows;  // the windows analyzed in this trace
};

struct RankFigures {
  int64_t rank = 0;
  bool rank_from_metadata = false;
  std::string path;
  int64_t pid = 0;
  int64_t window_ns = 0, busy_ns = 0, idle_ns = 0;  // summed over devices
  int64_t comm_ns = 0, compute_ns = 0, overlapped_ns = 0, exposed_comm_ns = 0;
  int64_t collectives = 0;  // matched communication kernels
  int64_t waited_ns = 0, caused_wait_ns = 0, last_arrivals = 0;
};

struct CollectiveSkew {
  std::string name;
  int64_t ordinal = 0;  // k-th collective of this name (0-based)
  int64_t first_rank = 0, last_rank = 0;
  int64_t first_start_ns = 0, last_start_ns = 0;  // arrival times
  int64_t skew_ns = 0;  // last - first arrival
};

struct CrossRankResult {
  std::vector<RankFigures> ranks;  // ascending rank
  bool comparable = true;          // arrival times comparable (one host, one clock)
  int64_t matched_collectives = 0;    // collectives found on every rank
  int64_t unmatched_kernels = 0;      // communication kernels without a counterpart on every rank
  std::vector<CollectiveSkew> worst;  // largest skew first, at most `top`
  std::vector<std::string> notes;
};

// Needs at least two inputs to say anything about waiting; with one it still
// fills that rank's figures.
CrossRankResult AnalyzeCrossRank(const std::vector<RankInput>& inputs, int top);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_CROSS_RANK_H_
