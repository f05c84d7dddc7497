// Placeholder until the streamscope trace importer lands (issue 4).
#include "analyzer/importers/streamscope_trace_importer.h"

namespace streamscope {

bool LooksLikeStreamscopeTrace(SqliteDb& db) { return db.HasTable("metadata"); }

absl::Status ImportStreamscopeTrace(SqliteDb&, TraceModel*) {
  return absl::UnimplementedError("streamscope trace import not implemented yet");
}

}  // namespace streamscope
