#include "analyzer/importers/sqlite_reader.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace streamscope {

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

SqliteStatement::~SqliteStatement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

absl::Status SqliteStatement::BindInt64(int index, int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("cannot bind parameter: ", sqlite3_errmsg(db_)));
  }
  return absl::OkStatus();
}

absl::Status SqliteStatement::BindText(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("cannot bind parameter: ", sqlite3_errmsg(db_)));
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return absl::DataLossError(absl::StrCat("reading the database failed: ", sqlite3_errmsg(db_)));
}

int SqliteStatement::ColumnCount() const { return sqlite3_column_count(stmt_); }
bool SqliteStatement::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t SqliteStatement::Int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double SqliteStatement::Double(int col) const { return sqlite3_column_double(stmt_, col); }

std::string_view SqliteStatement::Text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  if (text == nullptr) return {};
  return std::string_view(reinterpret_cast<const char*>(text),
                          static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::optional<int64_t> SqliteStatement::OptionalInt64(int col) const {
  // NULL reads as 0: ask for the type only then (one SQLite call per
  // column instead of two, on tens of millions of rows).
  int64_t v = sqlite3_column_int64(stmt_, col);
  if (v != 0 || !IsNull(col)) return v;
  return std::nullopt;
}

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::OpenReadOnly(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    return absl::NotFoundError(absl::StrCat(path, ": not a regular file"));
  }
  // Check the header ourselves: SQLite happily "opens" any file and only
  // fails on first use, with a less helpful message.
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return absl::NotFoundError(absl::StrCat(path, ": ", std::strerror(errno)));
  char header[16] = {};
  size_t n = std::fread(header, 1, sizeof(header), f);
  std::fclose(f);
  if (n == 0) return absl::DataLossError(absl::StrCat(path, ": empty file, not a trace"));
  if (n < sizeof(header) || std::memcmp(header, "SQLite format 3", 16) != 0) {
    return absl::DataLossError(absl::StrCat(path, ": not an SQLite database"));
  }
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::DataLossError(absl::StrCat(path, ": cannot open: ", msg));
  }
  auto out = std::unique_ptr<SqliteDb>(new SqliteDb(db, path));
  // Reading the schema catches truncated and corrupt files early.
  auto probe = out->QueryInt64("SELECT count(*) FROM sqlite_master");
  if (!probe.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": damaged SQLite database (",
                                            probe.status().message(), ")"));
  }
  return out;
}

SqliteDb::~SqliteDb() { sqlite3_close(db_); }

absl::StatusOr<SqliteStatement> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = sqlite3_errmsg(db_);
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) {
      return absl::DataLossError(absl::StrCat(path_, ": damaged database: ", msg));
    }
    return absl::InvalidArgumentError(absl::StrCat(path_, ": ", msg));
  }
  return SqliteStatement(db_, stmt);
}

bool SqliteDb::HasTable(std::string_view table) {
  auto stmt = Prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1");
  if (!stmt.ok() || !stmt->BindText(1, table).ok()) return false;
  auto row = stmt->Step();
  return row.ok() && *row;
}

bool SqliteDb::HasColumn(std::string_view table, std::string_view column) {
  auto stmt = Prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
  if (!stmt.ok() || !stmt->BindText(1, table).ok() || !stmt->BindText(2, column).ok()) return false;
  auto row = stmt->Step();
  return row.ok() && *row;
}

absl::StatusOr<std::optional<int64_t>> SqliteDb::QueryInt64(std::string_view sql) {
  auto stmt = Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  auto row = stmt->Step();
  if (!row.ok()) return row.status();
  if (!*row) return std::optional<int64_t>();
  return stmt->OptionalInt64(0);
}

}  // namespace streamscope
