// The one place outside the collector that writes the tables of a
// streamscope trace (schema/streamscope_schema.sql): one plain struct per
// table, one INSERT per struct, so a column added to the schema is added
// here once. `streamscope convert`, `streamscope synth` (a JSON spec of
// rows: the way Python tests and generators write traces), the tests' trace
// builders (SyntheticTrace, the export fixture) and the analyzer benchmark's
// generator (bench/analyzer/gen_synthetic_trace.cc) write through it;
// tools/dev/trace_sql_check.py (CTest: trace_sql_test) fails on an
// `INSERT INTO` a trace table anywhere else outside the collector.
//
// An unset optional is NULL; an unset id lets SQLite number the row.
// Thread-compatible: one writer per database.
#ifndef STREAMSCOPE_ANALYZER_CONVERT_TRACE_TABLE_WRITER_H_
#define STREAMSCOPE_ANALYZER_CONVERT_TRACE_TABLE_WRITER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope {

using OptInt = std::optional<int64_t>;

struct DeviceRow {
  int64_t id = 0;
  std::string name;
  std::optional<std::string> uuid{};
  OptInt compute_major{}, compute_minor{}, sm_count{}, async_engine_count{}, concurrent_kernels{},
      global_memory_bytes{};
  OptInt pci_bus_id{}, pci_device_id{}, max_threads_per_block{}, max_shared_memory_per_block{},
      global_memory_clock_khz{}, global_memory_bandwidth_kbps{};
};

struct DeviceLinkRow {
  int64_t device_id = 0;
  std::optional<std::string> pci_bus_id{};
  int64_t source = 0;  // enum_link_source
  OptInt pcie_gen_current{}, pcie_width_current{}, pcie_gen_max{}, pcie_width_max{}, c2c_enabled{};
};

struct ContextRow {
  int64_t id = 0;
  int64_t device_id = 0;
  OptInt null_stream_id{};
};

struct StreamRow {
  int64_t id = 0;
  OptInt context_id{}, device_id{};
  int64_t kind = 0;  // enum_stream_kind
  OptInt priority{};
  OptInt cupti_flag{}, created_tid{};
};

struct ThreadRow {
  int64_t tid = 0;
  std::optional<std::string> name{};
};

// The columns kernels, copies and memsets share.
struct GpuOpColumns {
  OptInt id{};
  int64_t start_ns = 0, end_ns = 0;
  int64_t device_id = 0;
  OptInt context_id{}, stream_id{}, correlation_id{};
  OptInt graph_id{};
};

struct KernelRow : GpuOpColumns {
  int64_t name_id = 0;
  OptInt grid_x{}, grid_y{}, grid_z{}, block_x{}, block_y{}, block_z{};
  OptInt static_shared_bytes{}, dynamic_shared_bytes{}, registers_per_thread{};
  OptInt launch_type{}, graph_node_id{};
};

struct MemcpyRow : GpuOpColumns {
  int64_t bytes = 0;
  int64_t copy_kind = 0;               // enum_copy_kind
  int64_t src_kind = 0, dst_kind = 0;  // enum_memory_kind
  int64_t is_async = 0;
  OptInt src_device_id{}, dst_device_id{};
  OptInt src_context_id{}, dst_context_id{}, graph_node_id{};
};

struct MemsetRow : GpuOpColumns {
  int64_t bytes = 0;
  OptInt value{};
  OptInt memory_kind{};  // enum_memory_kind
  int64_t is_async = 0;
  OptInt graph_node_id{};
};

struct ApiCallRow {
  OptInt id{};
  int64_t domain = 0;  // enum_api_domain
  int64_t cbid = 0;
  int64_t name_id = 0;
  int64_t tid = 0;
  int64_t start_ns = 0, end_ns = 0;
  OptInt correlation_id{}, return_value{};
};

struct SyncRow {
  OptInt id{};
  int64_t kind = 0;  // enum_sync_kind
  int64_t start_ns = 0, end_ns = 0;
  OptInt context_id{}, stream_id{}, event_id{}, correlation_id{}, return_value{};
};

struct NvtxRangeRow {
  OptInt id{};
  OptInt tid{}, end_tid{};
  int64_t name_id = 0;
  OptInt domain_id{};
  int64_t start_ns = 0;
  OptInt end_ns{};
  int64_t is_push_pop = 0;
  OptInt depth{};
  OptInt color{}, category{};
};

