// CUPTI tracer: one tracing session of this process. Enables the configured
// activity kinds, subscribes the callbacks (cupti_callbacks.h), lends CUPTI
// its activity buffers (activity_buffers.h), flushes them periodically
// (periodic_flusher.h) and at the end. Every CUPTI call goes through a
// CuptiApi (cupti_api.h): the process's libcupti, or a fake in CPU tests.
//
// One session at a time per process; after Stop a new one may start (the
// collector's streamscope_record_start/stop). Objects CUPTI may still call
// into (buffers, callbacks) are never freed while the real CUPTI is in use.
// Thread-safe: Flush/Stop may be called from any thread (not from CUPTI's own
// buffer callbacks).
#ifndef STREAMSCOPE_COLLECTOR_CUPTI_LAYER_H_
#define STREAMSCOPE_COLLECTOR_CUPTI_LAYER_H_

#include <cstdint>
#include <memory>
#include <string>

#include "collector/collector_config.h"
#include "collector/status.h"
#include "collector/trace_writer.h"

namespace streamscope::collector {

class CuptiApi;

class CuptiTracer {
 public:
  // Starts tracing into `writer` (which must outlive the tracer) with the
  // process's CUPTI. On error nothing stays enabled and the status says what
  // and why; another session still running is kAlreadyExists.
  static StatusOr<std::unique_ptr<CuptiTracer>> Start(const CollectorConfig& config, TraceWriter* writer);
  // The same with `api` instead (tests: a fake CUPTI that must outlive the
  // tracer; its state is freed with the tracer).
  static StatusOr<std::unique_ptr<CuptiTracer>> Start(const CollectorConfig& config, TraceWriter* writer,
                                                      CuptiApi* api);
  ~CuptiTracer();  // Stop()
  CuptiTracer(const CuptiTracer&) = delete;
  CuptiTracer& operator=(const CuptiTracer&) = delete;

  // Hands every buffer CUPTI holds (including partly filled ones and
  // incomplete records) to the writer.
  void Flush();

  // Flushes, disables all kinds and unsubscribes. Idempotent.
  void Stop();

  // Frees the activity buffers of a stopped session once the writer is done
  // with them (Finish): a process that records many sessions keeps no
  // memory of the earlier ones.
  void ReleaseBuffers();

  // Records the properties of every device the process can see (for a
  // session started after CUDA was initialized: no context-created callback
  // comes for existing contexts).
  void RecordDevices();

  // `streamscope capture start|stop`: opens or closes a capture window (the
  // per-op kinds are turned on or off); false if nothing changed.
  bool CaptureStart();
  bool CaptureStop();
  // The capture windows so far as JSON ([[on,off],...]; CaptureGate) and the
  // NVTX instances of the capture range seen.
  std::string CaptureWindowsJson() const;
  uint64_t CaptureInstances() const;

  // Flight recorder: hands CUPTI's completed buffers to the writer, then
  // writes what the ring holds into a trace of its own marked `trigger`
  // (`streamscope capture dump PID`: "request"). Returns its path.
  StatusOr<std::string> Dump(std::string trigger);

  // Current time in the trace clock.
  uint64_t Now() const;
  // 'monotonic-raw' or 'cupti-default'.
  const std::string& clock_domain() const { return clock_domain_; }
  // CUPTI API version number (cuptiGetVersion) as text.
  const std::string& cupti_version() const { return cupti_version_; }
  // Comma list of the record kinds actually enabled.
  const std::string& enabled_kinds() const { return enabled_kinds_; }

 private:
  struct State;
  CuptiTracer() = default;
  static StatusOr<std::unique_ptr<CuptiTracer>> StartWith(const CollectorConfig& config, TraceWriter* writer,
                                                          CuptiApi* api, bool owns_state);
  State* state_ = nullptr;
  bool owns_state_ = false;
  std::string clock_domain_;
  std::string cupti_version_;
  std::string enabled_kinds_;
};

// API function name for a CUPTI callback id through the process's CUPTI (see
// CallbackApiName in cupti_status.h); empty if unknown or CUPTI is missing.
std::string CuptiApiName(ApiDomain domain, uint32_t cbid);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CUPTI_LAYER_H_
