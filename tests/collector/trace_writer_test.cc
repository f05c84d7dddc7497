// Writer tests: records in, SQLite rows out (read back with plain SQL).
#include "collector/trace_writer.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>

#include "schema/schema.h"

namespace streamscope::collector {
namespace {

class Db {
 public:
  explicit Db(const std::string& path) {
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  }
  ~Db() { sqlite3_close(db_); }
  int64_t Int(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(db_);
    int64_t v = -1;
    if (s != nullptr && sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
  }
  std::string Text(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(db_);
    std::string v = "<none>";
    if (s != nullptr && sqlite3_step(s) == SQLITE_ROW) {
      const unsigned char* t = sqlite3_column_text(s, 0);
      v = t ? reinterpret_cast<const char*>(t) : "<null>";
    }
    sqlite3_finalize(s);
    return v;
  }

 private:
  sqlite3* db_ = nullptr;
};

class TraceWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/streamscope-writer-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/t.sqlite";
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  WriterOptions Options() {
    WriterOptions o;
    o.path = path_;
    o.api_name = [](ApiDomain d, uint32_t cbid) -> std::string {
      if (d == ApiDomain::kRuntime && cbid == 211) return "cudaLaunchKernel";
      if (d == ApiDomain::kRuntime && cbid == 312) return "cudaLaunchKernel_ptsz";
      if (d == ApiDomain::kRuntime && cbid == 41) return "cudaMemcpyAsync";
      if (d == ApiDomain::kDriver && cbid == 307) return "cuLaunchKernel";
      return {};
    };
    o.thread_name = [](uint32_t tid) { return "thread" + std::to_string(tid); };
    return o;
  }
  std::string dir_, path_;
};

KernelRecord Kernel(uint64_t start, uint32_t stream, uint32_t corr, std::string_view name) {
  KernelRecord k;
  k.start_ns = start;
  k.end_ns = start + 10;
  k.stream_id = stream;
  k.context_id = 1;
  k.correlation_id = corr;
  k.name = name;
  k.grid[0] = 2;
  k.block[0] = 64;
  return k;
}

ApiRecord Api(uint32_t cbid, uint32_t corr, uint64_t start, ApiDomain d = ApiDomain::kRuntime) {
  ApiRecord a;
  a.domain = d;
  a.cbid = cbid;
  a.tid = 100;
  a.start_ns = start;
  a.end_ns = start + 3;
  a.correlation_id = corr;
  return a;
}

TEST_F(TraceWriterTest, FreshTraceHasSchemaVersionAndRunningCapture) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok()) << w.status().message();
  (*w)->SetMetadata("capture_end", "running");
  (*w)->Flush();
  {
    Db db(path_);
    EXPECT_EQ(db.Int("PRAGMA user_version"), schema::Version());
    EXPECT_EQ(db.Text("SELECT value FROM metadata WHERE key='schema_version'"), std::to_string(schema::Version()));
    EXPECT_EQ(db.Text("SELECT value FROM metadata WHERE key='capture_end'"), "running");
  }
  ASSERT_TRUE((*w)->Finish("normal_exit", 42).ok());
  Db db(path_);
  EXPECT_EQ(db.Text("SELECT value FROM metadata WHERE key='capture_end'"), "normal_exit");
  EXPECT_EQ(db.Text("SELECT value FROM metadata WHERE key='end_trace_ns'"), "42");
  EXPECT_EQ(db.Text("PRAGMA journal_mode"), "delete");
}

