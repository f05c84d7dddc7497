// Reduces the ops of a window to drawable blocks so that an HTML timeline
// stays usable on huge traces: per stream, in start order, ops shorter than
// `resolution_ns` that follow each other within `resolution_ns` are merged
// into one aggregate block (count, busy time, ops per category) spanning at
// most `resolution_ns`, so blocks act as pixel columns; longer ops
// stay individual. resolution 0 keeps every op. Blocks of one stream that
// overlap (clock jitter) are spread over lanes (track_layout.h).
// Pure function of its inputs; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_OP_DOWNSAMPLER_H_
#define STREAMSCOPE_ANALYZER_EXPORT_OP_DOWNSAMPLER_H_

#include <array>
#include <cstdint>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct DrawBlock {
  int64_t start_ns = 0, end_ns = 0;
  int32_t op = -1;      // the op when count == 1
  int64_t count = 0;    // ops in the block
  int64_t busy_ns = 0;  // sum of the ops' durations
  std::array<int32_t, kNumOpCategories> by_category{};
  int lane = 0;                 // 0 = the stream's row; 1.. = overflow rows
  OpCategory dominant() const;  // category with most ops
};

struct StreamBlocks {
  int32_t stream = -1;  // index into model.streams
  int lanes = 1;
  int64_t ops = 0;
  std::vector<DrawBlock> blocks;  // in start order
};

struct DownsampleResult {
  int64_t resolution_ns = 0;
  int64_t ops = 0;         // ops in the window
  int64_t blocks = 0;      // blocks drawn
  int64_t aggregates = 0;  // blocks with count > 1
  int64_t ops_in_aggregates = 0;
  std::vector<StreamBlocks> streams;  // streams with ops in the window, by device then source id
};

DownsampleResult DownsampleOps(const TraceModel& model, const Window& window, int64_t resolution_ns);

// The smallest resolution (0, or doubling from a first guess) at which the
// window's ops fit in max_blocks blocks; max_blocks < 0 = no limit.
DownsampleResult DownsampleToFit(const TraceModel& model, const Window& window, int64_t max_blocks);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_OP_DOWNSAMPLER_H_
