// MemoryTracker: CUPTI callback data (built in memory, as CUPTI passes it)
// in, allocation / memory_access / event_op records out.
#include "collector/memory_tracker.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_callbacks.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>
#include <gtest/gtest.h>

#include <vector>

namespace streamscope::collector {
namespace {

class FakeSink : public RecordSink {
 public:
  void Add(TraceRecord record) override { records.push_back(std::move(record)); }
  template <typename T>
  std::vector<T> All() const {
    std::vector<T> out;
    for (const auto& r : records) {
      if (const T* t = std::get_if<T>(&r)) out.push_back(*t);
    }
    return out;
  }
  std::vector<TraceRecord> records;
};

uint64_t g_clock = 1000;
uint64_t FakeNow() { return g_clock += 10; }
uint32_t FakeTid() { return 4242; }

// A kernel void k(float* a, int n, float* b).
const void* const kFunction = reinterpret_cast<const void*>(0xf00);

class MemoryTrackerTest : public ::testing::Test {
 protected:
  MemoryTrackerTest() : tracker_(Hooks(), &sink_) {}
  static MemoryTracker::Hooks Hooks() {
    MemoryTracker::Hooks h;
    h.now = FakeNow;
    h.tid = FakeTid;
    // Legacy stream 1, per-thread stream 2, other streams by handle value.
    h.stream_id = [](void*, void* stream, bool per_thread) -> std::optional<uint32_t> {
      if (stream == nullptr) return per_thread ? 2u : 1u;
      return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(stream));
    };
    h.device_id = [](void*) -> std::optional<uint32_t> { return 0u; };
    h.param_layout = [](const void* f, ParamLayout* layout) {
      if (f != kFunction) return false;
      *layout = {{0, 8}, {8, 4}, {16, 8}};
      return true;
    };
    return h;
  }

  // One API call: enter and exit callbacks (result 0 = success).
  template <typename P>
  void Runtime(uint32_t cbid, uint32_t corr, P params, int result = 0) {
    Site(true, cbid, corr, &params, result, CUPTI_API_ENTER);
    Site(true, cbid, corr, &params, result, CUPTI_API_EXIT);
  }
  template <typename P>
  void Driver(uint32_t cbid, uint32_t corr, P params, int result = 0) {
    Site(false, cbid, corr, &params, result, CUPTI_API_ENTER);
    Site(false, cbid, corr, &params, result, CUPTI_API_EXIT);
  }
  void Site(bool runtime, uint32_t cbid, uint32_t corr, const void* params, int result, CUpti_ApiCallbackSite site) {
    CUpti_CallbackData cd = {};
    cd.callbackSite = site;
    cd.functionParams = params;
    cd.functionReturnValue = &result;
    cd.correlationId = corr;
    cd.correlationData = &correlation_data_[corr];
    if (runtime) {
      tracker_.OnRuntimeCallback(cbid, &cd);
    } else {
      tracker_.OnDriverCallback(cbid, &cd);
    }
  }
  void Malloc(uint32_t corr, void* address, size_t bytes) {
    out_ptr_ = address;
    Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, corr, cudaMalloc_v3020_params{&out_ptr_, bytes});
  }

  FakeSink sink_;
  MemoryTracker tracker_;
  void* out_ptr_ = nullptr;
  uint64_t correlation_data_[256] = {};
};

void* P(uint64_t v) { return reinterpret_cast<void*>(v); }