TEST_F(TraceWriterTest, OpsRoundTripAndJoinTheirApiCalls) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  b.push_back(ContextRecord{1, 0, 7});
  b.push_back(Kernel(1000, 7, 1, "_Z4stepv"));
  b.push_back(Api(211, 1, 990));
  b.push_back(Api(307, 1, 991, ApiDomain::kDriver));
  MemcpyRecord m;
  m.start_ns = 2000;
  m.end_ns = 2100;
  m.context_id = 1;
  m.stream_id = 7;
  m.correlation_id = 2;
  m.bytes = 4096;
  m.copy_kind = 1;
  m.src_kind = 2;
  m.dst_kind = 3;
  m.is_async = true;
  b.push_back(m);
  b.push_back(Api(41, 2, 1990));
  MemsetRecord s;
  s.start_ns = 3000;
  s.end_ns = 3001;
  s.bytes = 64;
  s.memory_kind = 3;
  s.correlation_id = 3;  // its API call was not recorded
  b.push_back(s);
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT count(*) FROM kernel"), 1);
  EXPECT_EQ(db.Text("SELECT name FROM kernel_named"), "_Z4stepv");
  EXPECT_EQ(db.Int("SELECT grid_x * block_x FROM kernel"), 128);
  EXPECT_EQ(db.Int("SELECT count(*) FROM gpu_op"), 3);
  // The runtime call is preferred over the driver call with the same id.
  EXPECT_EQ(db.Text("SELECT api_name FROM gpu_op_with_api WHERE category='compute'"), "cudaLaunchKernel");
  EXPECT_EQ(db.Int("SELECT queue_delay_ns FROM gpu_op_with_api WHERE category='compute'"), 7);
  // The views speak the reports' vocabulary (schema version 2).
  EXPECT_EQ(db.Text("SELECT name FROM gpu_op WHERE op_table='kernel'"), "_Z4stepv");
  EXPECT_EQ(db.Text("SELECT src_kind || '->' || dst_kind FROM gpu_op WHERE category='H2D'"), "pinned->device");
  EXPECT_EQ(db.Text("SELECT copy_kind FROM gpu_op WHERE category='H2D'"), "H2D");
  EXPECT_EQ(db.Int("SELECT bytes FROM gpu_op WHERE category='H2D'"), 4096);
  EXPECT_EQ(db.Text("SELECT coalesce(api_name,'<null>') FROM gpu_op_with_api WHERE category='memset'"), "<null>");
  EXPECT_EQ(db.Int("SELECT count(*) FROM api_call WHERE domain=2"), 1);
  EXPECT_EQ(db.Text("SELECT name FROM thread WHERE tid=100"), "thread100");
  EXPECT_EQ(db.Int("SELECT value FROM collector_stat WHERE key='records_written'"), 7);
  EXPECT_EQ(db.Int("SELECT count(*) FROM sqlite_master WHERE name='kernel_correlation'"), 1);
}

TEST_F(TraceWriterTest, UnknownApiIdsGetAPlaceholderName) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  b.push_back(Api(9999, 5, 1));
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Text("SELECT name FROM api_call_named"), "runtime_cbid_9999");
}

TEST_F(TraceWriterTest, StreamKindsFromFlagsApiNamesAndCreations) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  (*w)->SetStreamCreationTracked(true);
  RecordBatch b;
  b.push_back(ContextRecord{1, 0, 7});
  b.push_back(StreamRecord{7, 1, 0, 3});                           // legacy default
  b.push_back(StreamRecord{13, 1, 0, 1});                          // per-thread default (used via _ptsz)
  b.push_back(StreamRecord{14, 1, 0, 1});                          // user blocking stream
  b.push_back(StreamRecord{15, 1, static_cast<uint32_t>(-3), 2});  // non-blocking, priority
  b.push_back(StreamRecord{16, 1, 0, 1});                          // never created explicitly, used: per-thread default
  b.push_back(StreamRecord{17, 1, 0, 1});                          // never created nor used (driver internal): unknown
  b.push_back(StreamCreatedRecord{14, 100});
  b.push_back(StreamCreatedRecord{15, 100});
  b.push_back(Kernel(10, 13, 1, "k"));
  b.push_back(Api(312, 1, 5));
  b.push_back(Kernel(20, 16, 2, "k"));
  b.push_back(Api(211, 2, 15));
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT kind FROM stream WHERE id=7"), 1);
  EXPECT_EQ(db.Int("SELECT kind FROM stream WHERE id=13"), 2);
  EXPECT_EQ(db.Int("SELECT kind FROM stream WHERE id=14"), 3);
  EXPECT_EQ(db.Int("SELECT kind FROM stream WHERE id=15"), 4);
  EXPECT_EQ(db.Int("SELECT kind FROM stream WHERE id=16"), 2);
  EXPECT_EQ(db.Int("SELECT kind FROM stream WHERE id=17"), 0);
  EXPECT_EQ(db.Int("SELECT priority FROM stream WHERE id=15"), -3);
  EXPECT_EQ(db.Int("SELECT created_tid FROM stream WHERE id=14"), 100);
  EXPECT_EQ(db.Int("SELECT device_id FROM stream WHERE id=14"), 0);
}

