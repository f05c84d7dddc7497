// NVTX annotations the analyzer relies on (keep them exact; see
// workloads/README.md "Trace annotations"):
//   * domain "streamscope" marks: "workload=<variant>", "param:<key>=<value>",
//     "expect:<property>", "result:<key>=<value>", and last
//     "validation=passed" or "validation=failed: <detail>";
//   * ONE push/pop range "measured" in the default domain around all GPU
//     work of the variant, final synchronization included;
//   * push/pop range "host_prepare" (default domain) around host work in
//     cpu_starved, "graph_build" around graph capture in launch_graph.
// Create these objects only after CUDA is initialized: a collector injected
// at CUDA initialization may only then be listening to NVTX.
#ifndef STREAMSCOPE_WORKLOADS_CUDA_TRACE_ANNOTATIONS_H_
#define STREAMSCOPE_WORKLOADS_CUDA_TRACE_ANNOTATIONS_H_

#include <chrono>
#include <string>

#include "nvtx3/nvToolsExt.h"

namespace streamscope::workloads {

inline constexpr char kAnnotationDomain[] = "streamscope";
inline constexpr char kMeasuredRange[] = "measured";
inline constexpr char kHostPrepareRange[] = "host_prepare";
inline constexpr char kGraphBuildRange[] = "graph_build";

// Marks in the "streamscope" NVTX domain.
class TraceAnnotator {
 public:
  TraceAnnotator();
  ~TraceAnnotator();
  TraceAnnotator(const TraceAnnotator&) = delete;
  TraceAnnotator& operator=(const TraceAnnotator&) = delete;

  void Mark(const std::string& message);

 private:
  nvtxDomainHandle_t domain_;
};

// A push/pop range in the default domain for the lifetime of the object.
class ScopedNvtxRange {
 public:
  explicit ScopedNvtxRange(const char* name) { nvtxRangePushA(name); }
  ~ScopedNvtxRange() { nvtxRangePop(); }
  ScopedNvtxRange(const ScopedNvtxRange&) = delete;
  ScopedNvtxRange& operator=(const ScopedNvtxRange&) = delete;
};

// The "measured" range plus its host wall time. Start() once, Stop() once,
// after the final synchronization; the destructor closes a range left open
// by an error path so that the trace stays well formed.
class MeasuredRegion {
 public:
  MeasuredRegion() = default;
  ~MeasuredRegion();
  MeasuredRegion(const MeasuredRegion&) = delete;
  MeasuredRegion& operator=(const MeasuredRegion&) = delete;

  void Start();
  void Stop();
  double milliseconds() const;

 private:
  bool open_ = false;
  std::chrono::steady_clock::time_point start_{};
  std::chrono::steady_clock::time_point stop_{};
};

// Spins the calling thread for `microseconds` (simulated host work).
void BusyWaitMicroseconds(int microseconds);

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_CUDA_TRACE_ANNOTATIONS_H_
