// The JSON form of a produced slice's typed args (analysis_tracks.h
// SliceArg): what the held slices carry in `args` and the JSON writers
// write. Thread-safe (reads the model only).
#ifndef STREAMSCOPE_ANALYZER_EXPORT_SLICE_ARGS_H_
#define STREAMSCOPE_ANALYZER_EXPORT_SLICE_ARGS_H_

#include "analyzer/export/analysis_tracks.h"
#include "analyzer/model/trace_model.h"
#include "nlohmann/json.hpp"

namespace streamscope {

// One typed arg's value as JSON.
nlohmann::json SliceArgJson(const TraceModel& model, const SliceArg& arg);
// The slice's `args` with its typed args added (keys sorted, as JSON
// objects are).
nlohmann::json SliceArgsJson(const TraceModel& model, const AnalysisSlice& slice);
// Moves the typed args into `args` (a held slice).
void WordTypedArgs(const TraceModel& model, AnalysisSlice* slice);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_SLICE_ARGS_H_
