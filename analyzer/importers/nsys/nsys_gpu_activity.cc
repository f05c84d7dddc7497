// GPU activity tables of an Nsight Systems export: kernels, copies, memsets,
// whole-graph executions and explicit synchronizations.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/importers/nsys/nsys_import_context.h"
#include "analyzer/model/saturating.h"
#include "schema/enum_values.h"

namespace streamscope::nsys {
namespace {

constexpr std::string_view kKernelTable = "CUPTI_ACTIVITY_KIND_KERNEL";
constexpr std::string_view kMemcpyTable = "CUPTI_ACTIVITY_KIND_MEMCPY";
constexpr std::string_view kMemsetTable = "CUPTI_ACTIVITY_KIND_MEMSET";
constexpr std::string_view kGraphTable = "CUPTI_ACTIVITY_KIND_GRAPH_TRACE";
constexpr std::string_view kSyncTable = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";

// Hot loops never ask SQLite whether a value is NULL (each question costs
// as much as reading the value): the SELECTs map NULL to a sentinel with
// COALESCE instead. kNull is INT64_MIN.
constexpr int64_t kNull = INT64_MIN;

// Checks a record's interval; bad ones are counted and skipped.
bool ValidSpan(ImportContext& ctx, const SqliteStatement& row, int start_col, int end_col, int64_t* start,
               int64_t* end) {
  *start = row.Int64(start_col);
  *end = row.Int64(end_col);
  if (*start == kNull || *end == kNull) {
    ++ctx.stats["record_null_timestamp"];
    return false;
  }
  if (*start == 0 && *end == 0) {
    ++ctx.stats["op_zero_timestamp"];
    return false;
  }
  if (*end < *start) {
    ++ctx.stats["op_end_before_start"];
    return false;
  }
  if (!IsTraceTime(*start) || !IsTraceTime(*end)) {
    ++ctx.stats["op_time_out_of_range"];
    return false;
  }
  return true;
}

// The globalPid column is selected with ColOr(..., kNullSql).
ProcessState& ProcessOf(ImportContext& ctx, const SqliteStatement& row, int global_pid_col) {
  int64_t global_pid = row.Int64(global_pid_col);
  if (global_pid == kNull) {
    ++ctx.stats["record_without_process"];
    global_pid = 0;
  }
  return *ctx.ProcessForGlobalId(global_pid, /*create=*/true);
}

// A column selected with ColOr(..., "-1"): -1 for NULL and for CUPTI's
// "does not apply" (0xFFFFFFFF).
int64_t OptionalId(const SqliteStatement& row, int col) {
  int64_t v = row.Int64(col);
  return v == kInvalidU32 ? -1 : v;
}

std::string ColOr(ImportContext& ctx, const std::string& table, std::string_view column, std::string_view fallback) {
  return ctx.ColOr(table, column, fallback);
}

struct OpRow {
  int64_t start = 0, end = 0;
  OpCategory category = OpCategory::kKernel;
  int32_t device = 0;
  int64_t stream_id = 0;
  int64_t correlation = -1;
  StringId name = kNoString;
  int64_t bytes = 0;
  MemoryKind src = MemoryKind::kUnknown, dst = MemoryKind::kUnknown;
  int32_t peer = -1;
  int64_t graph_id = -1;
  int64_t source_id = 0;
  bool is_async = false;  // else decided from the submitting API's name later
  uint8_t blocks = 0;     // kernels: KeptKernelBlocks of the grid
};

void AppendOp(ImportContext& ctx, ProcessState& p, const OpRow& r) {
  GpuOps& ops = p.model.ops;
  ops.start_ns.push_back(r.start);
  ops.end_ns.push_back(r.end);
  ops.category.push_back(r.category);
  ops.device_id.push_back(r.device);
  ops.stream.push_back(ctx.StreamIndex(p, r.stream_id, r.device));
  ops.correlation_id.push_back(r.correlation);
  ops.name.push_back(r.name);
  ops.bytes.push_back(r.bytes);
  ops.src_kind.push_back(r.src);
  ops.dst_kind.push_back(r.dst);
  ops.is_async.push_back(r.is_async ? 1 : 0);
  ops.peer_device.push_back(r.peer);
  ops.graph_id.push_back(r.graph_id);
  ops.source_id.push_back(r.source_id);
  p.model.kernel_blocks.push_back(r.blocks);
}

int32_t ToInt32(int64_t v) {
  if (v > INT32_MAX || v < INT32_MIN) return v == kInvalidU32 ? -1 : 0;
  return static_cast<int32_t>(v);
}

// Columns every GPU activity table starts with, in this order:
// 0 rowid, 1 start, 2 end, 3 deviceId, 4 streamId, 5 correlationId, 6 globalPid.
std::string CommonColumns(ImportContext& ctx, const std::string& t) {
  return absl::StrCat("rowid, ", ColOr(ctx, t, "start", kNullSql), ", ", ColOr(ctx, t, "end", kNullSql), ", ",
                      ColOr(ctx, t, "deviceId", "0"), ", ", ColOr(ctx, t, "streamId", "0"), ", ",
                      ColOr(ctx, t, "correlationId", "-1"), ", ", ColOr(ctx, t, "globalPid", kNullSql));
}

void ReadCommon(const SqliteStatement& row, OpRow* r) {
  r->source_id = row.Int64(0);
  r->device = ToInt32(row.Int64(3));
  r->stream_id = row.Int64(4);
  r->correlation = row.Int64(5);
}

// One GPU activity table being read, positioned on its next op.
class OpSource {
 public:
  using Parse = bool (*)(ImportContext&, const SqliteStatement&, OpRow*, ProcessState**);
  OpSource(SqliteStatement stmt, Parse parse) : stmt_(std::move(stmt)), parse_(parse) {}

