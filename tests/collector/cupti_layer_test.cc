// The CUPTI layer on a CPU: a fake CUPTI (fake_cupti.h) hands recorded
// activity structs to the real buffer pool, flusher and writer; the
// assertions read what reached the trace database.
#include "collector/cupti_layer.h"

#include <cupti.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "collector/collector_config.h"
#include "collector/driver_submit_cbids.h"
#include "collector/runtime_query_cbids.h"
#include "collector/trace_writer.h"
#include "tests/collector/fake_cupti.h"

namespace streamscope::collector {
namespace {

CUpti_ActivityKernel10 Kernel(uint32_t correlation, uint64_t start, uint64_t end) {
  CUpti_ActivityKernel10 k;
  std::memset(&k, 0, sizeof(k));
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = start;
  k.end = end;
  k.deviceId = 0;
  k.contextId = 1;
  k.streamId = 7;
  k.correlationId = correlation;
  k.gridX = k.gridY = k.gridZ = 1;
  k.blockX = k.blockY = k.blockZ = 1;
  k.name = "k";
  return k;
}

CUpti_ActivityAPI Api(CUpti_ActivityKind kind, uint32_t cbid, uint32_t correlation) {
  CUpti_ActivityAPI a;
  std::memset(&a, 0, sizeof(a));
  a.kind = kind;
  a.cbid = cbid;
  a.start = 50;
  a.end = 60;
  a.threadId = 42;
  a.correlationId = correlation;
  return a;
}

class CuptiLayerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/streamscope-cupti-layer-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    config_.flush_ms = 0;  // only the tracer's own flushes, unless a test wants the flusher
    config_.buffer_kb = 64;
    config_.clock = "cupti-default";
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  // Opens a writer on trace `name` and starts a tracer on the fake.
  void Start(const std::string& name = "t.sqlite") {
    path_ = dir_ + "/" + name;
    WriterOptions o;
    o.path = path_;
    o.thread_name = [](uint32_t) { return std::string("test"); };
    o.api_name = [](ApiDomain d, uint32_t cbid) {
      return d == ApiDomain::kDriver && cbid == kInternalLaunchCbid ? std::string("internal_launch") : std::string();
    };
    auto w = TraceWriter::Open(o);
    ASSERT_TRUE(w.ok()) << w.status().message();
    writer_ = std::move(*w);
    auto t = CuptiTracer::Start(config_, writer_.get(), &fake_);
    ASSERT_TRUE(t.ok()) << t.status().message();
    tracer_ = std::move(*t);
  }
  // Stops the tracer and closes the trace.
  void Finish() {
    tracer_->Stop();
    ASSERT_TRUE(writer_->Finish("normal_exit", 1000).ok());
    tracer_.reset();
  }
  int64_t Int(const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK) << sql << ": " << sqlite3_errmsg(db);
    int64_t v = -1;
    if (s != nullptr && sqlite3_step(s) == SQLITE_ROW) v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
  }
  int64_t Stat(const std::string& key) { return Int("SELECT value FROM collector_stat WHERE key = '" + key + "'"); }

  FakeCupti fake_;
  CollectorConfig config_;
  std::string dir_, path_;
  std::unique_ptr<TraceWriter> writer_;
  std::unique_ptr<CuptiTracer> tracer_;
};

TEST_F(CuptiLayerTest, EveryCompletedKernelIsWrittenWithItsTimestamps) {
  Start();
  for (uint32_t i = 1; i <= 1000; ++i) ASSERT_TRUE(fake_.Record(Kernel(i, 1000 * i, 1000 * i + 500)));
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), 1000);
  EXPECT_EQ(Int("SELECT count(*) FROM kernel WHERE end_ns - start_ns = 500 AND "
                "start_ns = 1000 * correlation_id"),
            1000);
  EXPECT_GT(Stat("buffers_completed"), 1) << "1000 kernels do not fit one 64 KiB buffer";
  EXPECT_EQ(Stat("records_dropped_cupti"), 0);
}

TEST_F(CuptiLayerTest, ZeroTimestampOpsAreCountedNotWritten) {
  Start();
  fake_.Record(Kernel(1, 100, 200));
  fake_.Record(Kernel(2, 0, 0), /*complete=*/false);    // queued when the forced flush came
  fake_.Record(Kernel(3, 300, 0), /*complete=*/false);  // running then
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), 1);
  EXPECT_EQ(Int("SELECT correlation_id FROM kernel"), 1);
  EXPECT_EQ(Stat("records_dropped_zero_timestamp"), 2);
}

