// Round trip per iteration (docs/DEFINITIONS.md, analysis 10): each iteration the
// host reads back a result (a device-to-host copy), synchronizes, tests it
// and only then launches the next iteration, so the GPU idles for the whole
// round trip: the copy's return, the host decision and the launch. The
// jacobiCudaGraphs pattern (graph launch, 8-byte copy, cudaStreamSynchronize,
// host test) and PyTorch's `.item()`, `.cpu()` or printing a tensor per step.
//
// The finding's measured cost is the idle partition's round_trip time
// (gap_causes.h); the what-if ranking estimates the read-backs gone (the
// remedy: test less often), with the host work removed alone and both
// together beside it (diagnose_ranking.h). Pure function
// of the model and the gap causes of the window; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_ROUND_TRIP_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_ROUND_TRIP_H_

#include <optional>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/causes/gap_causes.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// The round trip finding of a window, or nullopt when its partition has no
// round_trip time.
std::optional<DiagnoseFinding> FindRoundTrip(const TraceModel& model, const GapCausesResult& gaps, int max_evidence);

// Whether the trace was recorded from PyTorch (aten operators or ATen
// kernels, demangled or mangled), whose round trips come from `.item()`,
// `.cpu()` and printing.
bool IsPyTorchTrace(const TraceModel& model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_ROUND_TRIP_H_
