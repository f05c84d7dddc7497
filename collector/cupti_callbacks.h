// The collector's CUPTI callback-API subscriber: a few rare events (context
// created -> device properties; context destroy / cudaDeviceReset -> flush;
// stream creation -> user streams; NVTX start/end ranges) and, for record
// kind `memory`, the memory-tracking callbacks (memory_tracker.h).
//
// CUPTI allows one subscriber per process; Subscribe reports another client
// as kFailedPrecondition.
// Thread-safe: callbacks arrive on application threads, concurrently.
#ifndef STREAMSCOPE_COLLECTOR_CUPTI_CALLBACKS_H_
#define STREAMSCOPE_COLLECTOR_CUPTI_CALLBACKS_H_

#include <cupti.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_set>

#include "collector/callback_buffers.h"
#include "collector/capture_gate.h"
#include "collector/memory_tracker.h"
#include "collector/slow_step_trigger.h"
#include "collector/status.h"

namespace streamscope::collector {

class CuptiApi;
class TraceWriter;

class CuptiCallbacks {
 public:
  struct Options {
    bool nvtx = false;                     // learn start/end NVTX ranges
    bool memory = false;                   // record kind `memory`
    uint64_t (*now)() = nullptr;           // trace clock
    std::function<void()> flush_activity;  // forced flush of CUPTI's buffers
    // Capture ranges: the calls that move the gate (cudaProfilerStart/Stop,
    // NVTX ranges) are watched when it needs them; every edge goes to
    // `on_edge` on the calling thread.
    CaptureGate* gate = nullptr;
    std::function<void(CaptureGate::Edge)> on_edge;
    // Flight recorder: a slow instance of an NVTX range goes to `on_slow`
    // (on the calling thread: it must only queue work).
    SlowStepTrigger* trigger = nullptr;
    std::function<void(const SlowInstance&)> on_slow;
  };
  // `api` and `writer` must outlive the object.
  CuptiCallbacks(CuptiApi* api, TraceWriter* writer, Options options);

  // Subscribes and enables the callbacks; nothing stays subscribed on error.
  Status Subscribe();
  // Stops handling callbacks and unsubscribes. Idempotent.
  void Unsubscribe();

  // Records the properties of every device of the process once (the
  // context-created callback does it for contexts made later).
  void ProbeAllDevices();
  // Hands the memory-tracking records batched so far to the writer.
  void FlushRecords();
  // Adds the memory-tracking counters to the writer's stats.
  void AddMemoryStats();
  bool memory_tracking() const { return memory_ != nullptr; }
  bool nvtx_callbacks() const { return nvtx_callbacks_; }

 private:
  static void CUPTIAPI Trampoline(void* self, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  void OnCallback(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* data);
  void OnResource(CUpti_CallbackId cbid, const void* data);
  void OnStreamCreated(const CUpti_CallbackData* cd);
  void OnNvtx(CUpti_CallbackId cbid, const CUpti_NvtxData* nd);
  void OnNvtxStartEnd(const CUpti_NvtxData* nd);
  void OnNvtxRange(CUpti_CallbackId cbid, const CUpti_NvtxData* nd);  // capture ranges, triggers
  void OnProfilerCall(bool start, const CUpti_CallbackData* cd);
  void ProbeDeviceOnce(uint32_t device);
  void StartMemoryTracking();

  CuptiApi* api_;
  TraceWriter* writer_;
  Options options_;
  CUpti_SubscriberHandle subscriber_ = nullptr;
  std::atomic<bool> active_{false};
  bool nvtx_callbacks_ = false;
  bool nvtx_start_end_ = false;  // nvtxRangeStart* ids enabled for start/end ranges
  std::mutex probe_mu_;
  std::unordered_set<uint32_t> probed_devices_;
  std::unique_ptr<CallbackBuffers> buffers_;
  std::unique_ptr<MemoryTracker> memory_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CUPTI_CALLBACKS_H_
