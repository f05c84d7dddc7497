#include "schema/schema.h"

#include <sqlite3.h>

#include <string>

#include "gtest/gtest.h"

namespace streamscope {
namespace {

int CountRows(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
  int n = -1;
  if (sqlite3_step(stmt) == SQLITE_ROW) n = sqlite3_column_int(stmt, 0);
  sqlite3_finalize(stmt);
  return n;
}

TEST(Schema, CreateSqlBuildsEveryRequiredTableInAFreshDatabase) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  std::string create(schema::CreateSql());
  ASSERT_EQ(sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  int count = 0;
  const std::string_view* tables = schema::RequiredTables(&count);
  ASSERT_GT(count, 10);
  for (int i = 0; i < count; ++i) {
    EXPECT_EQ(CountRows(db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='" +
                                std::string(tables[i]) + "'"),
              1)
        << tables[i];
  }
  EXPECT_EQ(CountRows(db, "PRAGMA user_version"), schema::Version());
  std::string finalize(schema::FinalizeSql());
  ASSERT_FALSE(finalize.empty());
  ASSERT_EQ(sqlite3_exec(db, finalize.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  // Finalize is idempotent: a second run must not fail.
  ASSERT_EQ(sqlite3_exec(db, finalize.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  EXPECT_GE(CountRows(db, "SELECT count(*) FROM sqlite_master WHERE type='index' AND name='api_call_correlation'"), 1);
  sqlite3_close(db);
}

TEST(Schema, VersionMatchesTheDdlHeaderLine) {
  std::string marker = "-- schema_version: " + std::to_string(schema::Version());
  EXPECT_NE(schema::FullSql().find(marker), std::string_view::npos);
  EXPECT_NE(schema::FullSql().find("PRAGMA user_version = " + std::to_string(schema::Version())),
            std::string_view::npos);
}

TEST(Schema, GpuOpViewJoinsEachOpToItsRuntimeCall) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  std::string create(schema::CreateSql());
  ASSERT_EQ(sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  const char* rows =
      "INSERT INTO string VALUES (1,'k'),(2,'cudaLaunchKernel'),(3,'cuLaunchKernel');"
      "INSERT INTO kernel(id,start_ns,end_ns,device_id,stream_id,correlation_id,name_id)"
      " VALUES (1,100,200,0,7,42,1);"
      "INSERT INTO api_call(id,domain,cbid,name_id,tid,start_ns,end_ns,correlation_id)"
      " VALUES (1,2,0,3,5,50,60,42),(2,1,0,2,5,40,70,42);";
  ASSERT_EQ(sqlite3_exec(db, rows, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  EXPECT_EQ(CountRows(db, "SELECT count(*) FROM gpu_op_with_api"), 1);
  EXPECT_EQ(CountRows(db, "SELECT api_id FROM gpu_op_with_api"), 2);
  EXPECT_EQ(CountRows(db, "SELECT queue_delay_ns FROM gpu_op_with_api"), 30);
  EXPECT_EQ(CountRows(db, "SELECT started_during_call FROM gpu_op_with_api"), 0);
  sqlite3_close(db);
}

TEST(Schema, AnOpThatStartedDuringItsCallHasQueueDelayZero) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  std::string create(schema::CreateSql());
  ASSERT_EQ(sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  // A synchronous copy: the call [40, 500) returns after the copy [100, 400).
  const char* rows =
      "INSERT INTO string VALUES (1,'cudaMemcpy');"
      "INSERT INTO memcpy(id,start_ns,end_ns,device_id,stream_id,correlation_id,copy_kind,bytes,src_kind,dst_kind,"
      "is_async) VALUES (1,100,400,0,7,42,1,64,1,3,0);"
      "INSERT INTO api_call(id,domain,cbid,name_id,tid,start_ns,end_ns,correlation_id)"
      " VALUES (1,1,0,1,5,40,500,42);";
  ASSERT_EQ(sqlite3_exec(db, rows, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
  EXPECT_EQ(CountRows(db, "SELECT queue_delay_ns FROM gpu_op_with_api"), 0);
  EXPECT_EQ(CountRows(db, "SELECT started_during_call FROM gpu_op_with_api"), 1);
  sqlite3_close(db);
}

TEST(Schema, UpgradeFromEveryReadableVersionReplacesTheViews) {
  for (int from = schema::OldestReadableVersion(); from < schema::Version(); ++from) {
    std::string sql = schema::UpgradeSql(from);
    EXPECT_NE(sql.find("CREATE VIEW gpu_op_with_api"), std::string::npos) << from;
    EXPECT_NE(sql.find("MAX(0, o.start_ns - a.end_ns)"), std::string::npos) << from;
    EXPECT_EQ(sql.find("DELETE FROM enum_copy_kind") != std::string::npos, from < 2) << from;
    EXPECT_NE(sql.find("PRAGMA user_version = " + std::to_string(schema::Version())), std::string::npos) << from;
  }
  EXPECT_EQ(schema::UpgradeSql(schema::Version()), "");
}

}  // namespace
}  // namespace streamscope
