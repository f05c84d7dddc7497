// The benchmark's baseline: reads the same rows and columns that
// `streamscope report` imports (GPU ops, API calls, syncs, NVTX ranges) with
// plain prepared SELECTs on one connection, one thread, and only sums them.
//
//   plain_read TRACE.sqlite
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>

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
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: plain_read TRACE.sqlite\n");
    return 2;
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(argv[1], &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return 1;
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
  for (const char* q : queries) sum += ReadAll(db, q, &rows);
  sqlite3_close(db);
  std::printf("plain_read: %lld rows (checksum %lld)\n", static_cast<long long>(rows), static_cast<long long>(sum));
  return 0;
}
