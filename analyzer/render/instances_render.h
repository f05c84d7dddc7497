// A report over many windows (every instance of an NVTX range) in text: one
// paragraph of distributions over the instances and the longest ones with
// their main finding, instead of thousands of full window reports. JSON and
// CSV keep every window in full.
#ifndef STREAMSCOPE_ANALYZER_RENDER_INSTANCES_RENDER_H_
#define STREAMSCOPE_ANALYZER_RENDER_INSTANCES_RENDER_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace streamscope {

// The figures of one window, summed over its devices.
struct InstanceFigures {
  size_t index = 0;      // window index (the instance is index + 1)
  std::string label;     // "NVTX 'step' #12"
  int64_t start_ns = 0;  // from the trace start
  int64_t length_ns = 0;
  int64_t device_ns = 0;  // window length x devices
  int64_t busy_ns = 0;    // device busy time, all devices
  int64_t copy_ns = 0, exposed_copy_ns = 0;
  std::string finding;  // the diagnosis' primary finding, or empty
};

// "NVTX 'step'" of the window label "NVTX 'step' #12" (the range all the
// instances belong to); other labels unchanged.
std::string InstancesName(const std::string& window_label);

// Windows above this count are summarized in text.
inline constexpr size_t kFullTextWindows = 10;

// "Instances of NVTX 'step': ..." with distributions and the `top` longest.
void RenderInstancesText(const std::vector<InstanceFigures>& instances, int top, std::ostream& out);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_INSTANCES_RENDER_H_
