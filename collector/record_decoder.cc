// Decoder for the CUDA 13.0 CUPTI record versions. Part of the CUPTI layer
// (the files that include CUPTI headers, listed in README.md "Design"): the
// decoder must know CUPTI's struct layouts, but it never calls CUPTI.
#include "collector/record_decoder.h"

#include <cupti_activity.h>

#include <cstring>
#include <optional>
#include <string_view>

namespace streamscope::collector {
namespace {

constexpr uint32_t kInvalid32 = 0xFFFFFFFFu;

std::optional<uint32_t> Valid32(uint32_t v) {
  if (v == kInvalid32) return std::nullopt;
  return v;
}

std::string_view View(const char* s) { return s == nullptr ? std::string_view() : std::string_view(s); }

// CUPTI reports 0 for ops outside graphs.
GraphIds Graph(uint32_t graph_id, uint64_t node_id) {
  GraphIds g;
  if (graph_id != 0) g.graph_id = graph_id;
  if (node_id != 0) g.graph_node_id = node_id;
  return g;
}

// CUPTI records are PACKED; copy fields out through memcpy'd locals to avoid
// unaligned references.
template <typename T>
T Load(const void* record) {
  T value;
  std::memcpy(&value, record, sizeof(T));
  return value;
}

KernelRecord DecodeKernel(const CUpti_ActivityKernel10& k) {
  KernelRecord r;
  r.start_ns = k.start;
  r.end_ns = k.end;
  r.device_id = k.deviceId;
  r.context_id = k.contextId;
  r.stream_id = k.streamId;
  r.correlation_id = k.correlationId;
  r.name = View(k.name);
  r.grid[0] = k.gridX, r.grid[1] = k.gridY, r.grid[2] = k.gridZ;
  r.block[0] = k.blockX, r.block[1] = k.blockY, r.block[2] = k.blockZ;
  r.static_shared_bytes = k.staticSharedMemory;
  r.dynamic_shared_bytes = k.dynamicSharedMemory;
  r.registers_per_thread = k.registersPerThread;
  r.launch_type = k.launchType;
  r.graph = Graph(k.graphId, k.graphNodeId);
  return r;
}

MemcpyRecord DecodeMemcpy(const CUpti_ActivityMemcpy6& m) {
  MemcpyRecord r;
  r.start_ns = m.start;
  r.end_ns = m.end;
  r.device_id = m.deviceId;
  r.context_id = m.contextId;
  r.stream_id = m.streamId;
  r.correlation_id = m.correlationId;
  r.bytes = m.bytes;
  r.copy_kind = m.copyKind;
  r.src_kind = m.srcKind;
  r.dst_kind = m.dstKind;
  r.is_async = (m.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
  r.graph = Graph(m.graphId, m.graphNodeId);
  return r;
}

MemcpyRecord DecodePeerMemcpy(const CUpti_ActivityMemcpyPtoP4& m) {
  MemcpyRecord r;
  r.start_ns = m.start;
  r.end_ns = m.end;
  r.device_id = m.deviceId;
  r.context_id = m.contextId;
  r.stream_id = m.streamId;
  r.correlation_id = m.correlationId;
  r.bytes = m.bytes;
  r.copy_kind = m.copyKind;
  r.src_kind = m.srcKind;
  r.dst_kind = m.dstKind;
  r.is_async = (m.flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
  r.src_device_id = m.srcDeviceId;
  r.dst_device_id = m.dstDeviceId;
  r.src_context_id = m.srcContextId;
  r.dst_context_id = m.dstContextId;
  r.graph = Graph(m.graphId, m.graphNodeId);
  return r;
}

MemsetRecord DecodeMemset(const CUpti_ActivityMemset4& m) {
  MemsetRecord r;
  r.start_ns = m.start;
  r.end_ns = m.end;
  r.device_id = m.deviceId;
  r.context_id = m.contextId;
  r.stream_id = m.streamId;
  r.correlation_id = m.correlationId;
  r.bytes = m.bytes;
  r.value = m.value;
  r.memory_kind = m.memoryKind;
  r.is_async = (m.flags & CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC) != 0;
  r.graph = Graph(m.graphId, m.graphNodeId);
  return r;
}

ApiRecord DecodeApi(const CUpti_ActivityAPI& a, ApiDomain domain) {
  ApiRecord r;
  r.domain = domain;
  r.cbid = a.cbid;
  r.tid = a.threadId;
  r.start_ns = a.start;
  r.end_ns = a.end;
  r.correlation_id = a.correlationId;
  r.return_value = a.returnValue;
  return r;
}

SyncRecord DecodeSync(const CUpti_ActivitySynchronization2& s) {
  SyncRecord r;
  r.kind = static_cast<uint32_t>(s.type);
  r.start_ns = s.start;
  r.end_ns = s.end;
  r.context_id = Valid32(s.contextId);
  r.stream_id = Valid32(s.streamId);
  r.event_id = Valid32(s.cudaEventId);
  r.correlation_id = s.correlationId;
  r.return_value = s.returnValue;
  return r;
}

MarkerRecord DecodeMarker(const CUpti_ActivityMarker2& m) {
  MarkerRecord r;
  uint32_t flags = static_cast<uint32_t>(m.flags);
  if (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
    r.phase = MarkerRecord::Phase::kStart;
  } else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
    r.phase = MarkerRecord::Phase::kEnd;
  } else {
    r.phase = MarkerRecord::Phase::kInstant;
  }
  r.ts_ns = m.timestamp;
  r.id = m.id;
  if (m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
    r.tid = m.objectId.pt.threadId;
  }
  r.name = View(m.name);
  r.domain = View(m.domain);
  return r;
}

MarkerDataRecord DecodeMarkerData(const CUpti_ActivityMarkerData2& m) {
  MarkerDataRecord r;
  r.id = m.id;
  if (static_cast<uint32_t>(m.flags) & CUPTI_ACTIVITY_FLAG_MARKER_COLOR_ARGB) {
    r.color = m.color;
  }
  r.category = m.category;
  return r;
}

OverheadRecord DecodeOverhead(const CUpti_ActivityOverhead3& o) {
  OverheadRecord r;
  r.kind = static_cast<uint32_t>(o.overheadKind);
  r.object_kind = static_cast<uint32_t>(o.objectKind);
  switch (o.objectKind) {
    case CUPTI_ACTIVITY_OBJECT_PROCESS:
    case CUPTI_ACTIVITY_OBJECT_THREAD: r.object_id = o.objectId.pt.threadId; break;
    case CUPTI_ACTIVITY_OBJECT_DEVICE: r.object_id = o.objectId.dcs.deviceId; break;
    case CUPTI_ACTIVITY_OBJECT_CONTEXT: r.object_id = o.objectId.dcs.contextId; break;
    case CUPTI_ACTIVITY_OBJECT_STREAM: r.object_id = o.objectId.dcs.streamId; break;
    default: break;
  }
  r.start_ns = o.start;
  r.end_ns = o.end;
  return r;
}

}  // namespace

uint32_t ActivityKindOf(const void* record) { return static_cast<uint32_t>(Load<CUpti_Activity>(record).kind); }

DecodeResult DecodeActivityRecord(const void* record, RecordBatch* out) {
  switch (Load<CUpti_Activity>(record).kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL:
      out->emplace_back(DecodeKernel(Load<CUpti_ActivityKernel10>(record)));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
      out->emplace_back(DecodeMemcpy(Load<CUpti_ActivityMemcpy6>(record)));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
      out->emplace_back(DecodePeerMemcpy(Load<CUpti_ActivityMemcpyPtoP4>(record)));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_MEMSET:
      out->emplace_back(DecodeMemset(Load<CUpti_ActivityMemset4>(record)));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
      out->emplace_back(DecodeApi(Load<CUpti_ActivityAPI>(record), ApiDomain::kRuntime));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_DRIVER:
      out->emplace_back(DecodeApi(Load<CUpti_ActivityAPI>(record), ApiDomain::kDriver));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API: {
      // A launch outside any public API: stored like the driver launch it
      // stands for, under a cbid no real driver function has.
      ApiRecord r = DecodeApi(Load<CUpti_ActivityAPI>(record), ApiDomain::kDriver);
      r.cbid = kInternalLaunchCbid;
      out->emplace_back(r);
      return DecodeResult::kDecoded;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
      out->emplace_back(DecodeSync(Load<CUpti_ActivitySynchronization2>(record)));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_MARKER:
      out->emplace_back(DecodeMarker(Load<CUpti_ActivityMarker2>(record)));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_MARKER_DATA:
      out->emplace_back(DecodeMarkerData(Load<CUpti_ActivityMarkerData2>(record)));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_STREAM: {
      auto s = Load<CUpti_ActivityStream>(record);
      StreamRecord r;
      r.stream_id = s.streamId;
      r.context_id = s.contextId;
      r.priority = s.priority;
      r.cupti_flag = static_cast<uint32_t>(s.flag);
      out->emplace_back(r);
      return DecodeResult::kDecoded;
    }
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
      auto c = Load<CUpti_ActivityContext3>(record);
      ContextRecord r;
      r.context_id = c.contextId;
      r.device_id = c.deviceId;
      r.null_stream_id = c.nullStreamId;
      out->emplace_back(r);
      return DecodeResult::kDecoded;
    }
    case CUPTI_ACTIVITY_KIND_OVERHEAD:
      out->emplace_back(DecodeOverhead(Load<CUpti_ActivityOverhead3>(record)));
      return DecodeResult::kDecoded;
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      auto g = Load<CUpti_ActivityGraphTrace2>(record);
      GraphExecRecord r;
      r.start_ns = g.start;
      r.end_ns = g.end;
      r.device_id = g.deviceId;
      r.context_id = g.contextId;
      r.stream_id = g.streamId;
      r.correlation_id = g.correlationId;
      r.graph_id = g.graphId;
      out->emplace_back(r);
      return DecodeResult::kDecoded;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE:
      // The device table is filled from the driver API (device_probe.h),
      // which also knows concurrent-kernel support and copy-engine count.
      return DecodeResult::kIgnored;
    default: return DecodeResult::kUnknownKind;
  }
}

}  // namespace streamscope::collector
