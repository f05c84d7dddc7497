// The queue delay of a GPU op: how long it waited between the return of the
// API call that submitted it and its start. Never negative: an op that
// started before its call returned (a blocking call such as a synchronous
// cudaMemcpy, a graph launch, a launch that waited for room in a full queue)
// waited in no queue; it has delay 0 and "started during the call". One
// definition for launch statistics, the HTML page, the Perfetto args and the
// gpu_op_with_api view (schema/streamscope_schema.sql). Pure; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_MODEL_QUEUE_DELAY_H_
#define STREAMSCOPE_ANALYZER_MODEL_QUEUE_DELAY_H_

#include <cstdint>

namespace streamscope {

inline bool StartedDuringCall(int64_t op_start_ns, int64_t call_end_ns) { return op_start_ns < call_end_ns; }

inline int64_t QueueDelayNs(int64_t op_start_ns, int64_t call_end_ns) {
  return StartedDuringCall(op_start_ns, call_end_ns) ? 0 : op_start_ns - call_end_ns;
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_MODEL_QUEUE_DELAY_H_
