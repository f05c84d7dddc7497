#include "analyzer/convert/trace_table_writer.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "schema/schema.h"

namespace streamscope {

// One prepared INSERT, bound left to right: Int(..).Opt(..).Text(..).Done().
// The first bind error is kept and returned by Done().
class TraceTableWriter::Insert {
 public:
  explicit Insert(SqliteStatement stmt) : stmt_(std::move(stmt)) {}

  Insert& Int(int64_t v) { return Keep(stmt_.BindInt64(++col_, v)); }
  Insert& Opt(const OptInt& v) { return v ? Int(*v) : Null(); }
  Insert& Null() { return Keep(stmt_.BindNull(++col_)); }
  Insert& Text(std::string_view v) { return Keep(stmt_.BindText(++col_, v)); }
  Insert& OptText(const std::optional<std::string>& v) { return v ? Text(*v) : Null(); }
  Insert& OptReal(const std::optional<double>& v) { return v ? Keep(stmt_.BindDouble(++col_, *v)) : Null(); }

  absl::Status Done() {
    col_ = 0;
    absl::Status status = bind_status_.ok() ? stmt_.Run() : bind_status_;
    if (!bind_status_.ok()) {
      stmt_.Reset();
      stmt_.ClearBindings();
    }
    bind_status_ = absl::OkStatus();
    if (!status.ok()) return absl::InternalError(absl::StrCat("writing the trace failed: ", status.message()));
    return absl::OkStatus();
  }

