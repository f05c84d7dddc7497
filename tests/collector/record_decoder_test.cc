// Decoder tests: CUPTI records built in memory, as CUPTI would lay them out.
#include "collector/record_decoder.h"

#include <cupti_activity.h>
#include <gtest/gtest.h>

#include <cstring>

namespace streamscope::collector {
namespace {

template <typename T>
T Zeroed() {
  T t;
  std::memset(&t, 0, sizeof(t));
  return t;
}

TEST(RecordDecoder, ConcurrentKernelKeepsLaunchShapeStreamAndCorrelation) {
  auto k = Zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.start = 1000;
  k.end = 2500;
  k.deviceId = 1;
  k.contextId = 7;
  k.streamId = 13;
  k.correlationId = 99;
  k.gridX = 4, k.gridY = 2, k.gridZ = 1;
  k.blockX = 128, k.blockY = 1, k.blockZ = 1;
  k.staticSharedMemory = 256;
  k.dynamicSharedMemory = 1024;
  k.registersPerThread = 32;
  k.name = "_Z6kernelPf";
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&k, &out), DecodeResult::kDecoded);
  ASSERT_EQ(out.size(), 1u);
  const auto& r = std::get<KernelRecord>(out[0]);
  EXPECT_EQ(r.start_ns, 1000u);
  EXPECT_EQ(r.end_ns, 2500u);
  EXPECT_EQ(r.device_id, 1u);
  EXPECT_EQ(r.context_id, 7u);
  EXPECT_EQ(r.stream_id, 13u);
  EXPECT_EQ(r.correlation_id, 99u);
  EXPECT_EQ(r.grid[0], 4);
  EXPECT_EQ(r.grid[1], 2);
  EXPECT_EQ(r.block[0], 128);
  EXPECT_EQ(r.static_shared_bytes, 256);
  EXPECT_EQ(r.dynamic_shared_bytes, 1024);
  EXPECT_EQ(r.registers_per_thread, 32u);
  EXPECT_EQ(r.name, "_Z6kernelPf");
  EXPECT_FALSE(r.graph.graph_id.has_value());
  EXPECT_FALSE(r.graph.graph_node_id.has_value());
}

TEST(RecordDecoder, KernelInsideGraphCarriesGraphIds) {
  auto k = Zeroed<CUpti_ActivityKernel10>();
  k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k.graphId = 5;
  k.graphNodeId = 77;
  k.name = "k";
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&k, &out), DecodeResult::kDecoded);
  const auto& r = std::get<KernelRecord>(out[0]);
  EXPECT_EQ(r.graph.graph_id, 5u);
  EXPECT_EQ(r.graph.graph_node_id, 77u);
}

TEST(RecordDecoder, PinnedAsyncHostToDeviceCopy) {
  auto m = Zeroed<CUpti_ActivityMemcpy6>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.flags = CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC;
  m.bytes = 1 << 20;
  m.start = 10;
  m.end = 20;
  m.streamId = 3;
  m.correlationId = 4;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&m, &out), DecodeResult::kDecoded);
  const auto& r = std::get<MemcpyRecord>(out[0]);
  EXPECT_EQ(r.copy_kind, 1u);
  EXPECT_EQ(r.src_kind, 2u);
  EXPECT_EQ(r.dst_kind, 3u);
  EXPECT_TRUE(r.is_async);
  EXPECT_EQ(r.bytes, 1u << 20);
  EXPECT_FALSE(r.src_device_id.has_value());
}

TEST(RecordDecoder, PageableSyncDeviceToHostCopyIsNotAsync) {
  auto m = Zeroed<CUpti_ActivityMemcpy6>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
  m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&m, &out), DecodeResult::kDecoded);
  const auto& r = std::get<MemcpyRecord>(out[0]);
  EXPECT_EQ(r.copy_kind, 2u);
  EXPECT_EQ(r.dst_kind, 1u);
  EXPECT_FALSE(r.is_async);
}

TEST(RecordDecoder, PeerCopyNamesBothDevices) {
  auto m = Zeroed<CUpti_ActivityMemcpyPtoP4>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMCPY2;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_PTOP;
  m.srcDeviceId = 0;
  m.dstDeviceId = 1;
  m.srcContextId = 1;
  m.dstContextId = 2;
  m.bytes = 4096;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&m, &out), DecodeResult::kDecoded);
  const auto& r = std::get<MemcpyRecord>(out[0]);
  EXPECT_EQ(r.copy_kind, 10u);
  EXPECT_EQ(r.src_device_id, 0u);
  EXPECT_EQ(r.dst_device_id, 1u);
  EXPECT_EQ(r.dst_context_id, 2u);
  EXPECT_EQ(r.bytes, 4096u);
}

TEST(RecordDecoder, MemsetKeepsValueKindAndAsyncFlag) {
  auto m = Zeroed<CUpti_ActivityMemset4>();
  m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
  m.value = 0xab;
  m.bytes = 512;
  m.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.flags = CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&m, &out), DecodeResult::kDecoded);
  const auto& r = std::get<MemsetRecord>(out[0]);
  EXPECT_EQ(r.value, 0xabu);
  EXPECT_EQ(r.bytes, 512u);
  EXPECT_EQ(r.memory_kind, 3u);
  EXPECT_TRUE(r.is_async);
}

