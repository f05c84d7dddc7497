#include "analyzer/export/track_layout.h"

namespace streamscope {

int LaneAssigner::Place(int64_t start_ns, int64_t end_ns) {
  if (end_ns < start_ns) end_ns = start_ns;
  for (size_t lane = 0; lane < lane_end_.size(); ++lane) {
    if (lane_end_[lane] <= start_ns) {
      lane_end_[lane] = end_ns;
      if (lane > 0) ++moved_;
      return static_cast<int>(lane);
    }
  }
  lane_end_.push_back(end_ns);
  if (lane_end_.size() > 1) ++moved_;
  return static_cast<int>(lane_end_.size() - 1);
}

int64_t NestingClipper::Place(int64_t start_ns, int64_t end_ns) {
  if (end_ns < start_ns) end_ns = start_ns;
  while (!open_ends_.empty() && open_ends_.back() <= start_ns) open_ends_.pop_back();
  // A zero-length slice at an open slice's end was popped above: fine.
  if (!open_ends_.empty() && end_ns > open_ends_.back()) {
    end_ns = open_ends_.back();
    ++clipped_;
  }
  open_ends_.push_back(end_ns);
  return end_ns;
}

}  // namespace streamscope
