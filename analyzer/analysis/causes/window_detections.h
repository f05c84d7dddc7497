// Detections of one window that two consumers read: the diagnosis makes
// its findings of them (diagnose.h) and the what-ifs their replay edits
// (what_if.h). Each is a scan of the window's ops (at 10M ops, one of
// millions of kernels), so the caller finds them once per window and hands
// the same result to both (DiagnoseInputs, WhatIfSession,
// RankDiagnoseFindings): a finding and its what-if then name the same ops.
// RunPlan does so; a consumer given none finds them itself.
//
// A new detection of this kind: a field here, its call in
// FindWindowDetections, and its consumers read the field.
// Pure function of the model; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_WINDOW_DETECTIONS_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_WINDOW_DETECTIONS_H_

#include "analyzer/analysis/causes/hardware_queues.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

struct WindowDetections {
  Window window;  // where they were looked for
  // hardware_queue: kernels held behind other streams' work in shared
  // hardware queues (FindQueueHeldKernels).
  HardwareQueueResult queue_held;
  // lazy_module_loading: kernels that waited in lazy-loading stalls
  // (FindLoadStalls).
  LoadStallResult load_stalls;

  // Whether these were found for `w` (the detections read its range only).
  bool For(const Window& w) const { return window.start_ns == w.start_ns && window.end_ns == w.end_ns; }
};

WindowDetections FindWindowDetections(const TraceModel& model, const Window& window);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_WINDOW_DETECTIONS_H_
