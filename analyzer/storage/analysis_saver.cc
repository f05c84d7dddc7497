#include "analyzer/storage/analysis_saver.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "schema/schema.h"

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
      if (std::holds_alternative<int64_t>(row[c]))
        types[c] = "INTEGER";
      else if (std::holds_alternative<double>(row[c]))
        types[c] = "REAL";
      else if (std::holds_alternative<std::string>(row[c]))
        types[c] = "TEXT";
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

// Errors of the saver say which file and step failed.
class Db {
 public:
  Db(std::unique_ptr<SqliteDb> db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}
  SqliteDb& db() { return *db_; }

  absl::Status Exec(const std::string& sql) {
    absl::Status s = db_->Exec(sql);
    if (s.ok()) return s;
    return absl::PermissionDeniedError(absl::StrCat(path_, ": cannot save analysis tables: ", s.message()));
  }
  // `message` defaults to SQLite's last error on this connection.
  absl::Status Error(const char* what, std::string message = "") {
    return absl::PermissionDeniedError(absl::StrCat(path_, ": cannot save analysis tables (", what,
                                                    "): ", message.empty() ? db_->LastError() : message));
  }

 private:
  std::unique_ptr<SqliteDb> db_;
  std::string path_;
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
  auto stmt = db.db().Prepare(sql);
  if (!stmt.ok()) return db.Error("prepare");
  absl::Status status;
  t.ForEachRow([&](const std::vector<ResultValue>& row) {
    if (!status.ok()) return;
    for (size_t c = 0; c < t.columns.size(); ++c) {
      int i = static_cast<int>(c + 1);
      const ResultValue& v = c < row.size() ? row[c] : ResultValue();
      if (const int64_t* x = std::get_if<int64_t>(&v))
        (void)stmt->BindInt64(i, *x);
      else if (const double* d = std::get_if<double>(&v))
        (void)stmt->BindDouble(i, *d);
      else if (const std::string* s = std::get_if<std::string>(&v))
        (void)stmt->BindText(i, *s);
      else
        (void)stmt->BindNull(i);
    }
    if (absl::Status s = stmt->Run(); !s.ok()) status = db.Error("insert", std::string(s.message()));
  });
  return status;
}

// A streamscope trace (metadata says its schema version) older than this
// build's: upgraded in place by schema::UpgradeSql. Other files (Nsight
// Systems exports) are left as they are.
absl::Status UpgradeOlderTrace(Db& db) {
  if (!db.db().HasTable("metadata")) return absl::OkStatus();
  auto version = db.db().QueryInt64("SELECT CAST(value AS INTEGER) FROM metadata WHERE key = 'schema_version'");
  if (!version.ok() || !version->has_value()) return absl::OkStatus();
  if (**version < schema::OldestReadableVersion() || **version >= schema::Version()) return absl::OkStatus();
  return db.Exec(schema::UpgradeSql(static_cast<int>(**version)));
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
  auto opened = SqliteDb::OpenReadWrite(path);
  if (!opened.ok()) {
    return absl::PermissionDeniedError(
        absl::StrCat(path, ": cannot open the trace for writing (", opened.status().message(), ")"));
  }
  Db db(std::move(*opened), path);
  db.db().SetBusyTimeout(5000);
  if (absl::Status s = db.Exec("BEGIN IMMEDIATE"); !s.ok()) return s;
  auto fail = [&](absl::Status s) {
    (void)db.db().Exec("ROLLBACK");
    return s;
  };
  // A streamscope trace of an older schema version gets this version's copy
  // kind names and views, so that its views speak the saved tables'
  // vocabulary (the tables themselves are the same).
  if (absl::Status s = UpgradeOlderTrace(db); !s.ok()) return fail(s);
  // Earlier results: every analysis_* table (underscore escaped in LIKE).
  std::vector<std::string> old;
  absl::Status listed = db.db().ForEachRow(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'analysis\\_%' ESCAPE "
      "'\\'",
      [&](const SqliteStatement& r) { old.emplace_back(r.Text(0)); });
  if (!listed.ok()) return fail(db.Error("list tables"));
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