TEST_F(CuptiLayerTest, RecordCutShortAtTheBufferEndIsNotWritten) {
  Start();
  fake_.Record(Kernel(1, 100, 200));
  fake_.Record(Kernel(2, 300, 400));
  fake_.CompleteCurrent(/*cut=*/16);  // the second record's last bytes are missing
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), 1);
  EXPECT_EQ(Int("SELECT correlation_id FROM kernel"), 1);
}

TEST_F(CuptiLayerTest, DroppedRecordCountsAreStored) {
  config_.buffer_kb = 512;
  config_.max_buffer_mb = 1;  // two buffers in all
  Start();
  ASSERT_TRUE(fake_.Record(Kernel(1, 100, 200)));
  fake_.SwitchBuffer();
  ASSERT_TRUE(fake_.Record(Kernel(2, 300, 400)));
  fake_.SwitchBuffer();
  EXPECT_FALSE(fake_.Record(Kernel(3, 500, 600))) << "no third buffer";
  fake_.AddDropped(4);  // and CUPTI lost four on the device
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), 2);
  EXPECT_EQ(Stat("records_dropped_cupti"), 5);
  EXPECT_GE(Stat("buffers_request_denied"), 1);
}

TEST_F(CuptiLayerTest, PeriodicFlushLeavesIncompleteBuffersToTheFinalFlush) {
  config_.flush_ms = 1;
  Start();
  fake_.Record(Kernel(1, 100, 200));
  fake_.SwitchBuffer();
  fake_.Record(Kernel(2, 300, 0), /*complete=*/false);
  // Two periodic flushes that began after both records were there.
  fake_.WaitForFlushes(/*flag=*/0, fake_.flushes(0) + 2);
  writer_->Flush();
  EXPECT_EQ(writer_->GetStat(Stat::kBuffersCompleted), 1) << "only the complete buffer";
  Finish();
  EXPECT_EQ(Stat("buffers_completed"), 2);
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), 1);
  EXPECT_EQ(Stat("records_dropped_zero_timestamp"), 1);
}

TEST_F(CuptiLayerTest, FlushRacingBufferCompletionLosesNothing) {
  Start();
  constexpr uint32_t kKernels = 20000;
  std::thread gpu([&] {
    for (uint32_t i = 1; i <= kKernels; ++i) {
      fake_.Record(Kernel(i, 10 * uint64_t{i}, 10 * uint64_t{i} + 5));
      if (i % 97 == 0) fake_.CompleteCurrent();
    }
  });
  std::thread flusher([&] {
    for (int i = 0; i < 200; ++i) tracer_->Flush();
  });
  gpu.join();
  flusher.join();
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), kKernels);
  EXPECT_EQ(Int("SELECT count(DISTINCT correlation_id) FROM kernel"), kKernels);
  EXPECT_EQ(Stat("records_dropped_cupti"), 0);
  EXPECT_EQ(Stat("records_dropped_writer"), 0);
}

TEST_F(CuptiLayerTest, DefaultKindsRecordSubmittingDriverCallsOneByOne) {
  Start();
  std::set<CUpti_CallbackId> on = fake_.enabled_driver_apis();
  EXPECT_EQ(on.size(), DriverSubmitCallbackIds().size());
  EXPECT_TRUE(on.count(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  EXPECT_TRUE(on.count(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx));
  EXPECT_TRUE(on.count(CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel));
  EXPECT_TRUE(on.count(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2));
  EXPECT_TRUE(on.count(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async));
  EXPECT_TRUE(on.count(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch));
  EXPECT_FALSE(on.count(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2)) << "submits no GPU work";
  EXPECT_FALSE(on.count(CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc)) << "no GPU op";
  EXPECT_FALSE(fake_.enabled_kinds().count(CUPTI_ACTIVITY_KIND_DRIVER));
  EXPECT_TRUE(fake_.enabled_kinds().count(CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API));
  EXPECT_NE(tracer_->enabled_kinds().find("submit"), std::string::npos);
  Finish();
  EXPECT_TRUE(fake_.enabled_driver_apis().empty()) << "disabled again at stop";
  EXPECT_TRUE(fake_.enabled_kinds().empty());
}

TEST_F(CuptiLayerTest, RuntimeCallsThatOnlyQueryAreLeftOutAndTheLaunchKeepsItsSubmitter) {
  Start();
  // PyTorch around one launch: device query, launch, error check.
  fake_.Record(Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 1));
  fake_.Record(Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 2));
  fake_.Record(Kernel(2, 100, 200));
  fake_.Record(Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, 3));
  fake_.Record(Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, 4));
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM api_call"), 2) << "the launch and the sync";
  EXPECT_EQ(Int("SELECT a.cbid FROM kernel k JOIN api_call a USING (correlation_id)"),
            CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  EXPECT_EQ(Stat("runtime_queries_kept"), 0);
}

