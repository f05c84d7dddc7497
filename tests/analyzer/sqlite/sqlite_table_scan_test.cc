// Reading a table straight from the file's pages: every row and value the
// same as SQLite's SELECT (integers of every width, NULLs, rows that lack
// later columns, records spilling to overflow pages, deep b-trees, page
// sizes from 512 to 65536 bytes), and a refusal, never a crash or a wrong
// row, for everything it does not read (REAL and TEXT values, a WAL beside
// the file, WITHOUT ROWID tables, defaults, damaged pages).
#include "analyzer/sqlite/sqlite_table_scan.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace streamscope {
namespace {

using ::testing::HasSubstr;

struct Row {
  std::vector<std::optional<int64_t>> values;
  bool operator==(const Row&) const = default;
};

std::string TempPath(const std::string& name) {
  std::string path = ::testing::TempDir() + "/" + name;
  for (const char* suffix : {"", "-wal", "-journal"}) std::remove((path + suffix).c_str());
  return path;
}

std::unique_ptr<SqliteDb> NewDb(const std::string& path, int page_size = 4096) {
  std::ofstream(path).close();
  auto db = SqliteDb::OpenReadWrite(path);
  EXPECT_TRUE(db.ok()) << db.status();
  EXPECT_TRUE((*db)->Exec(absl::StrCat("PRAGMA page_size = ", page_size)).ok());
  return std::move(*db);
}

std::unique_ptr<SqliteDb> Reopen(const std::string& path) {
  auto db = SqliteDb::OpenReadOnly(path);
  EXPECT_TRUE(db.ok()) << db.status();
  return std::move(*db);
}

std::vector<Row> ThroughSqlite(SqliteDb& db, const std::string& sql, int columns) {
  std::vector<Row> rows;
  absl::Status s = db.ForEachRow(sql, [&](const SqliteStatement& r) {
    Row row;
    for (int c = 0; c < columns; ++c) row.values.push_back(r.OptionalInt64(c));
    rows.push_back(row);
  });
  EXPECT_TRUE(s.ok()) << s;
  return rows;
}

absl::StatusOr<std::vector<Row>> Direct(SqliteDb& db, std::string_view table,
                                        std::initializer_list<std::string_view> columns) {
  absl::StatusOr<TableScanPlan> plan = PlanTableScan(db, table, columns);
  if (!plan.ok()) return plan.status();
  std::vector<Row> rows;
  absl::Status s = ScanTable(*plan, [&](const ScannedRow& r) {
    Row row;
    for (size_t c = 0; c < columns.size(); ++c) {
      const int col = static_cast<int>(c);
      row.values.push_back(r.OptionalInt64(col));
      EXPECT_EQ(r.IsNull(col), !r.OptionalInt64(col).has_value());
      EXPECT_EQ(r.Int64(col), r.OptionalInt64(col).value_or(0));
    }
    rows.push_back(row);
  });
  if (!s.ok()) return s;
  return rows;
}

// Integers of every serial type, negative and positive, at their limits.
std::vector<int64_t> EdgeIntegers() {
  std::vector<int64_t> v = {0, 1, -1, 127, -128, 128, 32767, -32768, 32768, 8388607, -8388608, 8388608};
  for (int bits : {31, 32, 47, 48, 62, 63}) {
    const int64_t p = bits == 63 ? INT64_MAX : (int64_t{1} << bits);
    v.insert(v.end(), {p, p - 1, -p, bits == 63 ? INT64_MIN : -p - 1});
  }
  return v;
}

// A table of integers and NULLs over many pages; a few rows deleted, a
// column added after some rows were written.
void FillIntegers(SqliteDb& db, int rows) {
  ASSERT_TRUE(db.Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER NOT NULL, b INTEGER, c INTEGER)").ok());
  ASSERT_TRUE(db.Exec("BEGIN").ok());
  auto insert = db.Prepare("INSERT INTO t (id, a, b, c) VALUES (?1, ?2, ?3, ?4)");
  ASSERT_TRUE(insert.ok());
  const std::vector<int64_t> edge = EdgeIntegers();
  std::mt19937_64 rng(7);
  for (int i = 0; i < rows; ++i) {
    const int64_t id = 3 * int64_t{i} + (i % 2);  // gaps between rowids
    const int64_t a = edge[i % edge.size()];
    const SqlValue b = i % 5 == 0 ? SqlValue(std::monostate()) : SqlValue(static_cast<int64_t>(rng()));
    ASSERT_TRUE(insert->BindAll({id, a, b, int64_t{i % 3 == 0 ? 0 : 1}}).ok());  // c: serial types 8 and 9
    ASSERT_TRUE(insert->Run().ok());
  }
  ASSERT_TRUE(db.Exec("DELETE FROM t WHERE id % 7 = 0").ok());
  ASSERT_TRUE(db.Exec("ALTER TABLE t ADD COLUMN d INTEGER").ok());  // rows so far lack d
  ASSERT_TRUE(db.Exec("INSERT INTO t (a, b, c, d) VALUES (5, 6, 7, 8), (-5, NULL, 7, -8)").ok());
  ASSERT_TRUE(db.Exec("COMMIT").ok());
}

TEST(SqliteTableScan, EveryRowAndValueIsSqlitesAtEveryPageSize) {
  for (int page_size : {512, 4096, 65536}) {
    SCOPED_TRACE(page_size);
    const std::string path = TempPath(absl::StrCat("ints", page_size, ".sqlite"));
    {
      auto db = NewDb(path, page_size);
      FillIntegers(*db, 20000);
    }
    auto db = Reopen(path);
    const std::vector<Row> want = ThroughSqlite(*db, "SELECT d, id, c, a, b FROM t", 5);
    ASSERT_GT(want.size(), 17000u);
    absl::StatusOr<std::vector<Row>> got = Direct(*db, "t", {"d", "id", "c", "a", "b"});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(*got == want);
    // A subset of the columns, in another order.
    got = Direct(*db, "t", {"b", "ID"});
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_TRUE(*got == ThroughSqlite(*db, "SELECT b, id FROM t", 2));
  }
}

TEST(SqliteTableScan, RecordsOnOverflowPagesAreReadWhole) {
  const std::string path = TempPath("overflow.sqlite");
  {
    auto db = NewDb(path, 1024);
    ASSERT_TRUE(db->Exec("CREATE TABLE big (id INTEGER PRIMARY KEY, x INTEGER, blob_col BLOB, y INTEGER)").ok());
    // Blobs of up to 5 pages: y, after the blob, lies on an overflow page.
    ASSERT_TRUE(db->Exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) "
                         "INSERT INTO big (x, blob_col, y) SELECT i * 1000003, randomblob((i * 17) % 5000), -i FROM n")
                    .ok());
  }
  auto db = Reopen(path);
  absl::StatusOr<std::vector<Row>> got = Direct(*db, "big", {"id", "x", "y"});
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 300u);
  EXPECT_TRUE(*got == ThroughSqlite(*db, "SELECT id, x, y FROM big", 3));
}

