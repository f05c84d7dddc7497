// A tiny builder for synthetic TraceModels in analyzer tests: appends
// streams, GPU ops, API calls, NVTX ranges and sync records with hand-picked
// times, assigns source ids and correlation ids, and calls Finalize().
//
// Source ids are assigned per op table ("kernel", "memcpy", "memset") from
// 1 in call order, so a test can state which op a finding must name.
// Not thread-safe; one builder per test.
#ifndef STREAMSCOPE_TESTS_ANALYZER_MODEL_MODEL_BUILDER_H_
#define STREAMSCOPE_TESTS_ANALYZER_MODEL_MODEL_BUILDER_H_

#include <cstdint>
#include <optional>
#include <string_view>

#include "analyzer/model/trace_model.h"

namespace streamscope::testing {

// Times of an op's submitting API call; omitted = no recorded call.
struct ApiTimes {
  int64_t start_ns = 0, end_ns = 0;
  int64_t tid = 1;
};

class ModelBuilder {
 public:
  ModelBuilder() = default;

  // Declares a stream (CUPTI id) with its kind; returns its index.
  int32_t Stream(int64_t stream_id, StreamKind kind, int32_t device_id = 0);

  // A kernel on `stream_id` running [start, end). With `launch`, also a
  // runtime cudaLaunchKernel call sharing a fresh correlation id.
  // Returns the kernel's source id.
  int64_t Kernel(std::string_view name, int64_t stream_id, int64_t start_ns, int64_t end_ns,
                 std::optional<ApiTimes> launch = std::nullopt, int64_t graph_id = -1);
  // A copy; `api_name` is the submitting call (e.g. "cudaMemcpyAsync").
  int64_t Copy(OpCategory category, MemoryKind src, MemoryKind dst, int64_t stream_id, int64_t start_ns, int64_t end_ns,
               std::optional<ApiTimes> call = std::nullopt, std::string_view api_name = "cudaMemcpyAsync",
               bool is_async = true, int64_t bytes = 1 << 20);
  int64_t Memset(int64_t stream_id, int64_t start_ns, int64_t end_ns, std::optional<ApiTimes> call = std::nullopt,
                 std::string_view api_name = "cudaMemsetAsync", bool is_async = true);

  // A host API call without GPU work (or with `correlation_id` >= 0 to pair
  // with a sync record). Returns the call's source id.
  int64_t Api(std::string_view name, int64_t tid, int64_t start_ns, int64_t end_ns, int64_t correlation_id = -1,
              ApiDomain domain = ApiDomain::kRuntime);
  // A push/pop NVTX range on `tid`; end omitted = still open.
  void Nvtx(std::string_view name, int64_t tid, int64_t start_ns, std::optional<int64_t> end_ns, int32_t depth = 0);
  // An explicit sync record; with `api_name`, also its API call on `tid`
  // (same times, same correlation id). stream_id < 0 = not stream-bound.
  void Sync(SyncKind kind, int64_t stream_id, int64_t start_ns, int64_t end_ns, std::string_view api_name = "",
            int64_t tid = 1);
  // An event wait as the callback API saw it (EventOp kWait).
  void EventWait(int64_t stream_id, int64_t tid, int64_t ts_ns);

  int64_t NextCorrelationId() { return next_correlation_++; }
  TraceModel& model() { return model_; }
  // Finalizes and hands the model over; the builder is spent afterwards.
  TraceModel Build();

 private:
  int64_t AddOp(OpCategory category, int64_t stream_id, int64_t start_ns, int64_t end_ns, StringId name,
                int64_t correlation_id, MemoryKind src, MemoryKind dst, bool is_async, int64_t bytes, int64_t graph_id);
  int32_t DeviceOf(int64_t stream_id) const;

  TraceModel model_;
  int64_t next_correlation_ = 1000;
  int64_t next_kernel_id_ = 1, next_memcpy_id_ = 1, next_memset_id_ = 1, next_api_id_ = 1, next_nvtx_id_ = 1,
          next_sync_id_ = 1;
};

// A random trace of about `ops` GPU ops on 3 devices and streams of every
// kind, with API calls of many names, NVTX ranges (nested, overlapping,
// open), sync records and event waits; then deliberately inconsistent: some
// ops end before they start, point at no stream (index -1 or past the end),
// or have no name, and some API calls have no name. For "never crashes"
// tests.
TraceModel RandomInconsistentTrace(uint64_t seed, int ops);

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_MODEL_MODEL_BUILDER_H_