TEST_F(MemoryTrackerTest, AllocationCopyAndFreeBecomeRowsWithTheirCorrelationIds) {
  Malloc(10, P(0x7000000), 1024);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 11,
          cudaMemcpy_v3020_params{P(0x7000010), P(0x1234000), 64, cudaMemcpyHostToDevice});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 12, cudaFree_v3020_params{P(0x7000000)});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 13,
          cudaMemcpy_v3020_params{P(0x7000010), P(0x1234000), 64, cudaMemcpyHostToDevice});

  auto allocs = sink_.All<AllocationRecord>();
  ASSERT_EQ(allocs.size(), 1u);
  EXPECT_EQ(allocs[0].id, 1u);
  EXPECT_EQ(allocs[0].kind, AllocationKind::kDevice);
  EXPECT_EQ(allocs[0].address, 0x7000000u);
  EXPECT_EQ(allocs[0].bytes, 1024u);
  EXPECT_EQ(allocs[0].correlation_id, 10u);
  EXPECT_EQ(allocs[0].device_id, 0u);
  EXPECT_EQ(allocs[0].stream_id, std::nullopt);
  EXPECT_EQ(allocs[0].alloc_ns, correlation_data_[10]);  // taken at the call's enter
  EXPECT_GT(allocs[0].alloc_ns, 0u);

  auto access = sink_.All<MemoryAccessRecord>();
  ASSERT_EQ(access.size(), 4u);
  EXPECT_EQ(access[0].correlation_id, 11u);
  EXPECT_EQ(access[0].access, Access::kRead);
  EXPECT_EQ(access[0].address, 0x1234000u);
  EXPECT_EQ(access[0].allocation_id, std::nullopt);  // pageable host memory
  EXPECT_EQ(access[1].access, Access::kWrite);
  EXPECT_EQ(access[1].address, 0x7000010u);
  EXPECT_EQ(access[1].bytes, 64u);
  EXPECT_EQ(access[1].allocation_id, 1u);
  EXPECT_EQ(access[1].arg_index, std::nullopt);
  EXPECT_EQ(access[3].correlation_id, 13u);
  EXPECT_EQ(access[3].allocation_id, std::nullopt);  // freed before

  auto frees = sink_.All<FreeRecord>();
  ASSERT_EQ(frees.size(), 1u);
  EXPECT_EQ(frees[0].id, 1u);
  EXPECT_EQ(frees[0].correlation_id, 12u);
  EXPECT_EQ(frees[0].stream_id, std::nullopt);
  EXPECT_EQ(tracker_.live().size(), 0u);
}

TEST_F(MemoryTrackerTest, FailedCallsRecordNothing) {
  out_ptr_ = P(0x5000);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 1, cudaMalloc_v3020_params{&out_ptr_, 64},
          /*result=*/2);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, 2, cudaMemset_v3020_params{P(0x5000), 0, 64},
          /*result=*/1);
  EXPECT_TRUE(sink_.records.empty());
}

TEST_F(MemoryTrackerTest, RuntimeLaunchRowsCarryTheRuntimeCorrelationId) {
  Malloc(1, P(0x10000), 0x1000);
  Malloc(2, P(0x20000), 0x1000);
  uint64_t a = 0x10000, b = 0x20800;
  int n = 5;
  void* args[] = {&a, &n, &b};
  cudaLaunchKernel_v7000_params rt = {};
  Site(true, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 20, &rt, 0, CUPTI_API_ENTER);
  struct {
    CUfunction f;
    unsigned int grid[3], block[3], shared;
    CUstream stream;
    void** params;
    void** extra;
  } drv = {static_cast<CUfunction>(const_cast<void*>(kFunction)), {1, 1, 1}, {1, 1, 1}, 0, nullptr, args, nullptr};
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 21, drv);
  Site(true, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 20, &rt, 0, CUPTI_API_EXIT);

  auto access = sink_.All<MemoryAccessRecord>();
  ASSERT_EQ(access.size(), 2u);
  EXPECT_EQ(access[0].correlation_id, 20u);
  EXPECT_EQ(access[0].arg_index, 0u);
  EXPECT_EQ(access[0].access, Access::kUnknown);
  EXPECT_EQ(access[0].bytes, 0x1000u);
  EXPECT_EQ(access[1].correlation_id, 20u);
  EXPECT_EQ(access[1].arg_index, 2u);
  EXPECT_EQ(access[1].address, 0x20800u);
  EXPECT_EQ(access[1].bytes, 0x800u);
  EXPECT_EQ(access[1].allocation_id, 2u);
  EXPECT_EQ(tracker_.counters().launches.load(), 1);
  EXPECT_EQ(tracker_.counters().launches_in_runtime.load(), 1);

  // The same launch made directly through the driver carries the driver
  // call's own correlation id.
  sink_.records.clear();
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 30, drv);
  access = sink_.All<MemoryAccessRecord>();
  ASSERT_EQ(access.size(), 2u);
  EXPECT_EQ(access[0].correlation_id, 30u);
  EXPECT_EQ(tracker_.counters().launches_in_runtime.load(), 1);
}

TEST_F(MemoryTrackerTest, LaunchOfAFunctionWithoutLayoutIsCountedNotGuessed) {
  Malloc(1, P(0x10000), 0x1000);
  uint64_t a = 0x10000;
  void* args[] = {&a};
  struct {
    CUfunction f;
    unsigned int grid[3], block[3], shared;
    CUstream stream;
    void** params;
    void** extra;
  } drv = {reinterpret_cast<CUfunction>(0xbad), {1, 1, 1}, {1, 1, 1}, 0, nullptr, args, nullptr};
  Driver(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, 5, drv);
  EXPECT_TRUE(sink_.All<MemoryAccessRecord>().empty());
  EXPECT_EQ(tracker_.counters().launches_without_layout.load(), 1);
}

