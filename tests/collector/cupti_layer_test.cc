// The CUPTI layer on a CPU: a fake CUPTI (fake_cupti.h) hands recorded
// activity structs to the real buffer pool, flusher and writer; the
// assertions read what reached the trace database.
#include "collector/cupti_layer.h"

#include <cupti.h>
#include <generated_nvtx_meta.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
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

CUpti_ActivityMarker2 Marker(uint32_t id, uint64_t ts, bool start, const char* name) {
  CUpti_ActivityMarker2 m;
  std::memset(&m, 0, sizeof(m));
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = start ? CUPTI_ACTIVITY_FLAG_MARKER_START : CUPTI_ACTIVITY_FLAG_MARKER_END;
  m.timestamp = ts;
  m.id = id;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.threadId = 42;
  m.name = start ? name : nullptr;
  return m;
}

// Waits (bounded) until the fake's kernel kind is `on`: the capture switch
// applies edges on a thread of its own.
bool KernelKindBecomes(FakeCupti& fake, bool on) {
  for (int i = 0; i < 400; ++i) {
    if (fake.enabled_kinds().count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == (on ? 1u : 0u)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
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
    o.ring = config_.flight_recorder;
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
  int64_t Int(const std::string& sql) { return IntIn(path_, sql); }
  std::string Meta(const std::string& path, const std::string& key) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* s = nullptr;
    std::string sql = "SELECT value FROM metadata WHERE key = '" + key + "'";
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr), SQLITE_OK);
    std::string v = "(none)";
    if (s != nullptr && sqlite3_step(s) == SQLITE_ROW) v = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    sqlite3_close(db);
    return v;
  }
  int64_t IntIn(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
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

TEST_F(CuptiLayerTest, ProfilerApiRangeWritesOnlyWhatHappensBetweenStartAndStop) {
  config_.capture = *ParseCaptureRange("cudaProfilerApi");
  Start();
  EXPECT_FALSE(fake_.enabled_kinds().count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)) << "paused until cudaProfilerStart";
  EXPECT_TRUE(fake_.enabled_kinds().count(CUPTI_ACTIVITY_KIND_STREAM)) << "streams are still learned";
  fake_.Record(Kernel(1, 100, 200));
  CUpti_CallbackData enter;
  std::memset(&enter, 0, sizeof(enter));
  enter.callbackSite = CUPTI_API_ENTER;
  fake_.SetNow(1000);
  ASSERT_TRUE(fake_.Callback(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, &enter));
  EXPECT_TRUE(fake_.enabled_kinds().count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
      << "the starting thread waited for the kinds";
  EXPECT_FALSE(fake_.disabled_runtime_apis().empty()) << "queries left out again after the RUNTIME kind came back";
  fake_.Record(Kernel(2, 1100, 1200));
  fake_.SetNow(2000);
  ASSERT_TRUE(fake_.Callback(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop, &enter));
  EXPECT_TRUE(KernelKindBecomes(fake_, false));
  fake_.Record(Kernel(3, 2100, 2200));
  EXPECT_EQ(tracer_->CaptureWindowsJson(), "[[1000,2000]]");
  Finish();
  EXPECT_EQ(Int("SELECT count(*) FROM kernel"), 1);
  EXPECT_EQ(Int("SELECT correlation_id FROM kernel"), 2);
  EXPECT_EQ(Stat("records_outside_capture"), 2);
}

TEST_F(CuptiLayerTest, StartedPausedRecordsOnlyBetweenStartAndStopFromOutside) {
  config_.capture.start_paused = true;
  fake_.SetNow(10);
  Start();
  EXPECT_FALSE(fake_.enabled_kinds().count(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
  fake_.Record(Kernel(1, 100, 200));
  fake_.SetNow(500);
  EXPECT_TRUE(tracer_->CaptureStart());
  EXPECT_FALSE(tracer_->CaptureStart()) << "already started";
  EXPECT_TRUE(KernelKindBecomes(fake_, true));
  fake_.Record(Kernel(2, 600, 700));
  fake_.SetNow(900);
  EXPECT_TRUE(tracer_->CaptureStop());
  EXPECT_TRUE(KernelKindBecomes(fake_, false));
  fake_.Record(Kernel(3, 950, 990));
  Finish();
  EXPECT_EQ(Int("SELECT group_concat(correlation_id) FROM kernel"), 2);
}

TEST_F(CuptiLayerTest, NvtxInstanceRangeKeepsItsRangeAndOpsAndDropsTheRest) {
  config_.capture = *ParseCaptureRange("nvtx:step@2");
  Start();
  auto push = [&](const char* name, uint64_t now) {
    fake_.SetNow(now);
    nvtxRangePushA_params params{name};
    CUpti_NvtxData nd{"nvtxRangePushA", &params, nullptr};
    return fake_.Callback(CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA, &nd);
  };
  auto pop = [&](uint64_t now) {
    fake_.SetNow(now);
    CUpti_NvtxData nd{"nvtxRangePop", nullptr, nullptr};
    return fake_.Callback(CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePop, &nd);
  };
  // Three steps 1 ms apart, 100 ns long, one kernel each; CUPTI stamps each
  // range's start marker a little before the push callback runs.
  for (uint32_t i = 1; i <= 3; ++i) {
    uint64_t t = i * 1'000'000;
    ASSERT_TRUE(push("step", t));
    fake_.Record(Marker(i, t - 5, true, "step"));
    fake_.Record(Kernel(i, t + 10, t + 20));
    ASSERT_TRUE(pop(t + 100));
    fake_.Record(Marker(i, t + 100, false, nullptr));
  }
  EXPECT_EQ(tracer_->CaptureWindowsJson(), "[[2000000,2000100]]");
  Finish();
  EXPECT_EQ(Int("SELECT group_concat(correlation_id) FROM kernel"), 2);
  EXPECT_EQ(Int("SELECT count(*) FROM nvtx_range"), 1) << "the second step, start and end";
  EXPECT_EQ(Int("SELECT end_ns - start_ns FROM nvtx_range"), 105);
  EXPECT_EQ(Stat("nvtx_unmatched_ends"), 0);
}

TEST_F(CuptiLayerTest, FlightRecorderWritesNothingUntilDumpedAndKeepsRecordingAfterADump) {
  config_.flight_recorder = *RingBound::Parse("3");
  Start("fr.sqlite");
  for (uint32_t i = 1; i <= 10; ++i) fake_.Record(Kernel(i, i * 100, i * 100 + 50));
  struct stat st;
  EXPECT_NE(lstat(path_.c_str(), &st), 0) << "no trace before a trigger";
  StatusOr<std::string> first = tracer_->Dump("request");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(*first, dir_ + "/fr.dump1.sqlite");
  EXPECT_EQ(IntIn(*first, "SELECT group_concat(correlation_id, '') FROM kernel"), 8910) << "the newest three";
  EXPECT_EQ(Meta(*first, "capture_end"), "flight_recorder:request");
  EXPECT_EQ(Meta(*first, "flight_recorder_bound"), "3 records");
  EXPECT_EQ(Meta(*first, "ring_records"), "3");
  EXPECT_EQ(Meta(*first, "ring_evicted"), "7");
  EXPECT_EQ(Meta(*first, "ring_first_ns"), "800");
  // Recording goes on; the end of the process dumps again.
  fake_.Record(Kernel(11, 1100, 1150));
  fake_.Record(Kernel(12, 1200, 1250));
  Finish();
  std::string second = dir_ + "/fr.dump2.sqlite";
  EXPECT_EQ(IntIn(second, "SELECT group_concat(correlation_id, '') FROM kernel"), 101112);
  EXPECT_EQ(Meta(second, "capture_end"), "flight_recorder:normal_exit");
  EXPECT_NE(lstat(path_.c_str(), &st), 0);
}

TEST_F(CuptiLayerTest, ASlowNvtxStepDumpsTheRingWithThatStepAsTheTrigger) {
  config_.flight_recorder = *RingBound::Parse("100000");
  config_.trigger = *TriggerSpec::Parse("nvtx:step>2x");
  Start("slow.sqlite");
  // Twelve 1 ms steps of one kernel each; step 9 takes 3 ms.
  uint64_t t = 1'000'000;
  for (uint32_t i = 1; i <= 12; ++i) {
    uint64_t d = i == 9 ? 3'000'000 : 1'000'000;
    fake_.SetNow(t);
    nvtxRangePushA_params params{"step"};
    CUpti_NvtxData push{"nvtxRangePushA", &params, nullptr};
    ASSERT_TRUE(fake_.Callback(CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA, &push));
    fake_.Record(Kernel(i, t + 10, t + d - 10));
    fake_.SetNow(t + d);
    CUpti_NvtxData pop{"nvtxRangePop", nullptr, nullptr};
    ASSERT_TRUE(fake_.Callback(CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePop, &pop));
    t += d + 100'000;
  }
  Finish();  // writes the dump asked for, then the one at exit
  std::string dump = dir_ + "/slow.dump1.sqlite";
  EXPECT_EQ(Meta(dump, "flight_recorder_trigger"), "nvtx:step>2x");
  EXPECT_EQ(Meta(dump, "trigger_instance"), "9");
  EXPECT_EQ(Meta(dump, "trigger_median_ns"), "1000000");
  int64_t start = std::stoll(Meta(dump, "trigger_start_ns"));
  int64_t end = std::stoll(Meta(dump, "trigger_end_ns"));
  EXPECT_EQ(end - start, 3'000'000);
  EXPECT_EQ(IntIn(dump, "SELECT correlation_id FROM kernel WHERE start_ns >= " + std::to_string(start) +
                            " AND end_ns <= " + std::to_string(end)),
            9)
      << "the slow step's kernel is in the dump";
  EXPECT_EQ(IntIn(dump,
                  "SELECT r.end_ns - r.start_ns FROM nvtx_range r JOIN string s ON s.id = r.name_id"
                  " WHERE s.value = 'flight_recorder_trigger'"),
            3'000'000)
      << "the triggering instance is a named range";
  EXPECT_EQ(Meta(dir_ + "/slow.dump2.sqlite", "capture_end"), "flight_recorder:normal_exit");
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
