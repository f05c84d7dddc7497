// The analyzer's SQLite connection: open (read-only, read-write, in
// memory), prepare, execute, iterate over rows; errors as absl::Status.
// Importers, the analysis-table saver and the converter all talk SQLite
// through it. User-supplied values are bound, never spliced into SQL.
// Not thread-safe: one SqliteDb per thread. <sqlite3.h> stays out of this
// header (the connection is an opaque pointer).
#ifndef STREAMSCOPE_ANALYZER_SQLITE_SQLITE_DB_H_
#define STREAMSCOPE_ANALYZER_SQLITE_SQLITE_DB_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/sqlite/sqlite_statement.h"

struct sqlite3;

namespace streamscope {

class SqliteDb {
 public:
  // Opens an existing file read-only. NOT_FOUND if missing/unreadable,
  // DATA_LOSS if it is not an SQLite database (empty, truncated, wrong
  // header, unreadable schema).
  static absl::StatusOr<std::unique_ptr<SqliteDb>> OpenReadOnly(const std::string& path);
  // Opens an existing file for writing; never follows a symbolic link.
  // PERMISSION_DENIED with SQLite's bare message if it cannot.
  static absl::StatusOr<std::unique_ptr<SqliteDb>> OpenReadWrite(const std::string& path);
  // A fresh private in-memory database (tests, scratch work).
  static absl::StatusOr<std::unique_ptr<SqliteDb>> OpenInMemory();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;
  ~SqliteDb();

  // INVALID_ARGUMENT "path: message" for bad SQL, DATA_LOSS for a damaged
  // database.
  absl::StatusOr<SqliteStatement> Prepare(std::string_view sql);
  // Runs one or more statements that return no rows. INTERNAL with
  // SQLite's bare message on failure.
  absl::Status Exec(std::string_view sql);
  // Runs `fn(const SqliteStatement& row)` for each row of `sql`, with
  // `binds` bound to parameters 1..n. Stops at the first error.
  template <typename Fn>
  absl::Status ForEachRow(std::string_view sql, std::initializer_list<SqlValue> binds, Fn&& fn);
  template <typename Fn>
  absl::Status ForEachRow(std::string_view sql, Fn&& fn) {
    return ForEachRow(sql, {}, std::forward<Fn>(fn));
  }

  bool HasTable(std::string_view table);  // table or view
  bool HasColumn(std::string_view table, std::string_view column);
  // First column of the first row as int64, if any row (NULL -> nullopt).
  absl::StatusOr<std::optional<int64_t>> QueryInt64(std::string_view sql);

  // Waits up to `ms` for another connection's lock instead of failing.
  void SetBusyTimeout(int ms);
  // SQLite's message for the last failed call on this connection.
  std::string LastError() const;
  // Closes the connection now (statements must be gone); INTERNAL if SQLite
  // refuses. The destructor closes it otherwise.
  absl::Status Close();
  const std::string& path() const { return path_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_;
  std::string path_;
};

template <typename Fn>
absl::Status SqliteDb::ForEachRow(std::string_view sql, std::initializer_list<SqlValue> binds, Fn&& fn) {
  auto stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  if (absl::Status s = stmt->BindAll(binds); !s.ok()) return s;
  while (true) {
    auto row = stmt->Step();
    if (!row.ok()) return row.status();
    if (!*row) return absl::OkStatus();
    fn(static_cast<const SqliteStatement&>(*stmt));
  }
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_SQLITE_SQLITE_DB_H_
