// Importer for streamscope's own trace databases (schema/streamscope_schema.sql).
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_STREAMSCOPE_TRACE_IMPORTER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_STREAMSCOPE_TRACE_IMPORTER_H_

#include "absl/status/status.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope {

// True if the database has streamscope's metadata table with a schema_version.
bool LooksLikeStreamscopeTrace(SqliteDb& db);

// Fills *model (not yet finalized). FAILED_PRECONDITION for another schema
// version, INVALID_ARGUMENT for missing tables; bad records are counted in
// model->import_stats, not fatal.
absl::Status ImportStreamscopeTrace(SqliteDb& db, TraceModel* model);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_STREAMSCOPE_TRACE_IMPORTER_H_