TEST_F(MemoryTrackerTest, DriverCopyInsideARuntimeCallIsNotRecordedTwice) {
  cudaMemcpy_v3020_params rt{P(0x9000), P(0x8000), 32, cudaMemcpyHostToDevice};
  Site(true, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 40, &rt, 0, CUPTI_API_ENTER);
  struct {
    CUdeviceptr dst;
    const void* src;
    size_t bytes;
  } drv = {0x9000, P(0x8000), 32};
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, 41, drv);
  Site(true, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 40, &rt, 0, CUPTI_API_EXIT);
  auto access = sink_.All<MemoryAccessRecord>();
  ASSERT_EQ(access.size(), 2u);
  EXPECT_EQ(access[0].correlation_id, 40u);
  EXPECT_EQ(access[1].correlation_id, 40u);
  // Outside a runtime call the driver copy is recorded with its own id.
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, 42, drv);
  access = sink_.All<MemoryAccessRecord>();
  ASSERT_EQ(access.size(), 4u);
  EXPECT_EQ(access[3].correlation_id, 42u);
  EXPECT_EQ(access[3].access, Access::kWrite);
}

TEST_F(MemoryTrackerTest, TwoDimensionalMemsetAndCopyRecordTheirBoundingRanges) {
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemset2D_v3020, 1, cudaMemset2D_v3020_params{P(0x40000), 512, 0, 100, 4});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020, 2,
          cudaMemcpy2DAsync_v3020_params{P(0x50000), 256, P(0x60000), 128, 64, 3, cudaMemcpyDeviceToDevice, nullptr});
  auto access = sink_.All<MemoryAccessRecord>();
  ASSERT_EQ(access.size(), 3u);
  EXPECT_EQ(access[0].bytes, 512u * 3 + 100);
  EXPECT_EQ(access[0].access, Access::kWrite);
  EXPECT_EQ(access[1].address, 0x60000u);
  EXPECT_EQ(access[1].bytes, 128u * 2 + 64);
  EXPECT_EQ(access[1].access, Access::kRead);
  EXPECT_EQ(access[2].address, 0x50000u);
  EXPECT_EQ(access[2].bytes, 256u * 2 + 64);
}

TEST_F(MemoryTrackerTest, DriverMemsetCountsElementsOfItsWidth) {
  struct {
    CUdeviceptr dst;
    unsigned int value;
    size_t n;
  } d32 = {0x70000, 7, 10};
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemsetD32_v2, 1, d32);
  Driver(CUPTI_DRIVER_TRACE_CBID_cuMemsetD8_v2, 2, d32);
  auto access = sink_.All<MemoryAccessRecord>();
  ASSERT_EQ(access.size(), 2u);
  EXPECT_EQ(access[0].bytes, 40u);
  EXPECT_EQ(access[1].bytes, 10u);
}

TEST_F(MemoryTrackerTest, StreamOrderedAllocationsAndFreesCarryTheirStreams) {
  out_ptr_ = P(0xa0000);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020, 1,
          cudaMallocAsync_v11020_params{&out_ptr_, 256, reinterpret_cast<cudaStream_t>(0x33)});
  out_ptr_ = P(0xb0000);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMallocFromPoolAsync_ptsz_v11020, 2,
          cudaMallocFromPoolAsync_ptsz_v11020_params{&out_ptr_, 256, nullptr, nullptr});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020, 3,
          cudaFreeAsync_v11020_params{P(0xa0000), reinterpret_cast<cudaStream_t>(0x44)});
  auto allocs = sink_.All<AllocationRecord>();
  ASSERT_EQ(allocs.size(), 2u);
  EXPECT_EQ(allocs[0].kind, AllocationKind::kAsync);
  EXPECT_EQ(allocs[0].stream_id, 0x33u);
  EXPECT_EQ(allocs[1].kind, AllocationKind::kPool);
  EXPECT_EQ(allocs[1].stream_id, 2u);  // NULL stream of a _ptsz call: per-thread
  auto frees = sink_.All<FreeRecord>();
  ASSERT_EQ(frees.size(), 1u);
  EXPECT_EQ(frees[0].id, allocs[0].id);
  EXPECT_EQ(frees[0].stream_id, 0x44u);
}

