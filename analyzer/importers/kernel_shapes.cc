#include "analyzer/importers/kernel_shapes.h"

#include "analyzer/importers/trace_loader.h"

namespace streamscope {

absl::Status AddKernelShapes(TraceModel* model) {
  TraceFile file(model->path);
  if (const TraceImporter* format = FindTraceImporter(file)) return format->AddKernelShapes(file, model);
  absl::StatusOr<SqliteDb*> db = file.Db();
  return db.ok() ? absl::OkStatus() : db.status();
}

}  // namespace streamscope
