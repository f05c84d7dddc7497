// The file a trace is loaded from, as the formats look at it: its path, and
// the file opened as a read-only SQLite database at most once, by whichever
// format asks first. Thread-compatible: one load uses one TraceFile.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_FILE_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_FILE_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope {

class TraceFile {
 public:
  explicit TraceFile(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  // The file as SQLite, opened on the first call; later calls return the
  // same database or the same error (SqliteDb::OpenReadOnly's).
  absl::StatusOr<SqliteDb*> Db();

 private:
  std::string path_;
  std::optional<absl::StatusOr<std::unique_ptr<SqliteDb>>> db_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TRACE_FILE_H_
