#include "analyzer/storage/analysis_saver.h"

#include <sqlite3.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace streamscope {
namespace {

bool IsIdentifier(const std::string& s) {
  if (s.empty() || s.size() > 64 || !(s[0] == '_' || (s[0] >= 'a' && s[0] <= 'z'))) return false;
  for (char c : s) {
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  return true;
}

// SQL type of each column: that of its first non-NULL value ("" if none).
std::vector<std::string> ColumnTypes(const ResultTable& t) {
  std::vector<std::string> types(t.columns.size());
  size_t known = 0;
  auto visit = [&](const std::vector<ResultValue>& row) {
    for (size_t c = 0; c < types.size() && c < row.size(); ++c) {
      if (!types[c].empty()) continue;
      if (std::holds_alternative<int64_t>(row[c])) types[c] = "INTEGER";
      else if (std::holds_alternative<double>(row[c])) types[c] = "REAL";
      else if (std::holds_alternative<std::string>(row[c])) types[c] = "TEXT";
      if (!types[c].empty()) ++known;
    }
  };
  for (const auto& row : t.rows) {
    visit(row);
    if (known == types.size()) return types;
  }
  if (!t.sources.empty()) t.ForEachRow(visit);  // generated rows: one more pass
  return types;
}

class Db {
 public:
  ~Db() { if (db_) sqlite3_close(db_); }
  sqlite3* db_ = nullptr;
  std::string path_;

  absl::Status Exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : sqlite3_errmsg(db_);
      sqlite3_free(err);
      return absl::PermissionDeniedError(absl::StrCat(path_, ": cannot save analysis tables: ", msg));
    }
    return absl::OkStatus();
  }
  absl::Status Error(const char* what) {
    return absl::PermissionDeniedError(absl::StrCat(path_, ": cannot save analysis tables (", what, "): ",
                                                    sqlite3_errmsg(db_)));
  }
};

absl::Status WriteTable(Db& db, const ResultTable& t) {
  std::vector<std::string> cols;
  const std::vector<std::string> types = ColumnTypes(t);
  for (size_t c = 0; c < t.columns.size(); ++c) {
    const std::string& type = types[c];
    cols.push_back(type.empty() ? t.columns[c] : absl::StrCat(t.columns[c], " ", type));
  }
  if (absl::Status s = db.Exec(absl::StrCat("CREATE TABLE ", t.name, " (", absl::StrJoin(cols, ", "), ")")); !s.ok()) {
    return s;
  }
  std::vector<std::string> marks(t.columns.size(), "?");
  std::string sql = absl::StrCat("INSERT INTO ", t.name, " VALUES (", absl::StrJoin(marks, ","), ")");
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db.db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) return db.Error("prepare");
  absl::Status status;
  t.ForEachRow([&](const std::vector<ResultValue>& row) {
    if (!status.ok()) return;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      int i = static_cast<int>(c + 1);
      const ResultValue& v = c < row.size() ? row[c] : ResultValue();
      if (const int64_t* x = std::get_if<int64_t>(&v)) sqlite3_bind_int64(stmt, i, *x);
      else if (const double* d = std::get_if<double>(&v)) sqlite3_bind_double(stmt, i, *d);
      else if (const std::string* s = std::get_if<std::string>(&v))
        sqlite3_bind_text(stmt, i, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      else sqlite3_bind_null(stmt, i);
    }
    if (sqlite3_step(stmt) != SQLITE_DONE) {
      status = db.Error("insert");
      return;
    }
    sqlite3_reset(stmt);
  });
  sqlite3_finalize(stmt);
  return status;
}

}  // namespace

absl::Status SaveAnalysisTables(const std::string& path, const std::vector<ResultTable>& tables) {
  for (const ResultTable& t : tables) {
    if (t.name.rfind("analysis_", 0) != 0 || !IsIdentifier(t.name)) {
      return absl::InvalidArgumentError(absl::StrCat("bad analysis table name '", t.name, "'"));
    }
    for (const std::string& c : t.columns) {
      if (!IsIdentifier(c)) return absl::InvalidArgumentError(absl::StrCat("bad column name '", c, "' in ", t.name));
    }
  }
  Db db;
  db.path_ = path;
  int rc = sqlite3_open_v2(path.c_str(), &db.db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db.db_ ? sqlite3_errmsg(db.db_) : sqlite3_errstr(rc);
    return absl::PermissionDeniedError(absl::StrCat(path, ": cannot open the trace for writing (", msg, ")"));
  }
  sqlite3_busy_timeout(db.db_, 5000);
  if (absl::Status s = db.Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  auto fail = [&](absl::Status s) {
    sqlite3_exec(db.db_, "ROLLBACK", nullptr, nullptr, nullptr);
    return s;
  };
  // Earlier results: every analysis_* table (underscore escaped in LIKE).
  std::vector<std::string> old;
  {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db.db_,
                           "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'analysis\\_%' ESCAPE '\\'",
                           -1, &stmt, nullptr) != SQLITE_OK) {
      return fail(db.Error("list tables"));
    }
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      old.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
    }
    sqlite3_finalize(stmt);
  }
  for (const std::string& name : old) {
    // Names come from the file: quote them.
    std::string quoted = "\"";
    for (char c : name) {
      if (c == '"') quoted += '"';
      quoted += c;
    }
    quoted += '"';
    if (absl::Status s = db.Exec("DROP TABLE " + quoted); !s.ok()) return fail(s);
  }
  for (const ResultTable& t : tables) {
    if (absl::Status s = WriteTable(db, t); !s.ok()) return fail(s);
  }
  if (absl::Status s = db.Exec("COMMIT"); !s.ok()) return fail(s);
  return absl::OkStatus();
}

}  // namespace streamscope
