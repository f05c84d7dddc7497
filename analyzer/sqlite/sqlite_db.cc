#include "analyzer/sqlite/sqlite_db.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace streamscope {
namespace {

// Opens `path` with `flags`; the error is SQLite's bare message.
absl::StatusOr<sqlite3*> Open(const std::string& path, int flags) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return absl::UnknownError(msg);
  }
  return db;
}

}  // namespace

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
  auto db = Open(path, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX);
  if (!db.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": cannot open: ", db.status().message()));
  }
  auto out = std::unique_ptr<SqliteDb>(new SqliteDb(*db, path));
  // Reading the schema catches truncated and corrupt files early.
  auto probe = out->QueryInt64("SELECT count(*) FROM sqlite_master");
  if (!probe.ok()) {
    return absl::DataLossError(absl::StrCat(path, ": damaged SQLite database (", probe.status().message(), ")"));
  }
  return out;
}

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::OpenReadWrite(const std::string& path) {
  auto db = Open(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW);
  if (!db.ok()) return absl::PermissionDeniedError(db.status().message());
  return std::unique_ptr<SqliteDb>(new SqliteDb(*db, path));
}

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::OpenInMemory() {
  auto db = Open(":memory:", SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_MEMORY);
  if (!db.ok()) return absl::InternalError(db.status().message());
  return std::unique_ptr<SqliteDb>(new SqliteDb(*db, ":memory:"));
}

SqliteDb::~SqliteDb() {
  if (db_ != nullptr) sqlite3_close(db_);
}

absl::Status SqliteDb::Close() {
  if (db_ == nullptr) return absl::OkStatus();
  if (sqlite3_close(db_) != SQLITE_OK) {
    return absl::InternalError(absl::StrCat("closing ", path_, " failed: ", sqlite3_errmsg(db_)));
  }
  db_ = nullptr;
  return absl::OkStatus();
}

absl::StatusOr<SqliteStatement> SqliteDb::Prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt);
    std::string msg = sqlite3_errmsg(db_);
    if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB) {
      return absl::DataLossError(absl::StrCat(path_, ": damaged database: ", msg));
    }
    return absl::InvalidArgumentError(absl::StrCat(path_, ": ", msg));
  }
  return SqliteStatement(db_, stmt);
}

absl::Status SqliteDb::Exec(std::string_view sql) {
  const std::string text(sql);  // sqlite3_exec wants a NUL-terminated string
  char* error = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    std::string message = error != nullptr ? error : sqlite3_errmsg(db_);
    sqlite3_free(error);
    return absl::InternalError(message);
  }
  return absl::OkStatus();
}

bool SqliteDb::HasTable(std::string_view table) {
  auto stmt = Prepare("SELECT 1 FROM sqlite_master WHERE type IN ('table','view') AND name = ?1");
  if (!stmt.ok() || !stmt->BindText(1, table).ok()) return false;
  auto row = stmt->Step();
  return row.ok() && *row;
}

bool SqliteDb::HasColumn(std::string_view table, std::string_view column) {
  auto stmt = Prepare("SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2");
  if (!stmt.ok() || !stmt->BindAll({table, column}).ok()) return false;
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

void SqliteDb::SetBusyTimeout(int ms) { sqlite3_busy_timeout(db_, ms); }

std::string SqliteDb::LastError() const { return db_ != nullptr ? sqlite3_errmsg(db_) : ""; }

}  // namespace streamscope