TEST_F(TraceWriterTest, WithoutCreationTrackingOnlyPtszMarksPerThreadStreams) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  b.push_back(StreamRecord{16, 1, 0, 1});
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT kind FROM stream WHERE id=16"), 3);
}

TEST_F(TraceWriterTest, NvtxRangesMarksAndOpenRanges) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  b.push_back(MarkerRecord{MarkerRecord::Phase::kStart, 100, 1, 100, "outer", {}});
  b.push_back(MarkerRecord{MarkerRecord::Phase::kStart, 110, 2, 100, "inner", "dom"});
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  RecordBatch b2;  // the ends arrive in a later buffer
  b2.push_back(MarkerRecord{MarkerRecord::Phase::kEnd, 120, 2, 100, {}, {}});
  b2.push_back(MarkerRecord{MarkerRecord::Phase::kInstant, 125, 3, 100, "tick", {}});
  b2.push_back(MarkerRecord{MarkerRecord::Phase::kStart, 130, 4, 100, "open", {}});
  ASSERT_TRUE((*w)->Submit(std::move(b2)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT count(*) FROM nvtx_range"), 3);
  EXPECT_EQ(db.Int("SELECT depth FROM nvtx_range_named WHERE name='inner'"), 1);
  EXPECT_EQ(db.Text("SELECT domain FROM nvtx_range_named WHERE name='inner'"), "dom");
  EXPECT_EQ(db.Int("SELECT end_ns - start_ns FROM nvtx_range_named WHERE name='inner'"), 10);
  EXPECT_EQ(db.Int("SELECT end_ns IS NULL FROM nvtx_range_named WHERE name='outer'"), 1);
  EXPECT_EQ(db.Int("SELECT end_ns IS NULL FROM nvtx_range_named WHERE name='open'"), 1);
  EXPECT_EQ(db.Text("SELECT name FROM nvtx_mark_named"), "tick");
}

TEST_F(TraceWriterTest, NvtxCaptureRangeKeepsOnlyTheRangesOfItsWindow) {
  // --capture-range nvtx:step@2-2 on quick steps: the callbacks switch the
  // gate at 1020 and 1030; CUPTI stamps each marker 1 ns before its
  // callback. Step 1's START (999) lies within the slack before the window
  // opens, like the opening instance's, but the step ends before it.
  CaptureRange range;
  range.kind = CaptureRange::Kind::kNvtx;
  range.nvtx_name = "step";
  range.first = range.last = 2;
  auto gate = std::make_shared<CaptureGate>(range, 0);
  for (uint64_t i = 0; i < 3; ++i) {
    gate->NvtxPush(100, "step", 1000 + 20 * i);
    gate->NvtxPop(100, 1010 + 20 * i);
  }
  ASSERT_EQ(gate->WindowsJson(), "[[1020,1030]]");
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  (*w)->SetCaptureGate(gate);
  RecordBatch b;
  for (uint32_t i = 0; i < 3; ++i) {
    b.push_back(MarkerRecord{MarkerRecord::Phase::kStart, 999 + 20 * i, 10 + i, 100, "step", {}});
    b.push_back(MarkerRecord{MarkerRecord::Phase::kEnd, 1009 + 20 * i, 10 + i, 100, {}, {}});
  }
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 2000).ok());
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT count(*) FROM nvtx_range"), 1) << "only the instance that opened the window";
  EXPECT_EQ(db.Int("SELECT start_ns FROM nvtx_range"), 1019);
  EXPECT_EQ(db.Int("SELECT end_ns FROM nvtx_range"), 1029);
  EXPECT_EQ(db.Int("SELECT value FROM collector_stat WHERE key='records_outside_capture'"), 4);
}

TEST_F(TraceWriterTest, HostLinkRowKeepsUnknownFiguresNull) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  HostLinkRecord link;
  link.device_id = 0;
  link.pci_bus_id = "0000:3B:00.0";
  link.source = 2;  // sysfs
  link.pcie_gen_current = 1;
  link.pcie_width_current = 16;
  link.pcie_gen_max = 5;
  link.pcie_width_max = 16;
  b.push_back(link);
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Text("SELECT pci_bus_id FROM device_link WHERE device_id = 0"), "0000:3B:00.0");
  EXPECT_EQ(db.Text("SELECT name FROM device_link JOIN enum_link_source ON value = source"), "sysfs");
  EXPECT_EQ(db.Int("SELECT pcie_gen_current * 10 + pcie_gen_max FROM device_link"), 15);
  EXPECT_EQ(db.Int("SELECT c2c_enabled IS NULL FROM device_link"), 1);
}