struct NvtxMarkRow {
  OptInt tid{};
  int64_t name_id = 0;
  OptInt domain_id{};
  int64_t ts_ns = 0;
  OptInt id{};
};

struct AllocationRow {
  OptInt id{};
  std::string kind;
  int64_t address = 0, bytes = 0;
  OptInt device_id{}, stream_id{};
  int64_t alloc_ns = 0;
  OptInt alloc_correlation_id{}, free_ns{}, free_correlation_id{};
  OptInt free_stream_id{};
};

struct MemoryAccessRow {
  int64_t correlation_id = 0;
  int64_t address = 0, bytes = 0;
  std::string access;  // "read", "write"
  OptInt allocation_id{}, arg_index{};
  OptInt id{};
};

struct EventOpRow {
  std::string op;  // record, wait, synchronize, query, elapsed
  int64_t event_handle = 0;
  OptInt other_event{}, stream_id{}, tid{};
  int64_t ts_ns = 0;
  OptInt correlation_id{};
  std::optional<double> elapsed_ms{};
  OptInt id{};
};

struct GraphExecutionRow : GpuOpColumns {};

// The collector's own figures (a converted trace has none; a copied one
// keeps them).
struct CollectorStatRow {
  std::string key;
  int64_t value = 0;
};

struct CuptiOverheadRow {
  OptInt id{};
  int64_t kind = 0;  // enum_overhead_kind
  OptInt object_kind{}, object_id{};
  int64_t start_ns = 0, end_ns = 0;
};

class TraceTableWriter {
 public:
  // Writes into `db` (open read-write, empty); `db` must outlive the writer.
  explicit TraceTableWriter(SqliteDb* db);
  ~TraceTableWriter();
  TraceTableWriter(const TraceTableWriter&) = delete;
  TraceTableWriter& operator=(const TraceTableWriter&) = delete;

  // Creates the schema and opens the transaction the rows go into.
  // `durable` = false turns off the journal (a file that a failure deletes).
  absl::Status Begin(bool durable = false);
  // Commits the rows and runs the schema's finalizing SQL (indexes, views).
  absl::Status Finish();

  absl::Status Metadata(std::string_view key, std::string_view value);
  absl::Status String(int64_t id, std::string_view value);
  absl::Status Device(const DeviceRow& row);
  absl::Status DeviceLink(const DeviceLinkRow& row);
  absl::Status Context(const ContextRow& row);
  absl::Status Stream(const StreamRow& row);
  absl::Status Thread(const ThreadRow& row);
  absl::Status Kernel(const KernelRow& row);
  absl::Status Memcpy(const MemcpyRow& row);
  absl::Status Memset(const MemsetRow& row);
  absl::Status ApiCall(const ApiCallRow& row);
  absl::Status Sync(const SyncRow& row);
  absl::Status NvtxRange(const NvtxRangeRow& row);
  absl::Status NvtxMark(const NvtxMarkRow& row);
  absl::Status Allocation(const AllocationRow& row);
  absl::Status MemoryAccess(const MemoryAccessRow& row);
  absl::Status EventOp(const EventOpRow& row);
  absl::Status GraphExecution(const GraphExecutionRow& row);
  absl::Status CollectorStat(const CollectorStatRow& row);
  absl::Status CuptiOverhead(const CuptiOverheadRow& row);

 private:
  class Insert;
  enum Table {
    kMetadata,
    kString,
    kDevice,
    kDeviceLink,
    kContext,
    kStream,
    kThread,
    kKernel,
    kMemcpy,
    kMemset,
    kApiCall,
    kSync,
    kNvtxRange,
    kNvtxMark,
    kAllocation,
    kMemoryAccess,
    kEventOp,
    kGraphExecution,
    kCollectorStat,
    kCuptiOverhead,
    kTableCount
  };
  // The prepared INSERT of `table`, made from `sql` on first use.
  absl::StatusOr<Insert*> Statement(Table table, std::string_view sql);

  SqliteDb* db_;
  std::unique_ptr<Insert> inserts_[kTableCount];
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_CONVERT_TRACE_TABLE_WRITER_H_