TEST(SqliteTableScan, ValuesItDoesNotReadAsSqliteWouldAreRefused) {
  const std::string path = TempPath("refused.sqlite");
  {
    auto db = NewDb(path);
    ASSERT_TRUE(db->Exec("CREATE TABLE r (id INTEGER PRIMARY KEY, v INTEGER, note TEXT);"
                         "INSERT INTO r (v, note) VALUES (1, 'one'), (2.5, 'two'), ('7', 'three'), ('x', 'four');"
                         "CREATE TABLE d (id INTEGER PRIMARY KEY, v INTEGER DEFAULT 3);"
                         "CREATE TABLE w (k INTEGER PRIMARY KEY, v INTEGER) WITHOUT ROWID;"
                         "CREATE TABLE g (id INTEGER PRIMARY KEY, v INTEGER, twice INTEGER AS (v * 2));"
                         "CREATE TABLE pd (id INTEGER PRIMARY KEY DESC, v INTEGER);"
                         "CREATE TABLE huge (id INTEGER PRIMARY KEY, v INTEGER, b BLOB);"
                         "INSERT INTO huge (v, b) VALUES (1, randomblob(100)), (2, randomblob(1100000));"
                         "CREATE VIEW view_r AS SELECT * FROM r;")
                    .ok());
  }
  auto db = Reopen(path);
  // 2.5 is stored as a REAL: refused at its row, after the first.
  absl::StatusOr<std::vector<Row>> got = Direct(*db, "r", {"id", "v"});
  EXPECT_EQ(got.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(got.status().message(), HasSubstr("not an integer"));
  // Text in a requested column, even unread by SQLite's affinity rules.
  EXPECT_EQ(Direct(*db, "r", {"note"}).status().code(), absl::StatusCode::kFailedPrecondition);
  // Columns not asked for may hold anything.
  EXPECT_TRUE(Direct(*db, "r", {"id"}).ok());
  // A record over 1 MiB is left to SQLite.
  got = Direct(*db, "huge", {"id", "v"});
  EXPECT_EQ(got.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(got.status().message(), HasSubstr("1 MiB"));
  for (auto [table, column, why] : {std::tuple{"d", "v", "default"},
                                    {"w", "v", "WITHOUT ROWID"},
                                    {"g", "v", "generated"},
                                    {"r", "missing", "no column"},
                                    {"view_r", "v", "not a table"},
                                    {"absent", "v", "not a table"}}) {
    SCOPED_TRACE(table);
    absl::StatusOr<TableScanPlan> plan = PlanTableScan(*db, table, {column});
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(plan.status().message(), HasSubstr(why));
  }
  // INTEGER PRIMARY KEY DESC is a column of its own, not the rowid: read
  // from the record, as SQLite reads it.
  absl::StatusOr<TableScanPlan> desc = PlanTableScan(*db, "pd", {"id"});
  ASSERT_TRUE(desc.ok()) << desc.status();
  EXPECT_EQ(desc->field, std::vector<int>{0});
  absl::StatusOr<TableScanPlan> rowid = PlanTableScan(*db, "r", {"v", "id"});
  ASSERT_TRUE(rowid.ok()) << rowid.status();
  EXPECT_EQ(rowid->field, (std::vector<int>{1, -1}));
}

TEST(SqliteTableScan, AFileWithALogOrJournalBesideItIsReadThroughSqlite) {
  const std::string path = TempPath("logged.sqlite");
  {
    auto db = NewDb(path);
    ASSERT_TRUE(db->Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER); INSERT INTO t (v) VALUES (1)").ok());
  }
  auto db = Reopen(path);
  ASSERT_TRUE(PlanTableScan(*db, "t", {"v"}).ok());
  for (const char* suffix : {"-wal", "-journal"}) {
    std::ofstream(path + suffix).close();
    absl::StatusOr<TableScanPlan> plan = PlanTableScan(*db, "t", {"v"});
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kFailedPrecondition) << suffix;
    EXPECT_THAT(plan.status().message(), HasSubstr("journal"));
    std::remove((path + suffix).c_str());
  }
}

// Every byte of a small file changed in turn, to a few values: each scan
// either gives SQLite's rows or is refused; none crashes or reads out of
// bounds (the sanitizer builds run this too).
TEST(SqliteTableScan, DamagedPagesAreRefusedNeverMisread) {
  const std::string path = TempPath("damaged.sqlite");
  {
    auto db = NewDb(path, 512);
    FillIntegers(*db, 300);
  }
  std::vector<char> good;
  {
    std::ifstream in(path, std::ios::binary);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::vector<Row> want;
  {
    auto db = Reopen(path);
    want = ThroughSqlite(*db, "SELECT id, a, b, c, d FROM t", 5);
  }
  const std::string damaged = TempPath("damaged-copy.sqlite");
  int refused = 0, same = 0, differ = 0;
  std::mt19937 rng(11);
  for (size_t at = 100; at < good.size(); at += 1 + rng() % 7) {
    std::vector<char> bytes = good;
    bytes[at] = static_cast<char>(std::vector<uint8_t>{0x00, 0xff, 0x0d, 0x05, 0x80}[rng() % 5]);
    {
      std::ofstream out(damaged, std::ios::binary | std::ios::trunc);
      out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    auto db = SqliteDb::OpenReadOnly(damaged);
    if (!db.ok()) continue;
    absl::StatusOr<std::vector<Row>> got = Direct(**db, "t", {"id", "a", "b", "c", "d"});
    if (!got.ok()) {
      EXPECT_EQ(got.status().code(), absl::StatusCode::kFailedPrecondition) << got.status();
      ++refused;
    } else if (*got == want) {
      ++same;
    } else {
      // A changed value in a well-formed record: SQLite reads the same, and
      // what SQLite calls damaged is refused.
      std::vector<Row> sqlite;
      absl::Status s = (*db)->ForEachRow("SELECT id, a, b, c, d FROM t", [&](const SqliteStatement& r) {
        Row row;
        for (int c = 0; c < 5; ++c) row.values.push_back(r.OptionalInt64(c));
        sqlite.push_back(row);
      });
      if (s.ok()) {
        EXPECT_TRUE(*got == sqlite) << "byte " << at;
      } else {
        ADD_FAILURE() << "byte " << at << ": read from the pages, where SQLite says " << s;
      }
      ++differ;
    }
  }
  EXPECT_GT(refused, 0);
  EXPECT_GT(same, 0);
  EXPECT_GT(differ, 0);
}

TEST(SqliteTableScan, ARefusalMidwayDropsTheRowsAndReadsThroughSqlite) {
  const std::string path = TempPath("midway.sqlite");
  {
    auto db = NewDb(path);
    ASSERT_TRUE(db->Exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER);"
                         "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) "
                         "INSERT INTO t (v) SELECT i FROM n; UPDATE t SET v = 500.5 WHERE id = 500")
                    .ok());
  }
  auto db = Reopen(path);
  std::vector<int64_t> read;
  int resets = 0;
  const int64_t refused = TableReader::RefusedSoFar();
  absl::Status s = ReadDirectOrThroughSqlite(
      *db,
      [&] {
        ++resets;
        read.clear();
      },
      [&](TableReader& tables) { return tables.Read("t", {"v"}, [&](const auto& r) { read.push_back(r.Int64(0)); }); });
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(resets, 1);
  EXPECT_EQ(TableReader::RefusedSoFar(), refused + 1);
  ASSERT_EQ(read.size(), 1000u);
  EXPECT_EQ(read[499], 500);  // SQLite's conversion of 500.5
  EXPECT_EQ(read[999], 1000);

  // Without a refusal: no reset; with STREAMSCOPE_DIRECT_READ=0: never direct.
  for (const char* env : {"1", "0"}) {
    setenv("STREAMSCOPE_DIRECT_READ", env, 1);
    read.clear();
    resets = 0;
    bool direct = false;
    s = ReadDirectOrThroughSqlite(
        *db, [&] { ++resets; },
        [&](TableReader& tables) {
          return tables.Read("t", {"id"}, [&](const auto& r) {
            direct = std::is_same_v<std::decay_t<decltype(r)>, ScannedRow>;
            read.push_back(r.Int64(0));
          });
        });
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(resets, 0);
    EXPECT_EQ(read.size(), 1000u);
    EXPECT_EQ(direct, std::string(env) == "1");
  }
  unsetenv("STREAMSCOPE_DIRECT_READ");
}

}  // namespace
}  // namespace streamscope
