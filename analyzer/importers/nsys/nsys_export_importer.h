// Importer for Nsight Systems SQLite exports (`nsys export --type sqlite`),
// export schema 2.x and 3.x. Several processes in one export become several
// models, kept apart by process id.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_EXPORT_IMPORTER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_EXPORT_IMPORTER_H_

#include <vector>

#include "absl/status/statusor.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope {

// True if the database looks like an nsys export (EXPORT_META_DATA or
// META_DATA_EXPORT, or StringIds with CUPTI_ACTIVITY_KIND_* tables or the
// tables of the capture itself, such as ThreadNames: an export without CUDA
// records is still recognized, and its import says so).
bool LooksLikeNsysExport(SqliteDb& db);

// One model per process (not yet finalized). FAILED_PRECONDITION for an
// unknown major export version; INVALID_ARGUMENT if no GPU tables at all.
absl::StatusOr<std::vector<TraceModel>> ImportNsysExport(SqliteDb& db);

// Fills model->kernel_shapes (one per op, zero for non-kernels) from the
// export's kernel table, for a model ImportNsysExport made from `db` (any
// op order). The import leaves shapes out: they nearly double its cost and
// no analysis uses them; `convert` wants them.
absl::Status AddNsysKernelShapes(SqliteDb& db, TraceModel* model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_EXPORT_IMPORTER_H_
