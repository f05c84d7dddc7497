// Plain value structs for everything the collector records, independent of
// CUPTI's struct versions. The decoder produces them, the writer stores them.
//
// String fields are views: they point into memory owned by whoever produced
// the record (CUPTI's activity buffer and its name tables, or a test) and are
// valid only until the batch that carries them has been written.
// Optional integers use std::optional; they become SQL NULL.
#ifndef STREAMSCOPE_COLLECTOR_TRACE_RECORDS_H_
#define STREAMSCOPE_COLLECTOR_TRACE_RECORDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace streamscope::collector {

// Graph membership shared by GPU operations (both NULL outside graphs).
struct GraphIds {
  std::optional<uint32_t> graph_id;
  std::optional<uint64_t> graph_node_id;
};

struct KernelRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  std::string_view name;
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t static_shared_bytes = 0, dynamic_shared_bytes = 0;
  uint32_t registers_per_thread = 0;
  uint32_t launch_type = 0;
  GraphIds graph;
};

struct MemcpyRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  uint64_t bytes = 0;
  uint32_t copy_kind = 0, src_kind = 0, dst_kind = 0;
  bool is_async = false;
  // Peer copies (CUPTI MEMCPY2) only.
  std::optional<uint32_t> src_device_id, dst_device_id;
  std::optional<uint32_t> src_context_id, dst_context_id;
  GraphIds graph;
};

struct MemsetRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  uint64_t bytes = 0;
  uint32_t value = 0;
  uint32_t memory_kind = 0;
  bool is_async = false;
  GraphIds graph;
};

struct GraphExecRecord {
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t device_id = 0, context_id = 0, stream_id = 0, correlation_id = 0;
  uint32_t graph_id = 0;
};

enum class ApiDomain : int { kRuntime = 1, kDriver = 2 };

// cbid of a kernel launch CUPTI saw outside any public API function
// (CUPTI_ACTIVITY_KIND_INTERNAL_LAUNCH_API, stored in the driver domain):
// CUPTI leaves the record's cbid unused; 0 is the driver domain's INVALID id.
inline constexpr uint32_t kInternalLaunchCbid = 0;

struct ApiRecord {
  ApiDomain domain = ApiDomain::kRuntime;
  uint32_t cbid = 0;
  uint32_t tid = 0;
  uint64_t start_ns = 0, end_ns = 0;
  uint32_t correlation_id = 0;
  uint32_t return_value = 0;
};

struct SyncRecord {
  uint32_t kind = 0;  // CUpti_ActivitySynchronizationType
  uint64_t start_ns = 0, end_ns = 0;
  std::optional<uint32_t> context_id, stream_id, event_id;
  uint32_t correlation_id = 0;
  uint32_t return_value = 0;
};

// One NVTX marker record: an instantaneous mark, or the start or end of a
// range (start and end share `id`).
struct MarkerRecord {
  enum class Phase { kInstant, kStart, kEnd };
  Phase phase = Phase::kInstant;
  uint64_t ts_ns = 0;
  uint32_t id = 0;
  uint32_t tid = 0;
  std::string_view name;    // empty for end markers
  std::string_view domain;  // empty = default domain
};

// Color/category attached to a marker (CUPTI MARKER_DATA), keyed by id.
struct MarkerDataRecord {
  uint32_t id = 0;
  std::optional<uint32_t> color;
  uint32_t category = 0;
};

struct StreamRecord {
  uint32_t stream_id = 0, context_id = 0;
  uint32_t priority = 0;
  uint32_t cupti_flag = 0;  // 1 blocking/default, 2 non-blocking, 3 NULL stream
};

struct ContextRecord {
  uint32_t context_id = 0, device_id = 0;
  uint32_t null_stream_id = 0;
};

// Device properties, from the driver API (or CUPTI's DEVICE record).
struct DeviceRecord {
  uint32_t id = 0;
  std::string name;  // owned: produced outside any CUPTI buffer
  std::string uuid;  // 'GPU-xxxxxxxx-xxxx-...'
  std::optional<int64_t> compute_major, compute_minor, sm_count, async_engine_count, concurrent_kernels,
      global_memory_bytes, global_memory_bandwidth_kbps, global_memory_clock_khz, max_threads_per_block,
      max_shared_memory_per_block, pci_bus_id, pci_device_id;
};

// A device's host link (collector/host_link_probe.h): PCIe generation and
// width, NVLink-C2C. Unset figures were not readable.
struct HostLinkRecord {
  uint32_t device_id = 0;
  std::string pci_bus_id;  // "" when unknown
  int64_t source = 0;      // schema::link_source
  std::optional<int64_t> pcie_gen_current, pcie_width_current, pcie_gen_max, pcie_width_max, c2c_enabled;
};

