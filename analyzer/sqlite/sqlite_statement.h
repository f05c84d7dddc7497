// One prepared SQLite statement: bind, step, reset, read columns. Made by
// SqliteDb::Prepare; finalized when destroyed. Not thread-safe (one
// connection per thread). <sqlite3.h> stays out of this header: the
// handles are opaque pointers.
#ifndef STREAMSCOPE_ANALYZER_SQLITE_SQLITE_STATEMENT_H_
#define STREAMSCOPE_ANALYZER_SQLITE_SQLITE_STATEMENT_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <variant>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

struct sqlite3;
struct sqlite3_stmt;

namespace streamscope {

// A value to bind: NULL, integer, real or text (text is copied by SQLite).
using SqlValue = std::variant<std::monostate, int64_t, double, std::string_view>;

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Parameters are 1-based, like SQLite's. Errors are INTERNAL with
  // SQLite's message.
  absl::Status BindInt64(int index, int64_t value);
  absl::Status BindDouble(int index, double value);
  absl::Status BindText(int index, std::string_view value);
  absl::Status BindNull(int index);
  absl::Status Bind(int index, const SqlValue& value);
  // Binds `values` to parameters 1..n.
  absl::Status BindAll(std::initializer_list<SqlValue> values);

  // True if a row is available, false when done; DATA_LOSS on a corrupt
  // database or another step error.
  absl::StatusOr<bool> Step();
  // Steps a statement that returns no rows (INSERT, CREATE ...), then
  // resets it and clears its bindings for the next use. INTERNAL with
  // SQLite's message on failure.
  absl::Status Run();
  // Back to before the first row; bindings are kept.
  void Reset();
  void ClearBindings();

  int ColumnCount() const;
  bool IsNull(int col) const;
  int64_t Int64(int col) const;          // NULL -> 0
  double Double(int col) const;          // NULL -> 0.0
  std::string_view Text(int col) const;  // NULL -> ""; valid until the next Step/Reset
  // NULL -> nullopt. Asks SQLite for the type only when the value reads 0:
  // one call per column instead of two, on tens of millions of rows.
  std::optional<int64_t> OptionalInt64(int col) const;

 private:
  friend class SqliteDb;
  SqliteStatement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_SQLITE_SQLITE_STATEMENT_H_
