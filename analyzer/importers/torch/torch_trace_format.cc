#include "analyzer/importers/torch/torch_trace_format.h"

#include <utility>

#include "analyzer/importers/torch/torch_trace_importer.h"

namespace streamscope {

bool TorchTraceFormat::Recognizes(TraceFile& file) const { return LooksLikeTorchTrace(file.path()); }

absl::StatusOr<std::vector<TraceModel>> TorchTraceFormat::Import(TraceFile& file) const {
  absl::StatusOr<TraceModel> model = ImportTorchTrace(file.path());
  if (!model.ok()) return model.status();
  std::vector<TraceModel> models;
  models.push_back(std::move(*model));
  return models;
}

}  // namespace streamscope
