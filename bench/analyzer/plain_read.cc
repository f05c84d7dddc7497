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

// A query below: the columns of a table; `largest`: one of the four tables
// the importer reads from their pages.
struct Query {
  std::string_view table;
  bool largest;
  std::vector<std::string_view> columns;
};

// Reads one of the four largest tables from its pages, as the importer does.
void ReadDirect(streamscope::SqliteDb& db, const Query& q, int64_t* rows, int64_t* sum) {
  const int n = static_cast<int>(q.columns.size());
  absl::StatusOr<streamscope::TableScanPlan> plan = streamscope::PlanTableScan(db, q.table, q.columns);
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
  const Query queries[] = {
      {"kernel", true, {"id", "start_ns", "end_ns", "device_id", "stream_id", "correlation_id", "name_id", "graph_id"}},
      {"memcpy",
       true,
       {"id", "start_ns", "end_ns", "device_id", "stream_id", "correlation_id", "bytes", "copy_kind", "src_kind",
        "dst_kind", "is_async", "src_device_id", "dst_device_id", "graph_id"}},
      {"memset",
       true,
       {"id", "start_ns", "end_ns", "device_id", "stream_id", "correlation_id", "bytes", "memory_kind", "is_async",
        "graph_id"}},
      {"api_call",
       true,
       {"id", "domain", "cbid", "name_id", "tid", "start_ns", "end_ns", "correlation_id", "return_value"}},
      {"sync", false, {"id", "kind", "start_ns", "end_ns", "stream_id", "event_id", "correlation_id"}},
      {"nvtx_range", false, {"id", "tid", "name_id", "domain_id", "start_ns", "end_ns", "is_push_pop", "depth"}},
  };
  int64_t rows = 0, sum = 0;
  for (const Query& q : queries) {
    if (direct && q.largest) {
      ReadDirect(*wrapped, q, &rows, &sum);
      continue;
    }
    std::string sql = "SELECT ";
    for (size_t c = 0; c < q.columns.size(); ++c) sql.append(c == 0 ? "" : ", ").append(q.columns[c]);
    sql.append(" FROM ").append(q.table);
    sum += ReadAll(db, sql.c_str(), &rows);
  }
  sqlite3_close(db);
  std::printf("plain_read: %lld rows (checksum %lld)\n", static_cast<long long>(rows), static_cast<long long>(sum));
  return 0;
}