  // Steps to the next row that parses to an op (bad rows and migrations are
  // counted by the parser and skipped).
  absl::Status Advance(ImportContext& ctx) {
    has_row_ = false;
    while (true) {
      auto more = stmt_.Step();
      if (!more.ok()) return more.status();
      if (!*more) return absl::OkStatus();
      if (parse_(ctx, stmt_, &row_, &process_)) {
        has_row_ = true;
        return absl::OkStatus();
      }
    }
  }
  bool has_row() const { return has_row_; }
  const OpRow& row() const { return row_; }
  ProcessState& process() const { return *process_; }

 private:
  SqliteStatement stmt_;
  Parse parse_;
  OpRow row_;
  ProcessState* process_ = nullptr;
  bool has_row_ = false;
};

bool ParseKernel(ImportContext& ctx, const SqliteStatement& row, OpRow* out, ProcessState** process) {
  OpRow& r = *out;
  r = OpRow{};
  if (!ValidSpan(ctx, row, 1, 2, &r.start, &r.end)) return false;
  ProcessState& p = ProcessOf(ctx, row, 6);
  ReadCommon(row, &r);
  r.category = OpCategory::kKernel;
  const int64_t name_id = row.Int64(7);
  if (name_id != -1) r.name = ctx.Intern(p, name_id);
  if (r.name == kNoString) {
    ++ctx.stats["kernel_without_name"];
    r.name = p.model.strings.Intern("(unnamed kernel)");
  }
  r.graph_id = row.Int64(8);
  if (row.Int64(9) != 0) ++p.ops_without_graph_id_in_graph;
  r.blocks = static_cast<uint8_t>(std::clamp<int64_t>(row.Int64(10), 0, kMaxKernelBlocksKept));
  *process = &p;
  return true;
}

absl::StatusOr<std::optional<OpSource>> KernelSource(ImportContext& ctx) {
  const std::string t(kKernelTable);
  if (!ctx.db().HasTable(t)) {
    ctx.notes.push_back(absl::StrCat("export has no ", t, " table: no kernels"));
    return std::nullopt;
  }
  const bool has_graph_id = ctx.Has(t, "graphId");
  // Mangled first: that is what CUPTI (and so a streamscope trace) reports.
  std::string name = "-1";
  for (const char* c : {"shortName", "demangledName", "mangledName"}) name = ColOr(ctx, t, c, name);
  // Launch shapes are not read here: nine more values per kernel would
  // nearly double the import's cost. AddNsysKernelShapes() adds them where
  // wanted (convert); the hardware-queue check needs only the grid's blocks,
  // computed by SQLite (NULL, read as 0, when the grid is unknown).
  const std::string blocks =
      absl::StrCat("min(", kMaxKernelBlocksKept, ", max(", ColOr(ctx, t, "gridX", kNullSql), ", 0) * max(",
                   ColOr(ctx, t, "gridY", "1"), ", 1) * max(", ColOr(ctx, t, "gridZ", "1"), ", 1))");
  std::string sql = absl::StrCat(
      "SELECT ", CommonColumns(ctx, t), ", ", name, ", ", has_graph_id ? ColOr(ctx, t, "graphId", "-1") : "-1", ", ",
      // Older exports say a kernel ran in a graph, not which graph.
      !has_graph_id && ctx.Has(t, "graphNodeId") ? "\"graphNodeId\" IS NOT NULL" : "0", ", ", blocks, " FROM ", t);
  auto stmt = ctx.db().Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  return OpSource(std::move(*stmt), &ParseKernel);
}

// A copy kind neither CUPTI's numbering nor the export's enum table names:
// counted, and its value named in a note (it is imported as other_copy).
void NoteUnknownCopyKind(ImportContext& ctx, const SqliteStatement& row, int col) {
  ++ctx.stats["copy_kind_unknown"];
  std::string value = row.IsNull(col) ? "NULL" : std::string(row.Text(col));
  if (value.size() > 40) value = value.substr(0, 37) + "...";
  ++ctx.unknown_copy_kinds[value];
}

bool ParseMemcpy(ImportContext& ctx, const SqliteStatement& row, OpRow* out, ProcessState** process) {
  OpRow& r = *out;
  r = OpRow{};
  if (!ValidSpan(ctx, row, 1, 2, &r.start, &r.end)) return false;
  ProcessState& p = ProcessOf(ctx, row, 6);
  r.bytes = row.Int64(7);
  if (r.bytes < 0) {
    ++ctx.stats["copy_negative_bytes"];
    r.bytes = 0;
  }
  const int64_t copy_kind = row.Int64(8);
  CopyClass kind = ctx.copy_kinds.Map(copy_kind);
  // Text reads as 0 (CUPTI's "unknown" kind): look at such values only.
  if (!kind.known || (copy_kind == 0 && row.Text(8) != "0")) NoteUnknownCopyKind(ctx, row, 8);
  if (kind.is_migration) {
    ++p.migrations;
    if (kind.category == OpCategory::kHtoD) {
      p.migration_bytes_htod += r.bytes;
    } else if (kind.category == OpCategory::kDtoH) {
      p.migration_bytes_dtoh += r.bytes;
    } else {
      p.migration_bytes_other += r.bytes;
    }
  }
  ReadCommon(row, &r);
  r.category = kind.category;
  if (kind.is_migration) {
    // Pages moved by the driver between managed memory on the host and the
    // device, on a copy engine: no stream, no submitting call.
    r.src = r.dst = MemoryKind::kManaged;
    r.stream_id = -1;
    r.correlation = -1;
    r.is_async = true;
    r.name = p.model.strings.Intern(schema::copy_kind::kMigrationOpName);
    *process = &p;
    return true;
  }
  r.src = ctx.memory_kinds.Map(row.Int64(9));  // -1 (NULL) maps to unknown
  r.dst = ctx.memory_kinds.Map(row.Int64(10));
  if (r.category == OpCategory::kPtoP) {
    int64_t src_dev = OptionalId(row, 11), dst_dev = OptionalId(row, 12);
    r.peer = ToInt32(src_dev == r.device ? dst_dev : src_dev);
  }
  r.graph_id = row.Int64(13);
  *process = &p;
  return true;
}

absl::StatusOr<std::optional<OpSource>> MemcpySource(ImportContext& ctx) {
  const std::string t(kMemcpyTable);
  if (!ctx.db().HasTable(t)) {
    ctx.notes.push_back(absl::StrCat("export has no ", t, " table: no memory copies"));
    return std::nullopt;
  }
  std::string sql = absl::StrCat("SELECT ", CommonColumns(ctx, t), ", ", ColOr(ctx, t, "bytes", "0"), ", ",
                                 ColOr(ctx, t, "copyKind", "0"), ", ", ColOr(ctx, t, "srcKind", "-1"), ", ",
                                 ColOr(ctx, t, "dstKind", "-1"), ", ", ColOr(ctx, t, "srcDeviceId", "-1"), ", ",
                                 ColOr(ctx, t, "dstDeviceId", "-1"), ", ", ColOr(ctx, t, "graphId", "-1"), " FROM ", t);
  auto stmt = ctx.db().Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  return OpSource(std::move(*stmt), &ParseMemcpy);
}

bool ParseMemset(ImportContext& ctx, const SqliteStatement& row, OpRow* out, ProcessState** process) {
  OpRow& r = *out;
  r = OpRow{};
  if (!ValidSpan(ctx, row, 1, 2, &r.start, &r.end)) return false;
  ProcessState& p = ProcessOf(ctx, row, 6);
  ReadCommon(row, &r);
  r.category = OpCategory::kMemset;
  r.bytes = std::max<int64_t>(row.Int64(7), 0);
  r.dst = ctx.memory_kinds.Map(row.Int64(8));
  r.graph_id = row.Int64(9);
  *process = &p;
  return true;
}

absl::StatusOr<std::optional<OpSource>> MemsetSource(ImportContext& ctx) {
  const std::string t(kMemsetTable);
  if (!ctx.db().HasTable(t)) {
    ctx.notes.push_back(absl::StrCat("export has no ", t, " table: no memsets"));
    return std::nullopt;
  }
  std::string sql = absl::StrCat("SELECT ", CommonColumns(ctx, t), ", ", ColOr(ctx, t, "bytes", "0"), ", ",
                                 ColOr(ctx, t, "memKind", "-1"), ", ", ColOr(ctx, t, "graphId", "-1"), " FROM ", t);
  auto stmt = ctx.db().Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  return OpSource(std::move(*stmt), &ParseMemset);
}

bool ParseGraphExecution(ImportContext& ctx, const SqliteStatement& row, OpRow* out, ProcessState** process) {
  OpRow& r = *out;
  r = OpRow{};
  if (!ValidSpan(ctx, row, 1, 2, &r.start, &r.end)) return false;
  ProcessState& p = ProcessOf(ctx, row, 6);
  ReadCommon(row, &r);
  r.category = OpCategory::kKernel;  // the graph's kernels, not itemized
  r.graph_id = row.Int64(7);
  r.name = p.model.strings.Intern(absl::StrCat("[CUDA graph ", r.graph_id, "]"));
  ++p.graph_executions;
  *process = &p;
  return true;
}

absl::StatusOr<std::optional<OpSource>> GraphSource(ImportContext& ctx) {
  const std::string t(kGraphTable);
  if (!ctx.db().HasTable(t)) return std::nullopt;  // graph-level trace is optional
  std::string sql = absl::StrCat("SELECT ", CommonColumns(ctx, t), ", ", ColOr(ctx, t, "graphId", "-1"), " FROM ", t);
  auto stmt = ctx.db().Prepare(sql);
  if (!stmt.ok()) return stmt.status();
  return OpSource(std::move(*stmt), &ParseGraphExecution);
}

}  // namespace

absl::Status ReadGpuOps(ImportContext& ctx) {
  // Each table is in (nearly) time order; merging them as they are read
  // keeps the ops in order, so that Finalize() need not sort them.
  std::vector<OpSource> sources;
  sources.reserve(4);
  for (auto make : {&KernelSource, &MemcpySource, &MemsetSource, &GraphSource}) {
    auto source = make(ctx);
    if (!source.ok()) return source.status();
    if (!source->has_value()) continue;
    sources.push_back(std::move(**source));
    if (absl::Status s = sources.back().Advance(ctx); !s.ok()) return s;
  }
  while (true) {
    OpSource* next = nullptr;
    for (OpSource& src : sources) {
      if (!src.has_row()) continue;
      if (next == nullptr || src.row().start < next->row().start ||
          (src.row().start == next->row().start && src.row().end < next->row().end)) {
        next = &src;
      }
    }
    if (next == nullptr) break;
    AppendOp(ctx, next->process(), next->row());
    if (absl::Status s = next->Advance(ctx); !s.ok()) return s;
  }
  if (!ctx.unknown_copy_kinds.empty()) {
    int64_t total = 0;
    std::string values;
    for (const auto& [value, count] : ctx.unknown_copy_kinds) {
      total += count;
      absl::StrAppend(&values, values.empty() ? "" : ", ", "'", value, "' (", count, ")");
    }
    ctx.notes.push_back(absl::StrCat(total, " copies have a copy kind this importer does not know: ", values,
                                     "; they are imported as other_copy"));
  }
  return absl::OkStatus();
}

absl::Status ReadSyncs(ImportContext& ctx) {
  const std::string t(kSyncTable);
  if (!ctx.db().HasTable(t)) {
    ctx.notes.push_back(absl::StrCat("export has no ", t, " table: no explicit synchronizations recorded"));
    return absl::OkStatus();
  }
  std::string sql = absl::StrCat("SELECT ", CommonColumns(ctx, t), ", ", ColOr(ctx, t, "syncType", "-1"), ", ",
                                 ColOr(ctx, t, "eventId", "-1"), " FROM ", t);
  absl::Status rows = ctx.db().ForEachRow(sql, [&](const SqliteStatement& row) {
    SyncRecord s;
    if (!ValidSpan(ctx, row, 1, 2, &s.start_ns, &s.end_ns)) return;
    ProcessState& p = ProcessOf(ctx, row, 6);
    s.source_id = row.Int64(0);
    int64_t stream_id = OptionalId(row, 4);
    int32_t device = ToInt32(row.Int64(3));
    s.stream = stream_id < 0 ? -1 : ctx.StreamIndex(p, stream_id, device);
    s.correlation_id = row.Int64(5);
    int64_t type = row.Int64(7);
    s.kind = type < 0 ? SyncKind::kUnknown : ctx.sync_kinds.Map(type);
    s.event_id = OptionalId(row, 8);
    p.model.syncs.push_back(s);
  });
  if (!rows.ok()) return rows;
  return absl::OkStatus();
}

}  // namespace streamscope::nsys
