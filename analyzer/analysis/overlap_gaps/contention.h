#ifndef STREAMSCOPE_ANALYZER_ANALYSIS_CONTENTION_H_
#define STREAMSCOPE_ANALYZER_ANALYSIS_CONTENTION_H_

#include <optional>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/analysis/windows/window.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// Diagnosis step 6: the same ops (kernels by name, copies and memsets by
// size) ran slower when they overlapped others than when they ran alone (or
// alone in options.reference). Reads only the model, never another
// analysis' result, so a caller can run it on its own thread from the start
// and hand it to AnalyzeDiagnose (DiagnoseInputs::contention).
std::optional<DiagnoseFinding> AnalyzeContention(const TraceModel& model, const Window& window,
                                                 const DiagnoseOptions& options);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_ANALYSIS_CONTENTION_H_
