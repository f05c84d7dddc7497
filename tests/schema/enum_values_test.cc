// schema/enum_values.h against the enum_* tables of the embedded DDL: every
// value/name pair of the header is a row of its table, every row is in the
// header, and every enum_* table has a list in the header.
#include "schema/enum_values.h"

#include <sqlite3.h>

#include <map>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "schema/schema.h"

namespace streamscope {
namespace {

class EnumValues : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    const std::string create(schema::CreateSql());
    ASSERT_EQ(sqlite3_exec(db_, create.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db_);
  }
  void TearDown() override { sqlite3_close(db_); }

  // Every (value, name) row of `table`.
  std::map<int64_t, std::string> Rows(std::string_view table) {
    std::map<int64_t, std::string> rows;
    const std::string sql = "SELECT value, name FROM \"" + std::string(table) + "\"";
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr), SQLITE_OK) << sql;
    while (stmt != nullptr && sqlite3_step(stmt) == SQLITE_ROW) {
      rows[sqlite3_column_int64(stmt, 0)] = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
    }
    sqlite3_finalize(stmt);
    return rows;
  }

  std::set<std::string> EnumTablesOfTheSchema() {
    std::set<std::string> names;
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_,
                                 "SELECT name FROM sqlite_master WHERE type = 'table' AND "
                                 "name LIKE 'enum\\_%' ESCAPE '\\'",
                                 -1, &stmt, nullptr),
              SQLITE_OK);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
      names.insert(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
    }
    sqlite3_finalize(stmt);
    return names;
  }

  sqlite3* db_ = nullptr;
};

TEST_F(EnumValues, EveryEnumTableOfTheSchemaHasItsListInTheHeaderAndNoOther) {
  std::set<std::string> in_header;
  for (const schema::EnumTable& t : schema::kEnumTables) in_header.insert(std::string(t.table));
  const std::set<std::string> in_schema = EnumTablesOfTheSchema();
  EXPECT_GE(in_schema.size(), 6u);
  EXPECT_EQ(in_header, in_schema);
}

TEST_F(EnumValues, EveryHeaderValueIsARowWithTheSameName) {
  for (const schema::EnumTable& t : schema::kEnumTables) {
    const auto rows = Rows(t.table);
    for (size_t i = 0; i < t.count; ++i) {
      auto it = rows.find(t.values[i].value);
      ASSERT_NE(it, rows.end()) << t.table << ": value " << t.values[i].value << " ('" << t.values[i].name
                                << "') is not in the table";
      EXPECT_EQ(it->second, t.values[i].name) << t.table << " value " << t.values[i].value;
    }
  }
}

TEST_F(EnumValues, EveryRowOfTheSchemaIsInTheHeader) {
  for (const schema::EnumTable& t : schema::kEnumTables) {
    std::map<int64_t, std::string_view> header;
    for (size_t i = 0; i < t.count; ++i) {
      EXPECT_TRUE(header.emplace(t.values[i].value, t.values[i].name).second)
          << t.table << ": value " << t.values[i].value << " twice in the header";
    }
    for (const auto& [value, name] : Rows(t.table)) {
      auto it = header.find(value);
      ASSERT_NE(it, header.end()) << t.table << ": row (" << value << ", '" << name
                                  << "') is missing from schema/enum_values.h";
      EXPECT_EQ(it->second, name) << t.table << " value " << value;
    }
  }
}

TEST(EnumValueNames, ConstantsUsedByTheAnalyzerHaveTheirSchemaMeaning) {
  // Known answers from CUPTI's numbering, which the tables copy.
  EXPECT_EQ(schema::copy_kind::kHtoD, 1);
  EXPECT_EQ(schema::copy_kind::kDtoH, 2);
  EXPECT_EQ(schema::copy_kind::kDtoD, 8);
  EXPECT_EQ(schema::copy_kind::kPtoP, 10);
  EXPECT_EQ(schema::stream_kind::kLegacyDefault, 1);
  EXPECT_EQ(schema::sync_kind::kContextSynchronize, 4);
}

}  // namespace
}  // namespace streamscope
