// streamscope's own trace databases as a TraceImporter: recognized by the
// metadata table, imported by ImportStreamscopeTrace
// (streamscope_trace_importer.h).
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_STREAMSCOPE_STREAMSCOPE_FORMAT_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_STREAMSCOPE_STREAMSCOPE_FORMAT_H_

#include "analyzer/importers/trace_importer.h"

namespace streamscope {

class StreamscopeFormat final : public TraceImporter {
 public:
  bool Recognizes(TraceFile& file) const override;
  absl::StatusOr<std::vector<TraceModel>> Import(TraceFile& file) const override;
  // From the kernel table's grid, block, shared memory and register columns.
  absl::Status AddKernelShapes(TraceFile& file, TraceModel* model) const override;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_STREAMSCOPE_STREAMSCOPE_FORMAT_H_
