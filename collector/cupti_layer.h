// CUPTI layer: the only code that calls CUPTI (with record_decoder.cc the
// only code that includes its headers).
//
// Loads libcupti at run time (dlopen; preferring a copy the process already
// loaded, e.g. PyTorch's), subscribes to callbacks, enables the configured
// activity kinds, owns the activity buffers and hands completed ones to the
// writer. Every CUPTI error is converted to Status in one place
// (CuptiStatus in the .cc). One tracer per process.
// Thread-safe: Flush/Stop may be called from any thread (not from CUPTI's
// own buffer callbacks).
#ifndef STREAMSCOPE_COLLECTOR_CUPTI_LAYER_H_
#define STREAMSCOPE_COLLECTOR_CUPTI_LAYER_H_

#include "collector/status.h"
#include <cstdint>
#include <memory>
#include <string>

#include "collector/collector_config.h"
#include "collector/trace_writer.h"

namespace streamscope::collector {

class CuptiTracer {
 public:
  // Starts tracing into `writer` (which must outlive the tracer). On error
  // nothing stays enabled and the status says what and why.
  static StatusOr<std::unique_ptr<CuptiTracer>> Start(const CollectorConfig& config,
                                                            TraceWriter* writer);
  ~CuptiTracer();

  // Hands every buffer CUPTI holds (including partly filled ones) to the
  // writer.
  void Flush();

  // Flushes, disables all kinds and unsubscribes. Idempotent.
  void Stop();

  // Current time in the trace clock.
  uint64_t Now() const;
  // 'monotonic-raw' or 'cupti-default'.
  const std::string& clock_domain() const { return clock_domain_; }
  // CUPTI API version number (cuptiGetVersion) as text.
  const std::string& cupti_version() const { return cupti_version_; }
  // Comma list of the record kinds actually enabled.
  const std::string& enabled_kinds() const { return enabled_kinds_; }

 private:
  CuptiTracer() = default;
  std::string clock_domain_;
  std::string cupti_version_;
  std::string enabled_kinds_;
  bool stopped_ = false;
};

// API function name for a CUPTI callback id (runtime names without their
// "_vNNNN" suffix, e.g. "cudaMemcpy", "cudaLaunchKernel_ptsz"); empty if
// unknown. Loads libcupti on first use. Thread-safe.
std::string CuptiApiName(ApiDomain domain, uint32_t cbid);

// Whether libcupti can be found, without starting anything (for messages).
Status CuptiAvailable();

// Forwards NVTX's injection handshake to CUPTI's InitializeInjectionNvtx2 so
// that NVTX ranges become CUPTI MARKER records. Returns NVTX's success flag
// (1) or 0 when CUPTI cannot be loaded.
int ForwardNvtxInjection(const void* get_export_table);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CUPTI_LAYER_H_