TEST_F(TraceWriterTest, DevicesSyncsAndOverheadRoundTrip) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  DeviceRecord d;
  d.id = 0;
  d.name = "NVIDIA H200";
  d.uuid = "GPU-1234";
  d.sm_count = 132;
  d.async_engine_count = 3;
  d.concurrent_kernels = 1;
  b.push_back(d);
  SyncRecord s;
  s.kind = 3;
  s.start_ns = 1;
  s.end_ns = 5;
  s.stream_id = 13;
  b.push_back(s);
  OverheadRecord o;
  o.kind = 65536;
  o.start_ns = 2;
  o.end_ns = 3;
  b.push_back(o);
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Text("SELECT name FROM device"), "NVIDIA H200");
  EXPECT_EQ(db.Int("SELECT async_engine_count FROM device"), 3);
  EXPECT_EQ(db.Int("SELECT event_id IS NULL AND stream_id = 13 FROM sync"), 1);
  EXPECT_EQ(db.Int("SELECT kind FROM cupti_overhead"), 65536);
}

// Blocks the writer thread until released, to fill the queue.
class GateItem : public WorkItem {
 public:
  struct Gate {
    std::mutex mu;
    std::condition_variable cv;
    bool open = false;
    bool entered = false;
  };
  explicit GateItem(Gate* g) : g_(g) {}
  void Decode(RecordBatch*, TraceWriter&) override {
    std::unique_lock<std::mutex> lock(g_->mu);
    g_->entered = true;
    g_->cv.notify_all();
    g_->cv.wait(lock, [&] { return g_->open; });
  }
  int64_t CountRecords() const override { return 0; }

 private:
  Gate* g_;
};

TEST_F(TraceWriterTest, FullQueueDropsAndCountsRecords) {
  WriterOptions o = Options();
  o.max_queued_items = 2;
  auto w = TraceWriter::Open(o);
  ASSERT_TRUE(w.ok());
  GateItem::Gate gate;
  ASSERT_TRUE((*w)->Submit(std::make_unique<GateItem>(&gate)));
  {
    std::unique_lock<std::mutex> lock(gate.mu);
    gate.cv.wait(lock, [&] { return gate.entered; });
  }
  auto batch = [](int n) {
    RecordBatch b;
    for (int i = 1; i <= n; ++i) b.push_back(Kernel(i, 1, i, "k"));  // start 0 is not stored
    return b;
  };
  EXPECT_TRUE((*w)->Submit(batch(3)));
  EXPECT_TRUE((*w)->Submit(batch(4)));
  EXPECT_FALSE((*w)->Submit(batch(5)));  // queue full: dropped, counted
  EXPECT_EQ((*w)->GetStat(Stat::kRecordsDroppedWriter), 5);
  {
    std::lock_guard<std::mutex> lock(gate.mu);
    gate.open = true;
  }
  gate.cv.notify_all();
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT count(*) FROM kernel"), 7);
  EXPECT_EQ(db.Int("SELECT value FROM collector_stat WHERE key='records_dropped_writer'"), 5);
}

TEST_F(TraceWriterTest, ManyBatchesFromManyThreadsLoseNothing) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        RecordBatch b;
        for (int j = 0; j < 100; ++j) {
          uint32_t corr = static_cast<uint32_t>((t * 50 + i) * 100 + j);
          b.push_back(Kernel(corr + 1, 1, corr, t % 2 ? "even" : "odd"));  // start 0 is not stored
        }
        EXPECT_TRUE((*w)->Submit(std::move(b)));
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT count(*) FROM kernel"), 20000);
  EXPECT_EQ(db.Int("SELECT count(DISTINCT correlation_id) FROM kernel"), 20000);
  EXPECT_EQ(db.Int("SELECT count(*) FROM string"), 2);
}

