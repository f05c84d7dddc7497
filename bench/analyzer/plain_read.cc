// The benchmark's baseline: reads the same rows and columns that
// `streamscope report` imports (GPU ops, API calls, syncs, NVTX ranges) with
// plain prepared SELECTs on one connection, one thread, and only sums them.
// With --direct, the four largest tables (kernels, copies, memsets, API
// calls) are read from the file's pages the way the importer reads them
// (analyzer/sqlite/sqlite_table_scan.h), still on one thread: the floor of
// reading them without SQLite's statements.
//
//   plain_read [--direct] TRACE.sqlite
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/sqlite/sqlite_table_scan.h"

namespace {
int64_t ReadAll(sqlite3* db, const char* sql, int64_t* rows) {
  sqlite3_stmt* s = nullptr;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK) {
    std::fprintf(stderr, "plain_read: %s\n", sqlite3_errmsg(db));
    return 0;
  }
  int64_t sum = 0;
  int cols = sqlite3_column_count(s);
  while (sqlite3_step(s) == SQLITE_ROW) {
    for (int c = 0; c < cols; ++c) sum += sqlite3_column_int64(s, c);
    ++*rows;
  }
  sqlite3_finalize(s);
  return sum;
}

// Reads the table of `sql` (one of the queries below) from its pages, with
// the query's columns; false for a table other than the four largest.
bool ReadDirect(streamscope::SqliteDb& db, std::string_view sql, int64_t* rows, int64_t* sum) {
  const size_t from = sql.find(" FROM ");
  const std::string table(sql.substr(from + 6));
  if (table != "kernel" && table != "memcpy" && table != "memset" && table != "api_call") return false;
  std::vector<std::string> names;
  std::string_view list = sql.substr(7, from - 7);
  for (size_t at = 0; at <= list.size();) {
    size_t comma = list.find(", ", at);
    if (comma == std::string_view::npos) comma = list.size();
    names.emplace_back(list.substr(at, comma - at));
    at = comma + 2;
  }
  std::vector<std::string_view> columns(names.begin(), names.end());
  const int n = static_cast<int>(columns.size());
  absl::StatusOr<streamscope::TableScanPlan> plan = streamscope::PlanTableScan(db, table, columns);
  absl::Status s = plan.ok() ? streamscope::ScanTable(*plan,
                                                      [&](const streamscope::ScannedRow& r) {
                                                        for (int c = 0; c < n; ++c) *sum += r.Int64(c);
                                                        ++*rows;
                                                      })
                             : plan.status();
  if (!s.ok()) {
    std::fprintf(stderr, "plain_read: %s\n", std::string(s.message()).c_str());
    std::exit(1);
  }
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  const bool direct = argc == 3 && std::string_view(argv[1]) == "--direct";
  if (argc != 2 && !direct) {
    std::fprintf(stderr, "usage: plain_read [--direct] TRACE.sqlite\n");
    return 2;
  }
  const char* path = argv[argc - 1];
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return 1;
  std::unique_ptr<streamscope::SqliteDb> wrapped;
  if (direct) {
    auto opened = streamscope::SqliteDb::OpenReadOnly(path);
    if (!opened.ok()) return 1;
    wrapped = std::move(*opened);
  }
  const char* queries[] = {
      "SELECT id, start_ns, end_ns, device_id, stream_id, correlation_id, name_id, graph_id FROM kernel",
      "SELECT id, start_ns, end_ns, device_id, stream_id, correlation_id, bytes, copy_kind, src_kind, dst_kind, "
      "is_async, src_device_id, dst_device_id, graph_id FROM memcpy",
      "SELECT id, start_ns, end_ns, device_id, stream_id, correlation_id, bytes, memory_kind, is_async, graph_id "
      "FROM memset",
      "SELECT id, domain, cbid, name_id, tid, start_ns, end_ns, correlation_id, return_value FROM api_call",
      "SELECT id, kind, start_ns, end_ns, stream_id, event_id, correlation_id FROM sync",
      "SELECT id, tid, name_id, domain_id, start_ns, end_ns, is_push_pop, depth FROM nvtx_range",
  };
  int64_t rows = 0, sum = 0;
  for (const char* q : queries) {
    if (!direct || !ReadDirect(*wrapped, q, &rows, &sum)) sum += ReadAll(db, q, &rows);
  }
  sqlite3_close(db);
  std::printf("plain_read: %lld rows (checksum %lld)\n", static_cast<long long>(rows), static_cast<long long>(sum));
  return 0;
}