TEST(RecordDecoder, RuntimeAndDriverApiCallsKeepTheirDomain) {
  auto a = Zeroed<CUpti_ActivityAPI>();
  a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a.cbid = 211;
  a.threadId = 4242;
  a.start = 5;
  a.end = 9;
  a.correlationId = 17;
  a.returnValue = 0;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&a, &out), DecodeResult::kDecoded);
  a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
  ASSERT_EQ(DecodeActivityRecord(&a, &out), DecodeResult::kDecoded);
  EXPECT_EQ(std::get<ApiRecord>(out[0]).domain, ApiDomain::kRuntime);
  EXPECT_EQ(std::get<ApiRecord>(out[1]).domain, ApiDomain::kDriver);
  EXPECT_EQ(std::get<ApiRecord>(out[0]).tid, 4242u);
  EXPECT_EQ(std::get<ApiRecord>(out[0]).cbid, 211u);
  EXPECT_EQ(std::get<ApiRecord>(out[0]).correlation_id, 17u);
}

TEST(RecordDecoder, SyncFieldsThatDoNotApplyBecomeNull) {
  auto s = Zeroed<CUpti_ActivitySynchronization2>();
  s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
  s.contextId = 1;
  s.streamId = 0xFFFFFFFFu;
  s.cudaEventId = 0xFFFFFFFFu;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&s, &out), DecodeResult::kDecoded);
  const auto& r = std::get<SyncRecord>(out[0]);
  EXPECT_EQ(r.kind, 4u);
  EXPECT_EQ(r.context_id, 1u);
  EXPECT_FALSE(r.stream_id.has_value());
  EXPECT_FALSE(r.event_id.has_value());
}

TEST(RecordDecoder, MarkerPhasesAndThread) {
  auto m = Zeroed<CUpti_ActivityMarker2>();
  m.kind = CUPTI_ACTIVITY_KIND_MARKER;
  m.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
  m.id = 3;
  m.timestamp = 100;
  m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  m.objectId.pt.threadId = 555;
  m.name = "step";
  m.domain = nullptr;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&m, &out), DecodeResult::kDecoded);
  m.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
  m.name = nullptr;
  ASSERT_EQ(DecodeActivityRecord(&m, &out), DecodeResult::kDecoded);
  m.flags = CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS;
  m.name = "mark";
  m.domain = "mydomain";
  ASSERT_EQ(DecodeActivityRecord(&m, &out), DecodeResult::kDecoded);
  EXPECT_EQ(std::get<MarkerRecord>(out[0]).phase, MarkerRecord::Phase::kStart);
  EXPECT_EQ(std::get<MarkerRecord>(out[0]).tid, 555u);
  EXPECT_EQ(std::get<MarkerRecord>(out[0]).name, "step");
  EXPECT_TRUE(std::get<MarkerRecord>(out[0]).domain.empty());
  EXPECT_EQ(std::get<MarkerRecord>(out[1]).phase, MarkerRecord::Phase::kEnd);
  EXPECT_TRUE(std::get<MarkerRecord>(out[1]).name.empty());
  EXPECT_EQ(std::get<MarkerRecord>(out[2]).phase, MarkerRecord::Phase::kInstant);
  EXPECT_EQ(std::get<MarkerRecord>(out[2]).domain, "mydomain");
}

TEST(RecordDecoder, StreamFlagsAndContextNullStream) {
  auto s = Zeroed<CUpti_ActivityStream>();
  s.kind = CUPTI_ACTIVITY_KIND_STREAM;
  s.streamId = 14;
  s.contextId = 1;
  s.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING;
  s.priority = static_cast<uint32_t>(-2);
  auto c = Zeroed<CUpti_ActivityContext3>();
  c.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  c.contextId = 1;
  c.deviceId = 0;
  c.nullStreamId = 7;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&s, &out), DecodeResult::kDecoded);
  ASSERT_EQ(DecodeActivityRecord(&c, &out), DecodeResult::kDecoded);
  EXPECT_EQ(std::get<StreamRecord>(out[0]).cupti_flag, 2u);
  EXPECT_EQ(static_cast<int32_t>(std::get<StreamRecord>(out[0]).priority), -2);
  EXPECT_EQ(std::get<ContextRecord>(out[1]).null_stream_id, 7u);
}

TEST(RecordDecoder, OverheadAndGraphTrace) {
  auto o = Zeroed<CUpti_ActivityOverhead3>();
  o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
  o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
  o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
  o.objectId.pt.threadId = 77;
  o.start = 1;
  o.end = 2;
  auto g = Zeroed<CUpti_ActivityGraphTrace2>();
  g.kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
  g.graphId = 9;
  g.correlationId = 10;
  RecordBatch out;
  ASSERT_EQ(DecodeActivityRecord(&o, &out), DecodeResult::kDecoded);
  ASSERT_EQ(DecodeActivityRecord(&g, &out), DecodeResult::kDecoded);
  EXPECT_EQ(std::get<OverheadRecord>(out[0]).kind, 65536u);
  EXPECT_EQ(std::get<OverheadRecord>(out[0]).object_id, 77u);
  EXPECT_EQ(std::get<GraphExecRecord>(out[1]).graph_id, 9u);
}

TEST(RecordDecoder, UnknownKindIsReportedNotDecoded) {
  auto a = Zeroed<CUpti_ActivityAPI>();
  a.kind = static_cast<CUpti_ActivityKind>(CUPTI_ACTIVITY_KIND_COUNT + 5);
  RecordBatch out;
  EXPECT_EQ(DecodeActivityRecord(&a, &out), DecodeResult::kUnknownKind);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(ActivityKindOf(&a), static_cast<uint32_t>(CUPTI_ACTIVITY_KIND_COUNT + 5));
}

}  // namespace
}  // namespace streamscope::collector
