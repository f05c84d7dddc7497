#include "analyzer/importers/nsys/nsys_export_format.h"

#include "analyzer/importers/nsys/nsys_export_importer.h"

namespace streamscope {

bool NsysExportFormat::Recognizes(TraceFile& file) const {
  absl::StatusOr<SqliteDb*> db = file.Db();
  return db.ok() && LooksLikeNsysExport(**db);
}

absl::StatusOr<std::vector<TraceModel>> NsysExportFormat::Import(TraceFile& file) const {
  absl::StatusOr<SqliteDb*> db = file.Db();
  if (!db.ok()) return db.status();
  return ImportNsysExport(**db);
}

absl::Status NsysExportFormat::AddKernelShapes(TraceFile& file, TraceModel* model) const {
  absl::StatusOr<SqliteDb*> db = file.Db();
  if (!db.ok()) return db.status();
  return AddNsysKernelShapes(**db, model);
}

}  // namespace streamscope
