// CallbackBuffers: records from many application threads reach the writer,
// none lost, while a flush thread takes partial batches.
#include "collector/callback_buffers.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace streamscope::collector {
namespace {

int64_t CountRows(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  int64_t n = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(db);
  return n;
}

TEST(CallbackBuffers, RecordsFromManyThreadsAllReachTheTrace) {
  char tmpl[] = "/tmp/streamscope-buffers-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  WriterOptions o;
  o.path = dir + "/t.sqlite";
  o.thread_name = [](uint32_t) { return std::string("t"); };
  auto w = TraceWriter::Open(o);
  ASSERT_TRUE(w.ok());
  constexpr int kThreads = 4, kPerThread = 3000;
  {
    CallbackBuffers buffers(w->get(), /*batch_records=*/64);
    std::atomic<bool> stop{false};
    std::thread flusher([&] {
      while (!stop.load()) buffers.FlushAll();
    });
    std::vector<std::thread> app;
    for (int t = 0; t < kThreads; ++t) {
      app.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          EventOpRecord e;
          e.op = EventOpKind::kQuery;
          e.event_handle = static_cast<uint64_t>(t);
          e.tid = static_cast<uint32_t>(100 + t);
          e.ts_ns = static_cast<uint64_t>(i);
          e.correlation_id = static_cast<uint32_t>(t * kPerThread + i);
          buffers.Add(e);
        }
      });
    }
    for (auto& a : app) a.join();  // their partial batches outlive them
    stop = true;
    flusher.join();
    buffers.FlushAll();
  }
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  EXPECT_EQ(CountRows(o.path, "SELECT count(*) FROM event_op"), kThreads * kPerThread);
  EXPECT_EQ(CountRows(o.path, "SELECT count(DISTINCT correlation_id) FROM event_op"), kThreads * kPerThread);
  EXPECT_EQ(CountRows(o.path, "SELECT value FROM collector_stat WHERE key='records_dropped_writer'"), 0);
  std::system(("rm -rf " + dir).c_str());
}

}  // namespace
}  // namespace streamscope::collector
