// Busy time of each device (the union of its ops' intervals, zero-length
// ops excluded) and of all devices together, with prefix sums so that the
// busy or idle time inside any interval costs O(log n).
// Immutable after construction; thread-safe to read.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_BUSY_TIME_INDEX_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_BUSY_TIME_INDEX_H_

#include <cstdint>
#include <vector>

#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// Ascending ids of the devices that ran ops: the model's op_devices, which
// Finalize() lists, or a scan of the ops for a model that was not finalized.
std::vector<int32_t> OpDeviceIds(const TraceModel& model);

class BusyTimeIndex {
 public:
  explicit BusyTimeIndex(const TraceModel& model);
  // Time in [s, e) in which device `device_id` ran no op (all of it for a
  // device that never ran one).
  int64_t Idle(int32_t device_id, int64_t s, int64_t e) const;
  // Time in [s, e) in which no device ran an op.
  int64_t IdleAll(int64_t s, int64_t e) const { return all_.Idle(s, e); }
  // Ascending ids of the devices that ran ops.
  const std::vector<int32_t>& devices() const { return devices_; }

 private:
  struct Union {
    IntervalList busy;
    std::vector<int64_t> prefix;      // prefix[i] = busy time of busy[0..i)
    void Build(IntervalList list);    // normalizes `list`
    void BuildPrefix();               // for an already normalized `busy`
    int64_t Before(int64_t t) const;  // busy time before t
    int64_t Idle(int64_t s, int64_t e) const { return e > s ? (e - s) - (Before(e) - Before(s)) : 0; }
  };
  std::vector<int32_t> devices_;
  std::vector<Union> per_device_;
  Union all_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_BUSY_TIME_INDEX_H_
