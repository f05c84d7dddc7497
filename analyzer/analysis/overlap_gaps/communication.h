// Communication vs compute per device: collective-communication
// kernels (NCCL) and peer-to-peer copies are communication; every other
// kernel is compute. Within a window and per device:
//   comm_ns         union of communication kernels' intervals
//   compute_ns      union of compute kernels' intervals
//   overlapped_ns   |comm ∩ compute|: communication hidden behind compute
//   exposed_comm_ns |comm − compute|: communication nothing hid
//   hidden_share    overlapped / min(comm, compute)   (as in overlap.h)
//   p2p_ns, p2p_overlapped_ns  the same for peer copies (P2P ops) against compute
// plus the communication kernels by name (count, summed and union time).
// Each figure is a union, so concurrent collectives are not counted twice.
// Pure function of the finalized model; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_COMMUNICATION_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_COMMUNICATION_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// True for NCCL's kernels ("ncclKernel_AllReduce_...", "ncclDevKernel_...",
// and any kernel whose name contains "nccl", case-insensitive).
bool IsCommunicationKernel(std::string_view name);

// IsCommunicationKernel of a model's interned names, each name classified
// once (a table of a byte per string, made on first use). Not thread-safe.
class CommunicationKernelNames {
 public:
  explicit CommunicationKernelNames(const TraceModel& model) : model_(model) {}
  bool Contains(StringId name);

 private:
  const TraceModel& model_;
  std::vector<int8_t> known_;  // per name: -1 not asked yet, else 0 / 1
};

struct CommKernelStat {
  StringId name = kNoString;
  int64_t count = 0;
  int64_t total_ns = 0;  // summed durations inside the window
};

struct DeviceCommunication {
  int32_t device_id = 0;
  int64_t comm_kernels = 0, compute_kernels = 0, p2p_copies = 0;
  int64_t comm_ns = 0, compute_ns = 0, overlapped_ns = 0, exposed_comm_ns = 0;
  int64_t p2p_ns = 0, p2p_overlapped_ns = 0;
  double hidden_share = 0;              // overlapped / min(comm, compute); 0 when either is 0
  std::vector<CommKernelStat> by_name;  // longest total first
};

struct CommunicationResult {
  std::vector<DeviceCommunication> devices;  // only devices with comm kernels or P2P copies
  bool any() const { return !devices.empty(); }
};

CommunicationResult AnalyzeCommunication(const TraceModel& model, const Window& window);
// The same figures for every device that ran a kernel or a peer copy in the
// window, communication or not (compute-only devices have comm_ns = 0).
CommunicationResult AnalyzeCommunicationAllDevices(const TraceModel& model, const Window& window);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_COMMUNICATION_H_
