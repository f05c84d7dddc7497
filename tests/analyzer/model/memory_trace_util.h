// Helpers for analyses 8 and 9 tests: event ops, allocations and memory
// accesses added to a ModelBuilder's model, and ops found by their source
// ids after Build(). Header-only; not thread-safe.
#ifndef STREAMSCOPE_TESTS_ANALYZER_MODEL_MEMORY_TRACE_UTIL_H_
#define STREAMSCOPE_TESTS_ANALYZER_MODEL_MEMORY_TRACE_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "analyzer/model/trace_model.h"
#include "tests/analyzer/model/model_builder.h"

namespace streamscope::testing {

// The CUPTI stream ids the memory tests put their ops on.
inline constexpr int64_t kS1 = 11, kS2 = 12;

// An event op on `stream_id` (a CUPTI id; < 0 = no stream) with its API call
// `api_name` [ts, call_end) on thread 1 sharing a fresh correlation id.
inline void AddEventOp(ModelBuilder& b, EventOp::Op op, int64_t handle, int64_t stream_id, int64_t ts,
                       int64_t call_end = -1, std::string_view api_name = "", int64_t other_event = 0,
                       double elapsed_ms = 0, int32_t return_value = 0) {
  EventOp e;
  e.op = op;
  e.event_handle = handle;
  e.other_event = other_event;
  e.stream = stream_id < 0 ? -1 : b.model().StreamIndexFor(stream_id, 0);
  e.tid = 1;
  e.ts_ns = ts;
  e.elapsed_ms = elapsed_ms;
  e.correlation_id = b.NextCorrelationId();
  if (!api_name.empty()) {
    b.Api(api_name, 1, ts, call_end < ts ? ts + 1 : call_end, e.correlation_id);
    b.model().api.return_value.Set(b.model().api.return_value.size() - 1, return_value);
  }
  b.model().event_ops.push_back(e);
}
inline void Record(ModelBuilder& b, int64_t handle, int64_t stream_id, int64_t ts) {
  AddEventOp(b, EventOp::Op::kRecord, handle, stream_id, ts, ts + 1, "cudaEventRecord");
}
inline void WaitEvent(ModelBuilder& b, int64_t stream_id, int64_t handle, int64_t ts) {
  AddEventOp(b, EventOp::Op::kWait, handle, stream_id, ts, ts + 1, "cudaStreamWaitEvent");
}

// Index into model.ops of the op with this source id in `table`
// ("kernel", "memcpy", "memset"), or -1.
inline int32_t OpIndex(const TraceModel& m, std::string_view table, int64_t source_id) {
  for (size_t i = 0; i < m.ops.size(); ++i) {
    OpCategory c = m.ops.category[i];
    std::string_view t = c == OpCategory::kKernel ? "kernel" : c == OpCategory::kMemset ? "memset" : "memcpy";
    if (t == table && m.ops.source_id[i] == source_id) return static_cast<int32_t>(i);
  }
  return -1;
}

inline int64_t AddAllocation(TraceModel& m, uint64_t address, uint64_t bytes, std::string kind = "device") {
  Allocation a;
  a.kind = std::move(kind);
  a.address = address;
  a.bytes = bytes;
  a.device_id = 0;
  a.alloc_ns = 1;
  a.source_id = static_cast<int64_t>(m.allocations.size()) + 1;
  m.allocations.push_back(a);
  return static_cast<int64_t>(m.allocations.size()) - 1;
}

// An access by op `op` (index; its correlation id is used).
inline void AddAccess(TraceModel& m, int32_t op, uint64_t address, uint64_t bytes, MemoryAccess::Access access,
                      int64_t allocation, int32_t arg_index = -1) {
  MemoryAccess a;
  a.correlation_id = m.ops.correlation_id[op];
  a.address = address;
  a.bytes = bytes;
  a.access = access;
  a.allocation = allocation;
  a.arg_index = arg_index;
  m.memory_accesses.push_back(a);
}

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_MODEL_MEMORY_TRACE_UTIL_H_
