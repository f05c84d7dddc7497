// Helpers for the Nsight Systems importer tests: paths of the real exports,
// plain-SQL figures computed with the raw sqlite3 API (independently of the
// analyzer's reader), and synthetic exports in the 2.x and 3.x layouts.
#ifndef STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_NSYS_TEST_UTIL_H_
#define STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_NSYS_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace streamscope::nsys_test {

// tests/data/nsys/<file>.
std::string RealExportPath(std::string_view file);

// A temporary directory, removed with its files at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  std::string Path(std::string_view name) const;
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
};

// Runs SQL (several statements) on a database file, creating it; a failure
// fails the current test.
void ExecSql(const std::string& path, const std::string& sql);
// First column of the first row as int64 (0 if none/NULL).
int64_t SqlInt(const std::string& path, const std::string& sql);
// All rows, every value as text ("" for NULL).
std::vector<std::vector<std::string>> SqlRows(const std::string& path, const std::string& sql);
bool SqlHasTable(const std::string& path, const std::string& table);

// Length of the union of the intervals that `select_intervals` returns as
// (s, e) rows, computed in SQL (gaps and islands). "0" if none.
std::string UnionLengthSql(const std::string& select_intervals);

// SQL expression for the pid packed in a globalPid/globalTid column.
std::string PidExpr(const std::string& column);
// Every GPU op of an export as (s, e, d, st, c, pid, bytes) rows, c named
// like OpCategoryName(), unified-memory migrations included (stream -1).
std::string OpsSql(const std::string& path);
// Runtime/driver calls as (s, e, tid, pid, cls, corr) rows.
std::string ApiSql(const std::string& path);

// nsys packing: pid in bits 24-47, tid in bits 0-23, hardware id above.
int64_t GlobalTid(int64_t pid, int64_t tid);
inline int64_t GlobalPid(int64_t pid) { return GlobalTid(pid, 0); }

// A synthetic export's layout. Tables are created empty (apart from the
// metadata, enums, one GPU, one context of `pid` with null stream 7, a
// non-blocking stream 13 and a blocking stream 14); tests insert rows.
struct ExportLayout {
  bool v3 = true;       // 3.x: META_DATA_EXPORT, CONTEXT_INFO, ENUM_*
  std::string version;  // default "3.24.0" / "2.9.1"
  bool meta = true;
  bool kernel = true, memcpy = true, memset = true, sync = true, runtime = true, nvtx = true;
  bool target_info = true;
  int64_t pid = 4242;
};
void CreateExport(const std::string& path, const ExportLayout& layout);

}  // namespace streamscope::nsys_test

#endif  // STREAMSCOPE_TESTS_ANALYZER_IMPORTERS_NSYS_TEST_UTIL_H_