TEST_F(TraceWriterTest, OpsWithoutTimestampsAreCountedNotStored) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  b.push_back(Kernel(100, 1, 1, "done"));
  KernelRecord queued = Kernel(0, 1, 2, "queued");
  queued.end_ns = 0;
  b.push_back(queued);
  KernelRecord running = Kernel(300, 1, 3, "running");
  running.end_ns = 0;
  b.push_back(running);
  MemcpyRecord copy;
  copy.correlation_id = 4;
  b.push_back(copy);
  MemsetRecord set;
  set.start_ns = 500;
  set.correlation_id = 5;
  b.push_back(set);
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 1).ok());
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT count(*) FROM kernel"), 1);
  EXPECT_EQ(db.Int("SELECT count(*) FROM memcpy") + db.Int("SELECT count(*) FROM memset"), 0);
  EXPECT_EQ(db.Int("SELECT value FROM collector_stat WHERE key='records_dropped_zero_timestamp'"), 4);
  EXPECT_EQ(db.Int("SELECT value FROM collector_stat WHERE key='records_written'"), 1);
}

TEST_F(TraceWriterTest, CommittedRowsAreVisibleBeforeFinish) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  b.push_back(Kernel(1, 1, 1, "k"));
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  (*w)->Flush();
  // A second connection (as after kill -9) sees the committed kernel.
  Db db(path_);
  EXPECT_EQ(db.Int("SELECT count(*) FROM kernel"), 1);
}

TEST_F(TraceWriterTest, FinishIsIdempotentAndLaterSubmitsAreCountedDrops) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Finish("signal:15", 1).ok());
  ASSERT_TRUE((*w)->Finish("normal_exit", 2).ok());
  RecordBatch b;
  b.push_back(Kernel(1, 1, 1, "k"));
  EXPECT_FALSE((*w)->Submit(std::move(b)));
  EXPECT_EQ((*w)->GetStat(Stat::kRecordsDroppedWriter), 1);
  Db db(path_);
  EXPECT_EQ(db.Text("SELECT value FROM metadata WHERE key='capture_end'"), "signal:15");
}

TEST_F(TraceWriterTest, ExistingFileIsNotClobbered) {
  std::ofstream(path_) << "not a trace";
  auto w = TraceWriter::Open(Options());
  ASSERT_FALSE(w.ok());
  EXPECT_EQ(w.status().code(), StatusCode::kAlreadyExists);
  std::ifstream in(path_);
  std::string s;
  std::getline(in, s);
  EXPECT_EQ(s, "not a trace");
}

TEST_F(TraceWriterTest, SymlinkedOutputIsRefused) {
  std::string target = dir_ + "/elsewhere";
  ASSERT_EQ(symlink(target.c_str(), path_.c_str()), 0);
  WriterOptions o = Options();
  o.overwrite = true;
  auto w = TraceWriter::Open(o);
  ASSERT_FALSE(w.ok());
  struct stat st;
  EXPECT_NE(stat(target.c_str(), &st), 0);
}

TEST_F(TraceWriterTest, UnwritablePathIsAnError) {
  WriterOptions o = Options();
  o.path = dir_ + "/missing-dir/t.sqlite";
  auto w = TraceWriter::Open(o);
  ASSERT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find("missing-dir"), std::string::npos);
}

