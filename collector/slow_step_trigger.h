// Flight-recorder trigger on a slow instance of an NVTX range
// (`--trigger 'nvtx:step>2x'`): an instance longer than K times the running
// median of the instances before it. The median is over the last 101
// instances, and no instance triggers before 5 have completed (a first
// step that compiles or warms caches is no outlier). Instances are counted
// as the capture gate counts them: push/pop per thread (an instance nested
// in another on the same thread is part of it) or start/end by id.
// Pure (edges come in as calls with their time). Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_SLOW_STEP_TRIGGER_H_
#define STREAMSCOPE_COLLECTOR_SLOW_STEP_TRIGGER_H_

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collector/status.h"

namespace streamscope::collector {

struct TriggerSpec {
  std::string nvtx_name;
  double factor = 2.0;
  // 'nvtx:NAME>Kx' (K > 1, e.g. 2 or 1.5).
  static StatusOr<TriggerSpec> Parse(std::string_view spec);
  std::string ToString() const;
};

// The instance that fired a trigger.
struct SlowInstance {
  uint64_t index = 0;  // 1-based
  uint64_t start_ns = 0, end_ns = 0;
  uint64_t median_ns = 0;  // of the instances before it
};

class SlowStepTrigger {
 public:
  static constexpr size_t kMedianOf = 101;
  static constexpr uint64_t kWarmUp = 5;

  explicit SlowStepTrigger(TriggerSpec spec) : spec_(std::move(spec)) {}
  const TriggerSpec& spec() const { return spec_; }

  void NvtxPush(uint32_t tid, std::string_view name, uint64_t t);
  std::optional<SlowInstance> NvtxPop(uint32_t tid, uint64_t t);
  void NvtxStart(uint64_t id, std::string_view name, uint64_t t);
  std::optional<SlowInstance> NvtxEnd(uint64_t id, uint64_t t);

 private:
  struct Open {
    uint64_t index = 0;  // 0: not an instance
    uint64_t start_ns = 0;
  };
  std::optional<SlowInstance> Ended(const Open& o, uint64_t t);  // mu_ held

  const TriggerSpec spec_;
  std::mutex mu_;
  uint64_t instances_ = 0;
  uint64_t completed_ = 0;
  std::deque<uint64_t> recent_;  // durations of the last kMedianOf instances
  std::unordered_map<uint32_t, std::vector<Open>> pushed_;
  std::unordered_map<uint64_t, Open> started_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_SLOW_STEP_TRIGGER_H_