struct OverheadRecord {
  uint32_t kind = 0;
  uint32_t object_kind = 0;
  std::optional<uint64_t> object_id;
  uint64_t start_ns = 0, end_ns = 0;
};

// A stream the application created explicitly (seen by the callback API):
// tells user streams apart from the per-thread default stream.
struct StreamCreatedRecord {
  uint32_t stream_id = 0;
  uint32_t tid = 0;
};

// A range opened with nvtxRangeStart* (not push/pop), seen when the
// application called it: the id NVTX returned, the thread, and the trace-clock
// interval of the call, which contains the timestamp of the range's START
// marker. Arrives before the range's MARKER records.
struct NvtxStartEndRecord {
  uint32_t id = 0;
  uint32_t tid = 0;
  uint64_t call_start_ns = 0, call_end_ns = 0;
};

// ---- What operations touch (callback API, record kind `memory`) ----------
// Correlation ids below are those of the runtime API call as stored in
// api_call and in kernel/memcpy/memset (the driver call's for driver-only
// calls); stream ids are CUPTI stream ids; times are in the trace clock.

enum class AllocationKind : uint8_t {
  kDevice,
  kPinnedHost,
  kRegisteredHost,
  kManaged,
  kPool,
  kAsync,
};
// Values of allocation.kind.
inline std::string_view AllocationKindName(AllocationKind kind) {
  constexpr std::string_view kNames[] = {"device", "pinned_host", "registered_host", "managed", "pool", "async"};
  return kNames[static_cast<int>(kind)];
}

// An allocation seen when its API call returned; `id` is assigned by the
// collector and becomes allocation.id (memory_access.allocation_id refers
// to it).
struct AllocationRecord {
  uint64_t id = 0;
  AllocationKind kind = AllocationKind::kDevice;
  uint64_t address = 0, bytes = 0;
  std::optional<uint32_t> device_id, stream_id;
  uint64_t alloc_ns = 0;
  uint32_t correlation_id = 0;
};

// The free of allocation `id` (applied to its allocation row).
struct FreeRecord {
  uint64_t id = 0;
  uint64_t free_ns = 0;
  uint32_t correlation_id = 0;
  std::optional<uint32_t> stream_id;  // stream-ordered frees
};

enum class Access : uint8_t { kRead, kWrite, kUnknown };
inline std::string_view AccessName(Access access) {
  constexpr std::string_view kNames[] = {"read", "write", "unknown"};
  return kNames[static_cast<int>(access)];
}

struct MemoryAccessRecord {
  uint32_t correlation_id = 0;
  uint64_t address = 0, bytes = 0;
  Access access = Access::kUnknown;
  std::optional<uint64_t> allocation_id;
  std::optional<uint32_t> arg_index;  // kernel parameter index
};

enum class EventOpKind : uint8_t { kRecord, kWait, kSynchronize, kQuery, kElapsed };
inline std::string_view EventOpName(EventOpKind op) {
  constexpr std::string_view kNames[] = {"record", "wait", "synchronize", "query", "elapsed"};
  return kNames[static_cast<int>(op)];
}

struct EventOpRecord {
  EventOpKind op = EventOpKind::kRecord;
  uint64_t event_handle = 0;
  std::optional<uint64_t> other_event;  // 'elapsed': the end event
  std::optional<uint32_t> stream_id;
  uint32_t tid = 0;
  uint64_t ts_ns = 0;
  uint32_t correlation_id = 0;
  std::optional<double> elapsed_ms;
};

using TraceRecord = std::variant<KernelRecord, MemcpyRecord, MemsetRecord, GraphExecRecord, ApiRecord, SyncRecord,
                                 MarkerRecord, MarkerDataRecord, StreamRecord, ContextRecord, DeviceRecord,
                                 HostLinkRecord, OverheadRecord, StreamCreatedRecord, NvtxStartEndRecord,
                                 AllocationRecord, FreeRecord, MemoryAccessRecord, EventOpRecord>;

using RecordBatch = std::vector<TraceRecord>;

// The time that places a record on the timeline (capture windows, the
// flight recorder's span): an op's or call's start, a marker's or event's
// time, an allocation's or free's. None for records that describe things
// rather than events (streams, devices, NVTX range metadata) and for memory
// accesses (placed by their call).
inline std::optional<uint64_t> RecordTimeNs(const TraceRecord& record) {
  return std::visit(
      [](const auto& r) -> std::optional<uint64_t> {
        if constexpr (requires { r.start_ns; }) {
          return r.start_ns;
        } else if constexpr (requires { r.ts_ns; }) {
          return r.ts_ns;
        } else if constexpr (requires { r.alloc_ns; }) {
          return r.alloc_ns;
        } else if constexpr (requires { r.free_ns; }) {
          return r.free_ns;
        } else {
          return std::nullopt;
        }
      },
      record);
}

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_TRACE_RECORDS_H_
