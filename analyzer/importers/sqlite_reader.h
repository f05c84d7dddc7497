// Read-only SQLite access for the importers (the only analyzer code, with the
// analysis-table saver, that talks SQLite). Thin RAII over sqlite3 with
// errors as absl::Status. User-supplied values are always bound, never
// spliced into SQL. Not thread-safe: one SqliteDb per thread.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_SQLITE_READER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_SQLITE_READER_H_

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace streamscope {

class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) = delete;
  ~SqliteStatement();

  absl::Status BindInt64(int index, int64_t value);   // 1-based, like SQLite
  absl::Status BindText(int index, std::string_view value);

  // True if a row is available, false when done; DATA_LOSS on a corrupt
  // database or other step error.
  absl::StatusOr<bool> Step();

  int ColumnCount() const;
  bool IsNull(int col) const;
  int64_t Int64(int col) const;      // NULL -> 0
  double Double(int col) const;
  std::string_view Text(int col) const;  // NULL -> ""
  std::optional<int64_t> OptionalInt64(int col) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_;
};

class SqliteDb {
 public:
  // Opens an existing file read-only. NOT_FOUND if missing/unreadable,
  // DATA_LOSS if it is not an SQLite database (empty, truncated, wrong
  // header, unreadable schema).
  static absl::StatusOr<std::unique_ptr<SqliteDb>> OpenReadOnly(const std::string& path);
  ~SqliteDb();

  absl::StatusOr<SqliteStatement> Prepare(std::string_view sql);
  bool HasTable(std::string_view table);  // table or view
  bool HasColumn(std::string_view table, std::string_view column);
  // First column of the first row as int64, if any row.
  absl::StatusOr<std::optional<int64_t>> QueryInt64(std::string_view sql);

  sqlite3* handle() { return db_; }
  const std::string& path() const { return path_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_SQLITE_READER_H_
