// Keeps the slices of one timeline track well formed: trace viewers need the
// slices of a track to be disjoint or properly nested, never partially
// overlapping. Real traces break that (clock jitter between engines can make
// two ops of one stream overlap by a few ns), so the exporters place every
// slice through one of these and count what they had to change.
// Not thread-safe; one instance per track.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_TRACK_LAYOUT_H_
#define STREAMSCOPE_ANALYZER_EXPORT_TRACK_LAYOUT_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace streamscope {

// Strict tracks (one GPU stream): slices must be disjoint. Lane 0 is the
// track itself; a slice that starts before lane 0 is free goes to the first
// free overflow lane (1, 2, ...), adding one if needed. Feed slices in start
// order. Zero-length slices are free-standing unless they fall inside a
// running slice.
class LaneAssigner {
 public:
  int Place(int64_t start_ns, int64_t end_ns);
  int lanes() const { return static_cast<int>(lane_end_.size()); }
  int64_t moved() const { return moved_; }  // slices placed on an overflow lane

 private:
  std::vector<int64_t> lane_end_;
  int64_t moved_ = 0;
};

// Nested tracks (host threads: API calls, NVTX ranges): a slice may nest
// inside another; one that starts inside an open slice but ends after it is
// clipped to the open slice's end. Feed slices in (start ascending, end
// descending) order; Place returns the end to draw.
class NestingClipper {
 public:
  int64_t Place(int64_t start_ns, int64_t end_ns);
  int64_t clipped() const { return clipped_; }

 private:
  std::vector<int64_t> open_ends_;
  int64_t clipped_ = 0;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_TRACK_LAYOUT_H_