TEST_F(CuptiLayerTest, LeftOutRuntimeCallsNeitherSubmitNorWaitNorAllocate) {
  std::set<uint32_t> left_out(RuntimeQueryCallbackIds().begin(), RuntimeQueryCallbackIds().end());
  EXPECT_EQ(left_out.size(), RuntimeQueryCallbackIds().size()) << "no id twice";
  EXPECT_TRUE(left_out.count(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020));
  EXPECT_TRUE(left_out.count(CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020));
  EXPECT_TRUE(left_out.count(CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020));
  EXPECT_TRUE(left_out.count(CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000));
  EXPECT_TRUE(left_out.count(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000));
  // Calls that submit, wait, allocate, create or may load a module stay.
  for (uint32_t kept : {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
                        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
                        CUPTI_RUNTIME_TRACE_CBID_cudaLaunchHostFunc_v10000,
                        CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000,
                        CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSetLimit_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020,
                        CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000,
                        CUPTI_RUNTIME_TRACE_CBID_cudaMemGetInfo_v3020}) {
    EXPECT_FALSE(left_out.count(kept)) << "runtime cbid " << kept;
  }
}

TEST_F(CuptiLayerTest, RuntimeAllRecordsTheQueriesToo) {
  config_.kinds = *ParseKinds("+runtime-all");
  Start();
  EXPECT_TRUE(fake_.disabled_runtime_apis().empty());
  EXPECT_NE(tracer_->enabled_kinds().find("runtime-all"), std::string::npos);
  fake_.Record(Api(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, 1));
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM api_call"), 1);
  EXPECT_EQ(Stat("runtime_queries_kept"), static_cast<int64_t>(RuntimeQueryCallbackIds().size()));
}

TEST_F(CuptiLayerTest, WholeDriverKindReplacesTheOneByOneSet) {
  config_.kinds = *ParseKinds("+driver");
  Start();
  EXPECT_TRUE(fake_.enabled_driver_apis().empty());
  EXPECT_TRUE(fake_.enabled_kinds().count(CUPTI_ACTIVITY_KIND_DRIVER));
  Finish();
}

TEST_F(CuptiLayerTest, DriverAndInternalLaunchesAreTheirKernelsSubmitters) {
  Start();
  fake_.Record(Api(CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 5));
  fake_.Record(Kernel(5, 100, 200));
  CUpti_ActivityAPI internal = Api(CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API, 999, 6);
  fake_.Record(internal);
  fake_.Record(Kernel(6, 300, 400));
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel k JOIN api_call a USING (correlation_id)"), 2);
  EXPECT_EQ(Int("SELECT domain FROM api_call WHERE correlation_id = 5"), 2);
  EXPECT_EQ(Int("SELECT cbid FROM api_call WHERE correlation_id = 6"), kInternalLaunchCbid);
  EXPECT_EQ(Int("SELECT count(*) FROM api_call a JOIN string s ON s.id = a.name_id "
                "WHERE a.correlation_id = 6 AND s.value = 'internal_launch'"),
            1);
}

TEST_F(CuptiLayerTest, AnotherCuptiClientIsReportedAndNothingStaysEnabled) {
  fake_.FailSubscribeWith(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  path_ = dir_ + "/t.sqlite";
  WriterOptions o;
  o.path = path_;
  auto w = TraceWriter::Open(o);
  ASSERT_TRUE(w.ok());
  auto t = CuptiTracer::Start(config_, w->get(), &fake_);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(std::string(t.status().message()).find("another CUPTI client"), std::string::npos);
  EXPECT_TRUE(fake_.enabled_kinds().empty());
  EXPECT_TRUE(fake_.enabled_driver_apis().empty());
  // A failed start leaves the process free to start again.
  fake_.FailSubscribeWith(CUPTI_SUCCESS);
  auto again = CuptiTracer::Start(config_, w->get(), &fake_);
  EXPECT_TRUE(again.ok());
}

TEST_F(CuptiLayerTest, OneSessionAtATimeAndANewOneAfterStop) {
  Start("first.sqlite");
  auto second = CuptiTracer::Start(config_, writer_.get(), &fake_);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), StatusCode::kAlreadyExists);
  fake_.Record(Kernel(1, 100, 200));
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), 1);

  Start("second.sqlite");
  fake_.Record(Kernel(2, 300, 400));
  fake_.Record(Kernel(3, 500, 600));
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), 2);
  EXPECT_EQ(Int("SELECT min(correlation_id) FROM kernel"), 2);
}

}  // namespace
}  // namespace streamscope::collector
