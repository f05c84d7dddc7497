// The words of a diagnosis: the summary, remedy and worded labels of each
// finding, from the figures its cause found (DiagnoseFinding::facts). The
// analysis returns data only; text and JSON renderers, and compare's
// verdict, word it here.
#ifndef STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_WORDING_H_
#define STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_WORDING_H_

#include <map>
#include <string>

#include "analyzer/analysis/causes/diagnose.h"
#include "analyzer/model/trace_model.h"

namespace streamscope {

// One or two sentences with the figures ("device 0 has 1 copy engine: ...").
std::string DiagnoseSummary(const DiagnoseFinding& finding, const TraceModel& model);
// What to change.
std::string DiagnoseRemedy(const DiagnoseFinding& finding);
// "measured cost 2.85 ms (46% of the GPU span); estimated saving 1.20 ms
// (19%)" — or "...; no saving estimate for this cause".
std::string DiagnoseCostAndSaving(const DiagnoseFinding& finding, int64_t gpu_span_ns);
// The line that says what an estimated saving is, and what proves one.
std::string DiagnoseSavingNote();
// "device 1: copy engine count not recorded; hardware limits not checked".
std::string DiagnoseNoteText(const DiagnoseNote& note);
// The finding's labels (named texts) with the worded ones added: for
// pageable copies, "<direction>_reference" (what they were compared with).
std::map<std::string, std::string> DiagnoseLabels(const DiagnoseFinding& finding);
// The causes acting together (CombinedEstimate), when reported: one
// sentence with the savings alone and together, and what to do.
std::string DiagnoseCombinedText(const CombinedEstimate& combined);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_RENDER_DIAGNOSE_WORDING_H_