 private:
  Insert& Keep(absl::Status s) {
    if (bind_status_.ok()) bind_status_ = std::move(s);
    return *this;
  }
  SqliteStatement stmt_;
  int col_ = 0;
  absl::Status bind_status_;
};

namespace {

absl::Status Exec(SqliteDb& db, std::string_view sql) {
  absl::Status s = db.Exec(sql);
  if (s.ok()) return s;
  return absl::InternalError(absl::StrCat("writing the trace failed: ", s.message()));
}

}  // namespace

TraceTableWriter::TraceTableWriter(SqliteDb* db) : db_(db) {}
TraceTableWriter::~TraceTableWriter() = default;

absl::StatusOr<TraceTableWriter::Insert*> TraceTableWriter::Statement(Table table, std::string_view sql) {
  std::unique_ptr<Insert>& insert = inserts_[table];
  if (insert != nullptr) return insert.get();
  auto stmt = db_->Prepare(sql);
  if (!stmt.ok()) return absl::InternalError(absl::StrCat("preparing '", std::string(sql), "': ", db_->LastError()));
  insert = std::make_unique<Insert>(std::move(*stmt));
  return insert.get();
}

absl::Status TraceTableWriter::Begin(bool durable) {
  if (!durable) {
    if (absl::Status s = Exec(*db_, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF;"); !s.ok()) return s;
  }
  if (absl::Status s = Exec(*db_, schema::CreateSql()); !s.ok()) return s;
  return Exec(*db_, "BEGIN");
}

absl::Status TraceTableWriter::Finish() {
  for (std::unique_ptr<Insert>& insert : inserts_) insert.reset();
  if (absl::Status s = Exec(*db_, "COMMIT"); !s.ok()) return s;
  return Exec(*db_, schema::FinalizeSql());
}

absl::Status TraceTableWriter::Metadata(std::string_view key, std::string_view value) {
  auto ins = Statement(kMetadata, "INSERT INTO metadata(key, value) VALUES (?1, ?2)");
  if (!ins.ok()) return ins.status();
  return (*ins)->Text(key).Text(value).Done();
}

absl::Status TraceTableWriter::String(int64_t id, std::string_view value) {
  auto ins = Statement(kString, "INSERT INTO string(id, value) VALUES (?1, ?2)");
  if (!ins.ok()) return ins.status();
  return (*ins)->Int(id).Text(value).Done();
}

absl::Status TraceTableWriter::Device(const DeviceRow& r) {
  auto ins =
      Statement(kDevice,
                "INSERT INTO device(id, name, uuid, compute_major, compute_minor, sm_count, async_engine_count, "
                "concurrent_kernels, global_memory_bytes, pci_bus_id, pci_device_id, max_threads_per_block, "
                "max_shared_memory_per_block, global_memory_clock_khz, global_memory_bandwidth_kbps) VALUES (?1,?2,"
                "?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Int(r.id)
      .Text(r.name)
      .OptText(r.uuid)
      .Opt(r.compute_major)
      .Opt(r.compute_minor)
      .Opt(r.sm_count)
      .Opt(r.async_engine_count)
      .Opt(r.concurrent_kernels)
      .Opt(r.global_memory_bytes)
      .Opt(r.pci_bus_id)
      .Opt(r.pci_device_id)
      .Opt(r.max_threads_per_block)
      .Opt(r.max_shared_memory_per_block)
      .Opt(r.global_memory_clock_khz)
      .Opt(r.global_memory_bandwidth_kbps)
      .Done();
}

absl::Status TraceTableWriter::DeviceLink(const DeviceLinkRow& r) {
  auto ins = Statement(kDeviceLink,
                       "INSERT INTO device_link(device_id, pci_bus_id, source, pcie_gen_current, pcie_width_current, "
                       "pcie_gen_max, pcie_width_max, c2c_enabled) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Int(r.device_id)
      .OptText(r.pci_bus_id)
      .Int(r.source)
      .Opt(r.pcie_gen_current)
      .Opt(r.pcie_width_current)
      .Opt(r.pcie_gen_max)
      .Opt(r.pcie_width_max)
      .Opt(r.c2c_enabled)
      .Done();
}

absl::Status TraceTableWriter::Context(const ContextRow& r) {
  auto ins = Statement(kContext, "INSERT INTO context(id, device_id, null_stream_id) VALUES (?1, ?2, ?3)");
  if (!ins.ok()) return ins.status();
  return (*ins)->Int(r.id).Int(r.device_id).Opt(r.null_stream_id).Done();
}

absl::Status TraceTableWriter::Stream(const StreamRow& r) {
  auto ins =
      Statement(kStream,
                "INSERT INTO stream(id, context_id, device_id, kind, priority, cupti_flag, created_tid) VALUES (?1,"
                "?2,?3,?4,?5,?6,?7)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Int(r.id)
      .Opt(r.context_id)
      .Opt(r.device_id)
      .Int(r.kind)
      .Opt(r.priority)
      .Opt(r.cupti_flag)
      .Opt(r.created_tid)
      .Done();
}

absl::Status TraceTableWriter::Thread(const ThreadRow& r) {
  auto ins = Statement(kThread, "INSERT INTO thread(tid, name) VALUES (?1, ?2)");
  if (!ins.ok()) return ins.status();
  return (*ins)->Int(r.tid).OptText(r.name).Done();
}

absl::Status TraceTableWriter::Kernel(const KernelRow& r) {
  auto ins =
      Statement(kKernel,
                "INSERT INTO kernel(id, start_ns, end_ns, device_id, context_id, stream_id, correlation_id, name_id, "
                "grid_x, grid_y, grid_z, block_x, block_y, block_z, static_shared_bytes, dynamic_shared_bytes, "
                "registers_per_thread, graph_id, launch_type, graph_node_id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,"
                "?11,?12,?13,?14,?15,?16,?17,?18,?19,?20)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Int(r.start_ns)
      .Int(r.end_ns)
      .Int(r.device_id)
      .Opt(r.context_id)
      .Opt(r.stream_id)
      .Opt(r.correlation_id)
      .Int(r.name_id)
      .Opt(r.grid_x)
      .Opt(r.grid_y)
      .Opt(r.grid_z)
      .Opt(r.block_x)
      .Opt(r.block_y)
      .Opt(r.block_z)
      .Opt(r.static_shared_bytes)
      .Opt(r.dynamic_shared_bytes)
      .Opt(r.registers_per_thread)
      .Opt(r.graph_id)
      .Opt(r.launch_type)
      .Opt(r.graph_node_id)
      .Done();
}

absl::Status TraceTableWriter::Memcpy(const MemcpyRow& r) {
  auto ins =
      Statement(kMemcpy,
                "INSERT INTO memcpy(id, start_ns, end_ns, device_id, context_id, stream_id, correlation_id, bytes, "
                "copy_kind, src_kind, dst_kind, is_async, src_device_id, dst_device_id, graph_id, src_context_id, "
                "dst_context_id, graph_node_id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,"
                "?18)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Int(r.start_ns)
      .Int(r.end_ns)
      .Int(r.device_id)
      .Opt(r.context_id)
      .Opt(r.stream_id)
      .Opt(r.correlation_id)
      .Int(r.bytes)
      .Int(r.copy_kind)
      .Int(r.src_kind)
      .Int(r.dst_kind)
      .Int(r.is_async)
      .Opt(r.src_device_id)
      .Opt(r.dst_device_id)
      .Opt(r.graph_id)
      .Opt(r.src_context_id)
      .Opt(r.dst_context_id)
      .Opt(r.graph_node_id)
      .Done();
}

absl::Status TraceTableWriter::Memset(const MemsetRow& r) {
  auto ins =
      Statement(kMemset,
                "INSERT INTO memset(id, start_ns, end_ns, device_id, context_id, stream_id, correlation_id, bytes, "
                "value, memory_kind, is_async, graph_id, graph_node_id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,"
                "?12,?13)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Int(r.start_ns)
      .Int(r.end_ns)
      .Int(r.device_id)
      .Opt(r.context_id)
      .Opt(r.stream_id)
      .Opt(r.correlation_id)
      .Int(r.bytes)
      .Opt(r.value)
      .Opt(r.memory_kind)
      .Int(r.is_async)
      .Opt(r.graph_id)
      .Opt(r.graph_node_id)
      .Done();
}

absl::Status TraceTableWriter::ApiCall(const ApiCallRow& r) {
  auto ins =
      Statement(kApiCall,
                "INSERT INTO api_call(id, domain, cbid, name_id, tid, start_ns, end_ns, correlation_id, return_value) "
                "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Int(r.domain)
      .Int(r.cbid)
      .Int(r.name_id)
      .Int(r.tid)
      .Int(r.start_ns)
      .Int(r.end_ns)
      .Opt(r.correlation_id)
      .Opt(r.return_value)
      .Done();
}

absl::Status TraceTableWriter::Sync(const SyncRow& r) {
  auto ins = Statement(
      kSync,
      "INSERT INTO sync(id, kind, start_ns, end_ns, context_id, stream_id, event_id, correlation_id, return_value) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Int(r.kind)
      .Int(r.start_ns)
      .Int(r.end_ns)
      .Opt(r.context_id)
      .Opt(r.stream_id)
      .Opt(r.event_id)
      .Opt(r.correlation_id)
      .Opt(r.return_value)
      .Done();
}

absl::Status TraceTableWriter::NvtxRange(const NvtxRangeRow& r) {
  auto ins =
      Statement(kNvtxRange,
                "INSERT INTO nvtx_range(id, tid, end_tid, name_id, domain_id, start_ns, end_ns, is_push_pop, depth, "
                "color, category) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Opt(r.tid)
      .Opt(r.end_tid)
      .Int(r.name_id)
      .Opt(r.domain_id)
      .Int(r.start_ns)
      .Opt(r.end_ns)
      .Int(r.is_push_pop)
      .Opt(r.depth)
      .Opt(r.color)
      .Opt(r.category)
      .Done();
}

absl::Status TraceTableWriter::NvtxMark(const NvtxMarkRow& r) {
  auto ins = Statement(kNvtxMark, "INSERT INTO nvtx_mark(id, tid, name_id, domain_id, ts_ns) VALUES (?1,?2,?3,?4,?5)");
  if (!ins.ok()) return ins.status();
  return (*ins)->Opt(r.id).Opt(r.tid).Int(r.name_id).Opt(r.domain_id).Int(r.ts_ns).Done();
}

absl::Status TraceTableWriter::Allocation(const AllocationRow& r) {
  auto ins =
      Statement(kAllocation,
                "INSERT INTO allocation(id, kind, address, bytes, device_id, stream_id, alloc_ns, "
                "alloc_correlation_id, free_ns, free_correlation_id, free_stream_id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,"
                "?9,?10,?11)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Text(r.kind)
      .Int(r.address)
      .Int(r.bytes)
      .Opt(r.device_id)
      .Opt(r.stream_id)
      .Int(r.alloc_ns)
      .Opt(r.alloc_correlation_id)
      .Opt(r.free_ns)
      .Opt(r.free_correlation_id)
      .Opt(r.free_stream_id)
      .Done();
}

absl::Status TraceTableWriter::MemoryAccess(const MemoryAccessRow& r) {
  auto ins =
      Statement(kMemoryAccess,
                "INSERT INTO memory_access(id, correlation_id, address, bytes, access, allocation_id, arg_index) "
                "VALUES (?1,?2,?3,?4,?5,?6,?7)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Int(r.correlation_id)
      .Int(r.address)
      .Int(r.bytes)
      .Text(r.access)
      .Opt(r.allocation_id)
      .Opt(r.arg_index)
      .Done();
}

absl::Status TraceTableWriter::EventOp(const EventOpRow& r) {
  auto ins = Statement(
      kEventOp,
      "INSERT INTO event_op(id, op, event_handle, other_event, stream_id, tid, ts_ns, correlation_id, elapsed_ms) "
      "VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Text(r.op)
      .Int(r.event_handle)
      .Opt(r.other_event)
      .Opt(r.stream_id)
      .Opt(r.tid)
      .Int(r.ts_ns)
      .Opt(r.correlation_id)
      .OptReal(r.elapsed_ms)
      .Done();
}

absl::Status TraceTableWriter::GraphExecution(const GraphExecutionRow& r) {
  auto ins = Statement(kGraphExecution,
                       "INSERT INTO graph_execution(id, start_ns, end_ns, device_id, context_id, stream_id, "
                       "correlation_id, graph_id) VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
  if (!ins.ok()) return ins.status();
  return (*ins)
      ->Opt(r.id)
      .Int(r.start_ns)
      .Int(r.end_ns)
      .Int(r.device_id)
      .Opt(r.context_id)
      .Opt(r.stream_id)
      .Opt(r.correlation_id)
      .Opt(r.graph_id)
      .Done();
}

absl::Status TraceTableWriter::CollectorStat(const CollectorStatRow& r) {
  auto ins = Statement(kCollectorStat, "INSERT INTO collector_stat(key, value) VALUES (?1, ?2)");
  if (!ins.ok()) return ins.status();
  return (*ins)->Text(r.key).Int(r.value).Done();
}

absl::Status TraceTableWriter::CuptiOverhead(const CuptiOverheadRow& r) {
  auto ins = Statement(kCuptiOverhead,
                       "INSERT INTO cupti_overhead(id, kind, object_kind, object_id, start_ns, end_ns) "
                       "VALUES (?1,?2,?3,?4,?5,?6)");
  if (!ins.ok()) return ins.status();
  return (*ins)->Opt(r.id).Int(r.kind).Opt(r.object_kind).Opt(r.object_id).Int(r.start_ns).Int(r.end_ns).Done();
}

}  // namespace streamscope
