// Importer for Nsight Systems SQLite exports, schema 2.x (EXPORT_META_DATA)
// and 3.x (META_DATA_EXPORT). See analyzer/NSYS.md for what is mapped.
//
// Tables exist only when they have rows, and columns come and go between
// versions: an absent table or column is absent data, said in the model's
// notes, never an error. Errors: FAILED_PRECONDITION for an unknown major
// export version, INVALID_ARGUMENT when no CUDA activity table exists.
#include "analyzer/importers/nsys/nsys_export_importer.h"

#include <memory>
#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "analyzer/base/threads.h"
#include "analyzer/importers/nsys/nsys_import_context.h"

namespace streamscope {
namespace {

using nsys::ImportContext;
using nsys::ProcessState;

constexpr std::string_view kActivityTables[] = {
    "CUPTI_ACTIVITY_KIND_KERNEL",          "CUPTI_ACTIVITY_KIND_MEMCPY",  "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER",
    "CUPTI_ACTIVITY_KIND_GRAPH_TRACE",
};

// Tables every Nsight Systems export has, whatever was traced.
constexpr std::string_view kHostTables[] = {
    "TARGET_INFO_SESSION_START_TIME", "TARGET_INFO_SYSTEM_ENV", "ThreadNames", "ProcessStreams", "ANALYSIS_DETAILS",
};

struct ExportInfo {
  std::string meta_table;  // EXPORT_META_DATA, META_DATA_EXPORT or ""
  std::map<std::string, std::string> values;
  std::string version;  // "3.24.0", or "" when the export does not say
  int major = -1;
};

absl::StatusOr<ExportInfo> ReadExportInfo(SqliteDb& db) {
  ExportInfo info;
  for (const char* t : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
    if (db.HasTable(t) && db.HasColumn(t, "name") && db.HasColumn(t, "value")) {
      info.meta_table = t;
      break;
    }
  }
  if (info.meta_table.empty()) return info;
  absl::Status rows =
      db.ForEachRow(absl::StrCat("SELECT name, value FROM ", info.meta_table), [&](const SqliteStatement& row) {
        if (row.IsNull(0)) return;
        info.values.emplace(std::string(row.Text(0)), std::string(row.Text(1)));
      });
  if (!rows.ok()) return rows;
  auto it = info.values.find("EXPORT_SCHEMA_VERSION");
  if (it != info.values.end()) info.version = it->second;
  std::string major_text;
  if (auto m = info.values.find("EXPORT_SCHEMA_VERSION_MAJOR"); m != info.values.end()) {
    major_text = m->second;
  } else if (!info.version.empty()) {
    major_text = std::string(*absl::StrSplit(info.version, '.').begin());
  }
  if (!major_text.empty()) {
    int major = -1;
    if (!absl::SimpleAtoi(major_text, &major)) {
      return absl::FailedPreconditionError(
          absl::StrCat("Nsight Systems export schema version '", info.version.empty() ? major_text : info.version,
                       "' (", info.meta_table, ") cannot be read; supported are 2.x and 3.x"));
    }
    info.major = major;
    if (info.version.empty()) info.version = absl::StrCat(major);
  }
  return info;
}

// Text of one column of the first matching row, bound parameters only.
std::string QueryText(SqliteDb& db, std::string_view sql, std::optional<int64_t> arg = {},
                      std::optional<std::string_view> text_arg = {}) {
  auto stmt = db.Prepare(sql);
  if (!stmt.ok()) return "";
  if (arg.has_value() && !stmt->BindInt64(1, *arg).ok()) return "";
  if (text_arg.has_value() && !stmt->BindText(1, *text_arg).ok()) return "";
  auto row = stmt->Step();
  if (!row.ok() || !*row) return "";
  return std::string(stmt->Text(0));
}

void FillMetadata(SqliteDb& db, const ExportInfo& info, size_t process_count, TraceModel& m) {
  m.format = absl::StrCat("nsys-export-", info.version.empty() ? "unknown" : info.version);
  m.metadata["trace_format"] = "nsys-export";
  if (!info.version.empty()) m.metadata["export_schema_version"] = info.version;
  if (!info.meta_table.empty()) m.metadata["export_metadata_table"] = info.meta_table;
  if (auto it = info.values.find("EXPORT_PRODUCT_VERSION"); it != info.values.end()) {
    m.metadata["nsys_version"] = it->second;
  }
  m.metadata["pid"] = absl::StrCat(m.pid);
  std::string host;
  if (db.HasTable("TARGET_INFO_SYSTEM_ENV") && db.HasColumn("TARGET_INFO_SYSTEM_ENV", "name")) {
    host = QueryText(db, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'");
  }
  if (host.empty()) {
    if (auto it = info.values.find("EXPORT_HOST"); it != info.values.end()) host = it->second;
  }
  if (!host.empty()) m.metadata["host"] = host;
  if (db.HasTable("PROCESSES") && db.HasColumn("PROCESSES", "pid")) {
    std::string name = QueryText(db, "SELECT name FROM PROCESSES WHERE pid = ?1", m.pid);
    if (!name.empty()) {
      m.metadata["process_name"] = name;
      m.metadata["executable"] = name;
    }
  }
  // The launched command; with several processes it may be a launcher's.
  if (process_count == 1 && db.HasTable("META_DATA_CAPTURE")) {
    std::string command = QueryText(db, "SELECT value FROM META_DATA_CAPTURE WHERE name = 'PROCESS_0:COMMAND'");
    if (!command.empty()) m.metadata["command_line"] = command;
  }
  if (db.HasTable("TARGET_INFO_SESSION_START_TIME") && db.HasColumn("TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
    auto start = db.QueryInt64("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
    if (start.ok() && start->has_value()) {
      m.metadata["start_wall_time_ns"] = absl::StrCat(**start);
      m.metadata["start_trace_ns"] = "0";  // nsys times count from the session start
    }
  }
  m.metadata["clock_domain"] = "nsys-session";
}

void AddProcessNotes(ProcessState& p, bool has_api_table) {
  TraceModel& m = p.model;
  if (m.ops.size() == 0) m.notes.push_back("no GPU operations recorded for this process");
  if (p.migrations > 0) {
    m.notes.push_back(
        absl::StrCat(p.migrations, " unified-memory migrations (", p.migration_bytes_htod, " bytes to device, ",
                     p.migration_bytes_dtoh, " bytes to host",
                     p.migration_bytes_other > 0 ? absl::StrCat(", ", p.migration_bytes_other, " other") : "",
                     ") are imported as copies between managed memory, named 'unified-memory migration', with "
                     "no stream or submitting call: they count as copy-engine busy time and overlap"));
  }
  if (p.graph_executions > 0) {
    m.notes.push_back(absl::StrCat(p.graph_executions,
                                   " whole-graph executions (CUDA graph trace at graph level) "
                                   "count as compute; their kernels are not itemized"));
  }
  if (p.ops_without_graph_id_in_graph > 0) {
    m.notes.push_back(absl::StrCat(p.ops_without_graph_id_in_graph,
                                   " kernels ran inside CUDA graphs whose graph id this export "
                                   "version does not record"));
  }
  if (!has_api_table) {
    m.notes.push_back(
        "export has no CUPTI_ACTIVITY_KIND_RUNTIME table: no CUDA API calls "
        "(gap causes and launch statistics are unavailable)");
  } else if (m.api.size() > 0) {
    m.notes.push_back(
        "copy/memset async flags are derived from the submitting API's name; "
        "API callback ids are not in nsys exports");
  }
}

}  // namespace

bool LooksLikeNsysExport(SqliteDb& db) {
  if (db.HasTable("EXPORT_META_DATA") || db.HasTable("META_DATA_EXPORT")) return true;
  if (!db.HasTable("StringIds")) return false;
  for (std::string_view t : kActivityTables) {
    if (db.HasTable(t)) return true;
  }
  // An export without CUDA records (recorded without -t cuda) is still an
  // export: ImportNsysExport then says what it lacks.
  for (std::string_view t : kHostTables) {
    if (db.HasTable(t)) return true;
  }
  return false;
}

absl::StatusOr<std::vector<TraceModel>> ImportNsysExport(SqliteDb& db) {
  auto info = ReadExportInfo(db);
  if (!info.ok()) return info.status();
  if (info->major != -1 && info->major != 2 && info->major != 3) {
    return absl::FailedPreconditionError(
        absl::StrCat(db.path(), ": Nsight Systems export schema version ", info->version, " (from ", info->meta_table,
                     ") is not supported; supported are 2.x and 3.x (Nsight Systems "
                     "2021-2026). Re-export the .nsys-rep with a supported nsys, or report this version."));
  }
  bool any = false;
  for (std::string_view t : kActivityTables) any = any || db.HasTable(t);
  if (!any) {
    return absl::InvalidArgumentError(
        absl::StrCat(db.path(),
                     ": Nsight Systems export with no GPU activity tables (no "
                     "CUPTI_ACTIVITY_KIND_* table): was it recorded with CUDA tracing (nsys profile -t cuda)?"));
  }

  // Memory-mapped reads skip a copy per page; exports are read once, start
  // to end. (Affects only this read-only connection.)
  (void)db.Exec("PRAGMA mmap_size = 4294967296");
  ImportContext ctx(&db);
  if (info->meta_table.empty()) {
    ctx.notes.push_back(
        "export has neither EXPORT_META_DATA nor META_DATA_EXPORT: schema "
        "version unknown, tables read by column presence");
  }
  for (const char* t : {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"}) {
    ctx.Reserve(t, /*api=*/false);
  }
  const bool has_api_table = db.HasTable("CUPTI_ACTIVITY_KIND_RUNTIME") || db.HasTable("CUPTI_ACTIVITY_KIND_DRIVER");
  // API calls are read on a second thread with its own connection (as the
  // streamscope importer does), into their own context, then merged.
  auto api_db = has_api_table ? SqliteDb::OpenReadOnly(db.path()) : absl::StatusOr<std::unique_ptr<SqliteDb>>(nullptr);
  std::unique_ptr<ImportContext> api_ctx;
  absl::Status api_status;
  TaskThreads api_thread;
  auto read_api = [](ImportContext& c) -> absl::Status {
    c.Reserve("CUPTI_ACTIVITY_KIND_RUNTIME", /*api=*/true);
    for (std::string_view t : {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER"}) {
      if (absl::Status s = nsys::ReadApiCalls(c, t); !s.ok()) return s;
    }
    return absl::OkStatus();
  };
  if (has_api_table && api_db.ok() && *api_db != nullptr) {
    (void)(*api_db)->Exec("PRAGMA mmap_size = 4294967296");
    api_ctx = std::make_unique<ImportContext>(api_db->get());
    api_thread.Start([&] { api_status = read_api(*api_ctx); });
  }
  absl::Status op_status;
  for (auto reader : {&nsys::ReadGpuOps, &nsys::ReadSyncs}) {
    op_status = reader(ctx);
    if (!op_status.ok()) break;
  }
  api_thread.Join();
  if (!op_status.ok()) return op_status;
  if (api_ctx != nullptr) {
    if (!api_status.ok()) return api_status;
    nsys::MergeApiCalls(*api_ctx, ctx);
  } else if (has_api_table) {
    // No second connection: read them here.
    if (absl::Status s = read_api(ctx); !s.ok()) return s;
  }
  if (ctx.processes().empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(db.path(), ": Nsight Systems export whose CUDA activity tables hold no usable rows"));
  }
  if (absl::Status s = nsys::ReadDevicesAndStreams(ctx); !s.ok()) return s;
  if (absl::Status s = nsys::ReadNvtx(ctx); !s.ok()) return s;
  if (absl::Status s = nsys::ReadThreadNames(ctx); !s.ok()) return s;

  std::vector<TraceModel> models;
  models.reserve(ctx.processes().size());
  const size_t process_count = ctx.processes().size();
  for (auto& [pid, p] : ctx.processes()) {
    nsys::DeriveFromApiCalls(ctx, *p);
    nsys::FinishNvtx(*p);
    AddProcessNotes(*p, has_api_table);
    TraceModel& m = p->model;
    FillMetadata(db, *info, process_count, m);
    m.notes.insert(m.notes.begin(), ctx.notes.begin(), ctx.notes.end());
    if (process_count > 1) {
      m.notes.push_back(
          absl::StrCat("export holds ", process_count, " processes with CUDA activity; this is pid ", pid));
    }
    for (const auto& [key, value] : ctx.stats) m.import_stats[key] += value;
    models.push_back(std::move(m));
  }
  return models;
}

absl::Status AddNsysKernelShapes(SqliteDb& db, TraceModel* model) {
  TraceModel& m = *model;
  m.kernel_shapes.assign(m.ops.size(), KernelShape{});
  const std::string t = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!db.HasTable(t)) return absl::OkStatus();
  // Kernel rows of this model by their rowid (source_id); whole-graph
  // executions are kernels from another table and have no shape.
  absl::flat_hash_map<int64_t, uint32_t> op_of_row;
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (m.ops.category[i] != OpCategory::kKernel) continue;
    if (m.strings.Get(m.ops.name[i]).starts_with("[CUDA graph ")) continue;
    op_of_row[m.ops.source_id[i]] = static_cast<uint32_t>(i);
  }
  ImportContext ctx(&db);
  auto c = [&](std::string_view column) { return ctx.ColOr(t, column, "0"); };
  auto to32 = [](int64_t v) { return v > INT32_MAX || v < INT32_MIN ? int32_t{0} : static_cast<int32_t>(v); };
  return db.ForEachRow(
      absl::StrCat("SELECT rowid, ", ctx.ColOr(t, "globalPid", "0"), ", ", c("gridX"), ", ", c("gridY"), ", ",
                   c("gridZ"), ", ", c("blockX"), ", ", c("blockY"), ", ", c("blockZ"), ", ", c("registersPerThread"),
                   ", ", c("staticSharedMemory"), ", ", c("dynamicSharedMemory"), " FROM ", t),
      [&](const SqliteStatement& row) {
        if (nsys::PidOf(row.Int64(1)) != m.pid) return;
        auto it = op_of_row.find(row.Int64(0));
        if (it == op_of_row.end()) return;
        KernelShape& k = m.kernel_shapes[it->second];
        for (int i = 0; i < 3; ++i) {
          k.grid[i] = to32(row.Int64(2 + i));
          k.block[i] = to32(row.Int64(5 + i));
        }
        k.registers = to32(row.Int64(8));
        k.shared_bytes = to32(row.Int64(9) + row.Int64(10));
      });
}

}  // namespace streamscope
