#include "analyzer/analysis/causes/window_detections.h"

namespace streamscope {

WindowDetections FindWindowDetections(const TraceModel& model, const Window& window) {
  WindowDetections d;
  d.window = window;
  d.queue_held = FindQueueHeldKernels(model, window);
  d.load_stalls = FindLoadStalls(model, window);
  return d;
}

}  // namespace streamscope
