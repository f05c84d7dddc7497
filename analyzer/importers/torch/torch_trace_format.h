// torch.profiler traces (Chrome trace JSON, plain or gzip) as a
// TraceImporter: recognized by their JSON content (LooksLikeTorchTrace),
// imported by ImportTorchTrace (torch_trace_importer.h). They record no
// kernel shapes.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_TORCH_TRACE_FORMAT_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_TORCH_TRACE_FORMAT_H_

#include "analyzer/importers/trace_importer.h"

namespace streamscope {

class TorchTraceFormat final : public TraceImporter {
 public:
  bool Recognizes(TraceFile& file) const override;
  absl::StatusOr<std::vector<TraceModel>> Import(TraceFile& file) const override;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_TORCH_TRACE_FORMAT_H_