TEST_F(MemoryTrackerTest, HostAllocationsHaveNoDeviceAndUntrackedFreesAreCounted) {
  out_ptr_ = P(0xc0000);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, 1, cudaHostAlloc_v3020_params{&out_ptr_, 4096, 0});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000, 2, cudaHostRegister_v4000_params{P(0xd0000), 8192, 0});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000, 3, cudaHostUnregister_v4000_params{P(0xd0000)});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 4, cudaFree_v3020_params{P(0xe0000)});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, 5, cudaFree_v3020_params{nullptr});
  auto allocs = sink_.All<AllocationRecord>();
  ASSERT_EQ(allocs.size(), 2u);
  EXPECT_EQ(allocs[0].kind, AllocationKind::kPinnedHost);
  EXPECT_EQ(allocs[0].device_id, std::nullopt);
  EXPECT_EQ(allocs[1].kind, AllocationKind::kRegisteredHost);
  EXPECT_EQ(sink_.All<FreeRecord>().size(), 1u);
  EXPECT_EQ(tracker_.counters().untracked_frees.load(), 1);
}

TEST_F(MemoryTrackerTest, EventOperationsCarryStreamsThreadAndTheValueRead) {
  cudaEvent_t ev1 = reinterpret_cast<cudaEvent_t>(0xe1), ev2 = reinterpret_cast<cudaEvent_t>(0xe2);
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000, 1, cudaEventRecord_ptsz_v7000_params{ev1, nullptr});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, 2,
          cudaEventRecord_v3020_params{ev2, reinterpret_cast<cudaStream_t>(0x2)});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010, 3,
          cudaEventRecordWithFlags_v11010_params{ev2, nullptr, 0});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, 4,
          cudaStreamWaitEvent_v3020_params{reinterpret_cast<cudaStream_t>(0x55), ev1, 0});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, 5, cudaEventSynchronize_v3020_params{ev2});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, 6, cudaEventQuery_v3020_params{ev2});
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020, 7, cudaEventQuery_v3020_params{ev2},
          /*result=cudaErrorNotReady*/ 600);
  float ms = 1.5f;
  Runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v12080, 8, cudaEventElapsedTime_v12080_params{&ms, ev1, ev2});

  auto ev = sink_.All<EventOpRecord>();
  ASSERT_EQ(ev.size(), 7u);
  EXPECT_EQ(ev[0].op, EventOpKind::kRecord);
  EXPECT_EQ(ev[0].event_handle, 0xe1u);
  EXPECT_EQ(ev[0].stream_id, 2u);  // NULL stream in a _ptsz call
  EXPECT_EQ(ev[0].tid, 4242u);
  EXPECT_EQ(ev[0].correlation_id, 1u);
  EXPECT_EQ(ev[0].ts_ns, correlation_data_[1]);
  EXPECT_EQ(ev[1].stream_id, 2u);  // cudaStreamPerThread handle
  EXPECT_EQ(ev[2].stream_id, 1u);  // NULL stream: legacy default
  EXPECT_EQ(ev[3].op, EventOpKind::kWait);
  EXPECT_EQ(ev[3].stream_id, 0x55u);
  EXPECT_EQ(ev[3].event_handle, 0xe1u);
  EXPECT_EQ(ev[4].op, EventOpKind::kSynchronize);
  EXPECT_EQ(ev[4].stream_id, std::nullopt);
  EXPECT_EQ(ev[5].op, EventOpKind::kQuery);
  EXPECT_EQ(ev[6].op, EventOpKind::kElapsed);
  EXPECT_EQ(ev[6].event_handle, 0xe1u);
  EXPECT_EQ(ev[6].other_event, 0xe2u);
  ASSERT_TRUE(ev[6].elapsed_ms.has_value());
  EXPECT_DOUBLE_EQ(*ev[6].elapsed_ms, 1.5);
  EXPECT_EQ(ev[6].correlation_id, 8u);
}

TEST_F(MemoryTrackerTest, EnabledCallbackIdsCoverTheTrackedCalls) {
  auto rt = MemoryTracker::RuntimeCallbackIds();
  auto has = [](const std::vector<uint32_t>& v, uint32_t id) { return std::find(v.begin(), v.end(), id) != v.end(); };
  EXPECT_TRUE(has(rt, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000));
  EXPECT_TRUE(has(rt, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000));
  EXPECT_TRUE(has(rt, CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v3020));
  EXPECT_FALSE(has(rt, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020));
  auto drv = MemoryTracker::DriverCallbackIds();
  EXPECT_TRUE(has(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  EXPECT_TRUE(has(drv, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz));
  EXPECT_TRUE(has(drv, CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2));
}

}  // namespace
}  // namespace streamscope::collector
