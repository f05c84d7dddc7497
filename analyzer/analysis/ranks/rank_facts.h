// One rank's compact facts: everything a cross-rank merge needs from one
// process's trace, without its ops (a few kB to a few MB, where the trace
// is hundreds of MB). Computed next to the trace (a Dask worker, a thread
// of `report --jobs`), serialized (render/rank_facts_json.h), merged by
// MergeRankFacts (cross_rank.h). `streamscope report A B` builds the same
// facts in memory and runs the same merge, so both give the same figures.
//
// Per window and device: window, busy and idle time, communication and
// compute time and their overlap (communication.h). The communication
// (NCCL) kernels in the windows, in start order: name, device, start, end;
// the k-th kernel of one name is the k-th collective of that name on every
// rank. The capture's clock facts (host, clock domain, wall-clock start and
// the same instant in the trace clock) to align hosts.
// Pure function of the finalized model and the windows' communication
// figures; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_RANK_FACTS_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_RANK_FACTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/analysis/overlap_gaps/communication.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct RankDeviceFigures {
  int32_t device_id = 0;
  int64_t window_ns = 0, busy_ns = 0, idle_ns = 0;
  int64_t comm_ns = 0, compute_ns = 0, overlapped_ns = 0;
};

struct RankWindowFacts {
  WindowOrigin origin;  // how the window was chosen (its label: render/window_label.h)
  int64_t start_ns = 0, end_ns = 0;
  std::vector<RankDeviceFigures> devices;  // ascending device id
};

struct CommKernelFact {
  int32_t name = 0;  // index into RankFacts::comm_names
  int32_t device_id = 0;
  int64_t start_ns = 0, end_ns = 0;
};

struct RankFacts {
  std::string path, format;
  int64_t pid = 0;
  std::optional<int64_t> rank;     // metadata env:RANK
  std::string host, clock_domain;  // "" when not recorded
  std::optional<int64_t> start_wall_time_ns, start_trace_ns;
  // The windows are the instances of one NVTX range (training steps): the
  // merge then names a straggler per step.
  bool windows_are_steps = false;
  std::vector<RankWindowFacts> windows;
  std::vector<std::string> comm_names;
  std::vector<CommKernelFact> comm_kernels;  // by (start, end), stable
};

// `communication[i]`: AnalyzeCommunicationAllDevices of `windows[i]`
// (the pipeline's RankFactsPlan).
RankFacts ComputeRankFacts(const TraceModel& model, const std::vector<Window>& windows,
                           const std::vector<const CommunicationResult*>& communication, bool windows_are_steps);

// The collective of an NCCL kernel name: "AllReduce" for
// "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "" when none is named.
std::string CollectiveOf(std::string_view kernel_name);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_RANK_FACTS_H_