TEST_F(TraceWriterTest, MemoryTablesRoundTripAndFreesFindTheirAllocation) {
  auto w = TraceWriter::Open(Options());
  ASSERT_TRUE(w.ok());
  RecordBatch b;
  AllocationRecord a;
  a.id = 7;
  a.kind = AllocationKind::kAsync;
  a.address = 0x7f0000000000;
  a.bytes = 4096;
  a.device_id = 0;
  a.stream_id = 13;
  a.alloc_ns = 500;
  a.correlation_id = 3;
  b.push_back(a);
  MemoryAccessRecord m;
  m.correlation_id = 4;
  m.address = 0x7f0000000100;
  m.bytes = 3840;
  m.access = Access::kUnknown;
  m.allocation_id = 7;
  m.arg_index = 2;
  b.push_back(m);
  MemoryAccessRecord host;
  host.correlation_id = 5;
  host.address = 0x1000;
  host.bytes = 64;
  host.access = Access::kRead;
  b.push_back(host);
  EventOpRecord e;
  e.op = EventOpKind::kElapsed;
  e.event_handle = 0xe1;
  e.other_event = 0xe2;
  e.tid = 100;
  e.ts_ns = 900;
  e.correlation_id = 9;
  e.elapsed_ms = 0.25;
  b.push_back(e);
  EventOpRecord rec;
  rec.op = EventOpKind::kRecord;
  rec.event_handle = 0xe1;
  rec.stream_id = 13;
  rec.tid = 100;
  rec.ts_ns = 800;
  rec.correlation_id = 8;
  b.push_back(rec);
  // The recorded API calls' starts replace the enter-callback times.
  b.push_back(Api(9999, 9, 850));
  b.push_back(Api(9998, 3, 480));
  FreeRecord f;
  f.id = 7;
  f.free_ns = 1000;
  f.correlation_id = 10;
  f.stream_id = 14;
  b.push_back(f);
  // A free from another thread's batch that arrives before its allocation.
  FreeRecord early;
  early.id = 8;
  early.free_ns = 1200;
  early.correlation_id = 12;
  b.push_back(early);
  ASSERT_TRUE((*w)->Submit(std::move(b)));
  AllocationRecord late;
  late.id = 8;
  late.kind = AllocationKind::kPinnedHost;
  late.address = 0x2000;
  late.bytes = 16;
  late.alloc_ns = 1100;
  late.correlation_id = 11;
  RecordBatch b2;
  b2.push_back(late);
  ASSERT_TRUE((*w)->Submit(std::move(b2)));
  FreeRecord orphan;
  orphan.id = 99;
  orphan.free_ns = 1300;
  RecordBatch b3;
  b3.push_back(orphan);
  ASSERT_TRUE((*w)->Submit(std::move(b3)));
  ASSERT_TRUE((*w)->Finish("normal_exit", 2000).ok());

  Db db(path_);
  EXPECT_EQ(db.Int("SELECT count(*) FROM allocation"), 2);
  EXPECT_EQ(db.Text("SELECT kind || ',' || address || ',' || bytes || ',' || device_id || ',' || "
                    "stream_id || ',' || alloc_ns || ',' || alloc_correlation_id || ',' || free_ns || "
                    "',' || free_correlation_id || ',' || free_stream_id FROM allocation WHERE id=7"),
            "async,139637976727552,4096,0,13,480,3,1000,10,14");
  EXPECT_EQ(db.Text("SELECT kind || ',' || coalesce(device_id,'null') || ',' || free_ns || ',' || "
                    "free_correlation_id || ',' || coalesce(free_stream_id,'null') FROM allocation "
                    "WHERE id=8"),
            "pinned_host,null,1200,12,null");
  EXPECT_EQ(db.Text("SELECT correlation_id || ',' || address || ',' || bytes || ',' || access || ',' "
                    "|| allocation_id || ',' || arg_index FROM memory_access WHERE correlation_id=4"),
            "4,139637976727808,3840,unknown,7,2");
  EXPECT_EQ(db.Text("SELECT access || ',' || coalesce(allocation_id,'null') || ',' || "
                    "coalesce(arg_index,'null') FROM memory_access WHERE correlation_id=5"),
            "read,null,null");
  EXPECT_EQ(db.Text("SELECT op || ',' || event_handle || ',' || other_event || ',' || "
                    "coalesce(stream_id,'null') || ',' || tid || ',' || ts_ns || ',' || "
                    "correlation_id || ',' || elapsed_ms FROM event_op WHERE op='elapsed'"),
            "elapsed,225,226,null,100,850,9,0.25");
  EXPECT_EQ(db.Text("SELECT op || ',' || stream_id || ',' || coalesce(other_event,'null') || ',' || "
                    "coalesce(elapsed_ms,'null') || ',' || ts_ns FROM event_op WHERE op='record'"),
            "record,13,null,null,800");  // no api_call recorded: the callback's time
  EXPECT_EQ(db.Int("SELECT value FROM collector_stat WHERE key='memory_frees_unmatched'"), 1);
  // Allocation and accesses join on allocation_id; accesses join api calls
  // by correlation id (indexes exist after finalize).
  EXPECT_EQ(db.Int("SELECT count(*) FROM sqlite_master WHERE name IN "
                   "('memory_access_correlation','event_op_correlation')"),
            2);
}

}  // namespace
}  // namespace streamscope::collector

namespace streamscope::collector {
namespace {

TEST(FlightRecorderDumpPath, TheIndexGoesBeforeTheExtension) {
  EXPECT_EQ(DumpPath("/t/trace-42.sqlite", 1), "/t/trace-42.dump1.sqlite");
  EXPECT_EQ(DumpPath("/t.d/trace", 3), "/t.d/trace.dump3") << "a dot in a folder is no extension";
}

}  // namespace
}  // namespace streamscope::collector
