#include "analyzer/importers/trace_loader.h"

#include "absl/strings/str_cat.h"
#include "analyzer/importers/nsys_export_importer.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "analyzer/importers/streamscope_trace_importer.h"
#include "analyzer/importers/torch_trace_importer.h"

namespace streamscope {

absl::StatusOr<std::vector<TraceModel>> LoadTraceFile(const std::string& path) {
  // torch.profiler traces are JSON (maybe gzip): recognized by content.
  if (LooksLikeTorchTrace(path)) {
    auto model = ImportTorchTrace(path);
    if (!model.ok()) return model.status();
    std::vector<TraceModel> models;
    models.push_back(std::move(*model));
    models.front().Finalize();
    return models;
  }
  auto db = SqliteDb::OpenReadOnly(path);
  if (!db.ok()) return db.status();
  std::vector<TraceModel> models;
  if (LooksLikeStreamscopeTrace(**db)) {
    TraceModel model;
    model.path = path;
    absl::Status status = ImportStreamscopeTrace(**db, &model);
    if (!status.ok()) return status;
    models.push_back(std::move(model));
  } else if (LooksLikeNsysExport(**db)) {
    auto imported = ImportNsysExport(**db);
    if (!imported.ok()) return imported.status();
    models = std::move(*imported);
    for (TraceModel& m : models) m.path = path;
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": an SQLite database, but neither a streamscope trace (no metadata "
              "table with schema_version) nor an Nsight Systems export"));
  }
  for (TraceModel& m : models) m.Finalize();
  return models;
}

}  // namespace streamscope
