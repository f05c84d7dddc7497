// Reads integer columns of a rowid table straight from the database file's
// b-tree pages (the SQLite file format, sqlite.org/fileformat2.html),
// without stepping a SELECT through SQLite's virtual machine: at 10M rows
// the decoding takes a fraction of the time sqlite3_step and
// sqlite3_column_int64 take, and the largest trace tables are read in a
// third of the time.
//
// Only where the result is exactly what `SELECT columns FROM table` gives:
// a rowid table in a file without a write-ahead log or a rollback journal
// beside it, every requested value an integer or NULL (a column a row
// lacks read as NULL when the column has no default), rows in rowid order.
// Anything else (a WAL or journal, a REAL or TEXT value, a page that is not
// where or what it should be) stops the scan with a FAILED_PRECONDITION
// that says why, and the caller reads the table through SQLite instead
// (which also gives SQLite's own error for a damaged file). Rows given
// before such a stop must then be dropped by the caller.
#ifndef STREAMSCOPE_ANALYZER_SQLITE_SQLITE_TABLE_SCAN_H_
#define STREAMSCOPE_ANALYZER_SQLITE_SQLITE_TABLE_SCAN_H_

#include <array>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope {

// At most this many columns are read per row.
inline constexpr int kMaxScannedColumns = 32;

// One row of a scan, read as SqliteStatement reads integer columns:
// column i is the i-th requested column.
class ScannedRow {
 public:
  bool IsNull(int col) const { return null_[col]; }
  int64_t Int64(int col) const { return value_[col]; }  // NULL -> 0
  std::optional<int64_t> OptionalInt64(int col) const {
    if (null_[col]) return std::nullopt;
    return value_[col];
  }

 private:
  friend class TableScanner;
  std::array<int64_t, kMaxScannedColumns> value_{};
  std::array<bool, kMaxScannedColumns> null_{};
};

// Where a table's rows are and which record field each requested column
// is: found through an SQLite connection, read on any thread.
struct TableScanPlan {
  std::string path;
  std::string table;
  uint32_t root_page = 0;
  uint32_t page_size = 0;
  uint32_t usable_size = 0;  // page size less the reserved bytes per page
  uint32_t page_count = 0;
  // Per requested column its field in the record; -1: the rowid (an
  // INTEGER PRIMARY KEY column).
  std::vector<int> field;
};

// FAILED_PRECONDITION (why) when the table cannot be read from its pages;
// an SQLite error as such.
absl::StatusOr<TableScanPlan> PlanTableScan(SqliteDb& db, std::string_view table,
                                            std::span<const std::string_view> columns);
inline absl::StatusOr<TableScanPlan> PlanTableScan(SqliteDb& db, std::string_view table,
                                                   std::initializer_list<std::string_view> columns) {
  return PlanTableScan(db, table, std::span<const std::string_view>(columns.begin(), columns.size()));
}

// False under STREAMSCOPE_DIRECT_READ=0: every table is read through
// SQLite (to compare the two, or to rule this reader out).
bool DirectTableReadsAllowed();

// Calls fn(row) for every row of the table in rowid order. OK when every
// row was given; FAILED_PRECONDITION (why) when it stopped, maybe after
// some rows; NOT_FOUND when the file cannot be opened.
absl::Status ScanTable(const TableScanPlan& plan, absl::FunctionRef<void(const ScannedRow&)> fn);

// Reads whole tables, straight from the file's pages where allowed
// (DirectTableReadsAllowed), through `SELECT columns FROM table` otherwise.
// fn is called with a ScannedRow or an SqliteStatement (a generic lambda).
class TableReader {
 public:
  TableReader(SqliteDb& db, bool direct) : db_(db), direct_(direct) {}
  // Whether a direct read was refused: the caller drops what it was given
  // and reads again through SQLite (ReadDirectOrThroughSqlite).
  bool refused() const { return refused_; }
  // Direct reads refused by every TableReader of the process so far (tests
  // check that a trace's tables were read from their pages).
  static int64_t RefusedSoFar();

  template <typename Fn>
  absl::Status Read(std::string_view table, std::initializer_list<std::string_view> columns, Fn&& fn) {
    if (direct_) {
      absl::StatusOr<TableScanPlan> plan = PlanTableScan(db_, table, columns);
      absl::Status s = plan.ok() ? ScanTable(*plan, [&](const ScannedRow& r) { fn(r); }) : plan.status();
      if (!s.ok()) CountRefusal();
      refused_ = refused_ || !s.ok();
      return s;
    }
    return db_.ForEachRow(SelectSql(table, columns), [&](const SqliteStatement& r) { fn(r); });
  }

 private:
  static void CountRefusal();
  static std::string SelectSql(std::string_view table, std::initializer_list<std::string_view> columns);
  SqliteDb& db_;
  const bool direct_;
  bool refused_ = false;
};

// read(TableReader&) reads its tables directly; if one was refused,
// reset() drops every row read, and read runs again through SQLite.
template <typename Reset, typename Read>
absl::Status ReadDirectOrThroughSqlite(SqliteDb& db, Reset&& reset, Read&& read) {
  if (DirectTableReadsAllowed()) {
    TableReader direct(db, true);
    absl::Status s = read(direct);
    if (!direct.refused()) return s;
    reset();
  }
  TableReader through_sqlite(db, false);
  return read(through_sqlite);
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_SQLITE_SQLITE_TABLE_SCAN_H_
