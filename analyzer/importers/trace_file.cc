#include "analyzer/importers/trace_file.h"

namespace streamscope {

absl::StatusOr<SqliteDb*> TraceFile::Db() {
  if (!db_.has_value()) db_ = SqliteDb::OpenReadOnly(path_);
  if (!db_->ok()) return db_->status();
  return db_->value().get();
}

}  // namespace streamscope
