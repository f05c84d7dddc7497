// The analyzer's SQLite wrapper: binds of every type, row iteration with
// bound values, reset and reuse, NULL handling, and errors as statuses
// with SQLite's message (never a crash).
#include "analyzer/sqlite/sqlite_db.h"

#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<SqliteDb> MemoryDb() {
  auto db = SqliteDb::OpenInMemory();
  EXPECT_TRUE(db.ok()) << db.status();
  return std::move(*db);
}

TEST(SqliteDb, BoundValuesOfEveryTypeComeBackFromTheirColumns) {
  auto db = MemoryDb();
  ASSERT_TRUE(db->Exec("CREATE TABLE t (i INTEGER, d REAL, s TEXT, n)").ok());
  auto insert = db->Prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)");
  ASSERT_TRUE(insert.ok()) << insert.status();
  ASSERT_TRUE(insert->BindAll({int64_t{1} << 40, 2.5, std::string_view("a'b"), std::monostate()}).ok());
  ASSERT_TRUE(insert->Run().ok());
  // Run() cleared the bindings: the next row is all NULL unless bound again.
  ASSERT_TRUE(insert->Run().ok());

  std::vector<std::string> seen;
  absl::Status s = db->ForEachRow("SELECT i, d, s, n FROM t ORDER BY rowid", [&](const SqliteStatement& r) {
    seen.push_back(std::to_string(r.Int64(0)) + "|" + std::to_string(r.Double(1)) + "|" + std::string(r.Text(2)) + "|" +
                   (r.IsNull(3) ? "null" : "value") + "|" + (r.OptionalInt64(0).has_value() ? "set" : "unset"));
  });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_THAT(seen, ::testing::ElementsAre("1099511627776|2.500000|a'b|null|set", "0|0.000000||null|unset"));
}

TEST(SqliteDb, ForEachRowBindsItsValuesInOrder) {
  auto db = MemoryDb();
  ASSERT_TRUE(db->Exec("CREATE TABLE t (k TEXT, v INTEGER);"
                       "INSERT INTO t VALUES ('a', 1), ('b', 2), ('b', 3), ('c', 4);")
                  .ok());
  int64_t sum = 0;
  absl::Status s = db->ForEachRow("SELECT v FROM t WHERE k = ?1 AND v >= ?2", {std::string_view("b"), int64_t{3}},
                                  [&](const SqliteStatement& r) { sum += r.Int64(0); });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(sum, 3);
}

TEST(SqliteDb, AResetStatementRunsAgainWithNewBindings) {
  auto db = MemoryDb();
  ASSERT_TRUE(db->Exec("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (5), (6);").ok());
  auto stmt = db->Prepare("SELECT count(*) FROM t WHERE v > ?1");
  ASSERT_TRUE(stmt.ok());
  for (int64_t limit : {0, 5, 6}) {
    stmt->Reset();
    ASSERT_TRUE(stmt->BindInt64(1, limit).ok());
    auto row = stmt->Step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_EQ(stmt->Int64(0), limit == 0 ? 2 : limit == 5 ? 1 : 0);
  }
}

TEST(SqliteDb, TablesColumnsAndSingleValuesAreFoundByName) {
  auto db = MemoryDb();
  ASSERT_TRUE(db->Exec("CREATE TABLE t (a INTEGER, b TEXT); INSERT INTO t VALUES (7, NULL);").ok());
  EXPECT_TRUE(db->HasTable("t"));
  EXPECT_FALSE(db->HasTable("u"));
  EXPECT_TRUE(db->HasColumn("t", "b"));
  EXPECT_FALSE(db->HasColumn("t", "c"));
  auto v = db->QueryInt64("SELECT a FROM t");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->value_or(-1), 7);
  auto none = db->QueryInt64("SELECT a FROM t WHERE a > 100");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST(SqliteDb, BadSqlIsAnErrorWithSqlitesMessage) {
  auto db = MemoryDb();
  auto stmt = db->Prepare("SELEC nothing");
  ASSERT_FALSE(stmt.ok());
  EXPECT_EQ(stmt.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stmt.status().message(), HasSubstr("syntax error"));
  absl::Status exec = db->Exec("INSERT INTO missing VALUES (1)");
  EXPECT_THAT(exec.message(), HasSubstr("no such table"));
  absl::Status rows = db->ForEachRow("SELECT * FROM missing", [](const SqliteStatement&) {});
  EXPECT_FALSE(rows.ok());
}

TEST(SqliteDb, AConstraintViolationFailsTheRunAndTheStatementStaysUsable) {
  auto db = MemoryDb();
  ASSERT_TRUE(db->Exec("CREATE TABLE t (v INTEGER NOT NULL)").ok());
  auto insert = db->Prepare("INSERT INTO t VALUES (?1)");
  ASSERT_TRUE(insert.ok());
  ASSERT_TRUE(insert->BindNull(1).ok());
  absl::Status s = insert->Run();
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(s.message(), HasSubstr("NOT NULL"));
  ASSERT_TRUE(insert->BindInt64(1, 3).ok());
  EXPECT_TRUE(insert->Run().ok());
  EXPECT_EQ(db->QueryInt64("SELECT sum(v) FROM t")->value_or(0), 3);
}

TEST(SqliteDb, OpeningSomethingThatIsNotADatabaseSaysWhy) {
  auto missing = SqliteDb::OpenReadOnly("/nonexistent/dir/trace.sqlite");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);

  std::string path = ::testing::TempDir() + "/not_a_db.sqlite";
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fputs("this is plain text, long enough to fill a header", f);
  std::fclose(f);
  auto text = SqliteDb::OpenReadOnly(path);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(text.status().message(), HasSubstr("not an SQLite database"));
  std::remove(path.c_str());
}

TEST(SqliteDb, AReadWriteFileKeepsWhatWasWrittenAfterClose) {
  std::string path = ::testing::TempDir() + "/rw.sqlite";
  std::remove(path.c_str());
  FILE* f = std::fopen(path.c_str(), "wb");  // an empty file is a valid new database
  ASSERT_NE(f, nullptr);
  std::fclose(f);
  {
    auto db = SqliteDb::OpenReadWrite(path);
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Exec("CREATE TABLE t (v); INSERT INTO t VALUES (42);").ok());
    ASSERT_TRUE((*db)->Close().ok());
  }
  auto db = SqliteDb::OpenReadOnly(path);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ((*db)->QueryInt64("SELECT v FROM t")->value_or(0), 42);
  std::remove(path.c_str());
}

}  // namespace
}  // namespace streamscope
