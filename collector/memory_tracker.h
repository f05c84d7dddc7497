// What operations touch: allocations and frees, copy and memset ranges,
// kernel pointer arguments and event operations, decoded from CUPTI
// runtime/driver API callbacks (record kind `memory`).
//
// Runs on application threads inside CUPTI callbacks: no locks held across
// calls out, no exceptions, no allocation on the copy/launch path beyond
// the sink's batch. Records go to a RecordSink (thread-local batches in the
// collector, a vector in tests). The CUPTI layer decides which callback ids
// to enable (RuntimeCallbackIds/DriverCallbackIds) and forwards them here;
// everything that would call CUPTI or the driver comes in through Hooks, so
// the tracker is tested with fake callback data.
//
// Correlation: a runtime call's rows carry its correlation id (the id of its
// api_call row and of the kernel/memcpy/memset it submits). Driver calls
// made inside a runtime call are ignored, except kernel launches: the
// runtime launch (which carries only a host stub) calls cuLaunchKernel*,
// whose callback has the CUfunction and the argument pointers; its rows
// get the enclosing runtime call's correlation id, kept in a thread-local
// between the runtime call's enter and exit callbacks. Driver calls made
// directly by the application carry their own correlation id.
// Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_MEMORY_TRACKER_H_
#define STREAMSCOPE_COLLECTOR_MEMORY_TRACKER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "collector/allocation_map.h"
#include "collector/kernel_args.h"
#include "collector/trace_records.h"

namespace streamscope::collector {

// Receives records on the calling (application) thread.
class RecordSink {
 public:
  virtual ~RecordSink() = default;
  virtual void Add(TraceRecord record) = 0;
};

class MemoryTracker {
 public:
  struct Hooks {
    // Trace clock.
    uint64_t (*now)() = nullptr;
    // OS thread id of the calling thread.
    uint32_t (*tid)() = nullptr;
    // CUPTI stream id of `stream` in `context` (nullptr stream: the legacy
    // default stream, or the per-thread one if `per_thread`).
    std::function<std::optional<uint32_t>(void* context, void* stream, bool per_thread)> stream_id;
    // Device ordinal of `context`.
    std::function<std::optional<uint32_t>(void* context)> device_id;
    // Parameter layout of the function handle a launch passes
    // (cuFuncGetParamInfo / cuKernelGetParamInfo).
    ParamLayoutCache::Loader param_layout;
  };

  // Counters, copied into collector_stat at the end.
  struct Counters {
    std::atomic<int64_t> launches{0};             // kernel launches inspected
    std::atomic<int64_t> launches_in_runtime{0};  // ... inside a runtime launch call
    std::atomic<int64_t> launches_without_layout{0};
    std::atomic<int64_t> untracked_frees{0};  // frees of pointers never seen allocated
  };

  MemoryTracker(Hooks hooks, RecordSink* sink);

  // Callback ids to enable (domain RUNTIME_API / DRIVER_API).
  static std::vector<uint32_t> RuntimeCallbackIds();
  static std::vector<uint32_t> DriverCallbackIds();

  // `data` is the callback's CUpti_CallbackData (typed void here so this
  // header stays free of CUPTI includes).
  void OnRuntimeCallback(uint32_t cbid, const void* data);
  void OnDriverCallback(uint32_t cbid, const void* data);

  const AllocationMap& live() const { return live_; }
  const Counters& counters() const { return counters_; }

 private:
  struct Call;
  void Handle(bool runtime, uint32_t cbid, const Call& call);
  void Alloc(const Call& call, AllocationKind kind, uint64_t address, uint64_t bytes, void* stream);
  void Free(const Call& call, uint64_t address, void* stream);
  void Touch(const Call& call, uint64_t address, uint64_t bytes, Access access);
  void Event(const Call& call, EventOpKind op, const void* event, void* stream, const void* other = nullptr,
             std::optional<double> ms = std::nullopt);
  void Launch(const Call& call, const void* function, void* const* params, void* const* extra);
  std::optional<uint32_t> StreamId(const Call& call, void* stream);

  Hooks hooks_;
  RecordSink* sink_;
  AllocationMap live_;
  ParamLayoutCache layouts_;
  std::atomic<uint64_t> next_allocation_id_{1};
  Counters counters_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_MEMORY_TRACKER_H_
