#include "analyzer/sqlite/sqlite_statement.h"

#include <sqlite3.h>

#include <utility>

#include "absl/strings/str_cat.h"

namespace streamscope {
namespace {

absl::Status BindResult(sqlite3* db, int rc) {
  if (rc == SQLITE_OK) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("cannot bind parameter: ", sqlite3_errmsg(db)));
}

}  // namespace

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : db_(other.db_), stmt_(std::exchange(other.stmt_, nullptr)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    if (stmt_ != nullptr) sqlite3_finalize(stmt_);
    db_ = other.db_;
    stmt_ = std::exchange(other.stmt_, nullptr);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
}

absl::Status SqliteStatement::BindInt64(int index, int64_t value) {
  return BindResult(db_, sqlite3_bind_int64(stmt_, index, value));
}

absl::Status SqliteStatement::BindDouble(int index, double value) {
  return BindResult(db_, sqlite3_bind_double(stmt_, index, value));
}

absl::Status SqliteStatement::BindText(int index, std::string_view value) {
  return BindResult(db_,
                    sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT));
}

absl::Status SqliteStatement::BindNull(int index) { return BindResult(db_, sqlite3_bind_null(stmt_, index)); }

absl::Status SqliteStatement::Bind(int index, const SqlValue& value) {
  if (const int64_t* i = std::get_if<int64_t>(&value)) return BindInt64(index, *i);
  if (const double* d = std::get_if<double>(&value)) return BindDouble(index, *d);
  if (const std::string_view* s = std::get_if<std::string_view>(&value)) return BindText(index, *s);
  return BindNull(index);
}

absl::Status SqliteStatement::BindAll(std::initializer_list<SqlValue> values) {
  int index = 1;
  for (const SqlValue& v : values) {
    if (absl::Status s = Bind(index++, v); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::StatusOr<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return absl::DataLossError(absl::StrCat("reading the database failed: ", sqlite3_errmsg(db_)));
}

absl::Status SqliteStatement::Run() {
  int rc = sqlite3_step(stmt_);
  // The message before reset: reset may replace it.
  std::string message = rc == SQLITE_DONE || rc == SQLITE_ROW ? "" : sqlite3_errmsg(db_);
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  if (rc == SQLITE_DONE || rc == SQLITE_ROW) return absl::OkStatus();
  return absl::InternalError(message);
}

void SqliteStatement::Reset() { sqlite3_reset(stmt_); }
void SqliteStatement::ClearBindings() { sqlite3_clear_bindings(stmt_); }

int SqliteStatement::ColumnCount() const { return sqlite3_column_count(stmt_); }
bool SqliteStatement::IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t SqliteStatement::Int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double SqliteStatement::Double(int col) const { return sqlite3_column_double(stmt_, col); }

std::string_view SqliteStatement::Text(int col) const {
  const unsigned char* text = sqlite3_column_text(stmt_, col);
  if (text == nullptr) return {};
  return std::string_view(reinterpret_cast<const char*>(text), static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::optional<int64_t> SqliteStatement::OptionalInt64(int col) const {
  int64_t v = sqlite3_column_int64(stmt_, col);
  if (v != 0 || !IsNull(col)) return v;
  return std::nullopt;
}

}  // namespace streamscope
