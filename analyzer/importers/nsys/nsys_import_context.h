// Internal state of one Nsight Systems export import, shared by the table
// readers (nsys_gpu_activity.cc, nsys_host_activity.cc, nsys_target_info.cc).
// Not part of the analyzer's public API.
//
// Each table is read once, in row order, with one prepared statement; each
// row goes to the model of its process (created on first use). Names are
// interned once per StringIds id and process: after the first row, a name
// costs one vector lookup and no string copy.
//
// Ownership: ImportContext borrows the database; it owns the models until
// TakeModels(). Single-threaded.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_IMPORT_CONTEXT_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_IMPORT_CONTEXT_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "analyzer/importers/nsys/nsys_enums.h"
#include "analyzer/model/trace_model.h"
#include "analyzer/sqlite/sqlite_db.h"

namespace streamscope::nsys {

// SQL for a NULL integer column where an export lacks the column (INT64_MIN,
// written so that SQLite reads it as an integer).
inline constexpr std::string_view kNullSql = "-9223372036854775807 - 1";

// One process being imported.
struct ProcessState {
  TraceModel model;
  // nsys StringIds id -> model StringId; kUnresolved until first use.
  static constexpr StringId kUnresolved = -2;
  std::vector<StringId> string_ids;
  absl::flat_hash_map<int64_t, StringId> large_string_ids;  // ids >= kDenseIds
  // Stream index by stream id: CUPTI numbers streams with small integers,
  // so a vector serves them; larger ids go through the model's hash map.
  static constexpr int64_t kDenseStreams = 1 << 16;
  std::vector<int32_t> stream_slots;
  // NVTX domain ids of each range/mark, resolved once domain names are known.
  std::vector<int64_t> nvtx_range_domain, nvtx_mark_domain;
  absl::flat_hash_map<int64_t, StringId> nvtx_domain_names;
  // Unified-memory migrations (imported as copies between managed memory).
  int64_t migrations = 0, migration_bytes_htod = 0, migration_bytes_dtoh = 0, migration_bytes_other = 0;
  // Copies whose async flag came from the submitting API's name.
  int64_t graph_executions = 0;
  int64_t ops_without_graph_id_in_graph = 0;
};

class ImportContext {
 public:
  explicit ImportContext(SqliteDb* db);

  SqliteDb& db() { return *db_; }

  // The process of a globalPid/globalTid value (created on first use when
  // `create`, else nullptr for unknown processes).
  ProcessState* ProcessForGlobalId(int64_t global_id, bool create);
  ProcessState* ProcessForPid(int64_t pid, bool create);
  // Reserves room in p's op and API columns for `ops` / `api` more rows.
  void Reserve(std::string_view table, bool api);
  std::map<int64_t, std::unique_ptr<ProcessState>>& processes() { return processes_; }

  // The model string for a StringIds id; kNoString when the id is NULL or
  // unknown to StringIds (counted in import_stats).
  StringId Intern(ProcessState& p, int64_t nsys_string_id);
  // Text of a StringIds id, if any.
  std::optional<std::string> Text(int64_t nsys_string_id);

  // Stream index of `stream_id` in p's model.
  int32_t StreamIndex(ProcessState& p, int64_t stream_id, int32_t device_id);

  // "\"col\"" if `table` has the column, else "NULL": SELECT lists keep a
  // fixed layout across export versions.
  std::string Col(std::string_view table, std::string_view column);
  bool Has(std::string_view table, std::string_view column);
  // `column` of `table` as a SELECT expression: the column itself when the
  // table declares it NOT NULL (SQLite enforces that), else
  // COALESCE(column, fallback); `fallback` alone when the column is absent.
  // Hot loops then never ask SQLite about NULL, which costs as much as
  // reading the value.
  std::string ColOr(std::string_view table, std::string_view column, std::string_view fallback);

  // Export-wide counters and notes, copied into every model at the end.
  std::map<std::string, int64_t> stats;
  std::vector<std::string> notes;
  // Copy kinds no numbering defines: value as text -> copies.
  std::map<std::string, int64_t> unknown_copy_kinds;

  EnumTable<CopyClass> copy_kinds;
  EnumTable<MemoryKind> memory_kinds;
  EnumTable<SyncKind> sync_kinds;

 private:
  static constexpr int64_t kDenseIds = 1 << 24;
  SqliteDb* db_;
  std::optional<SqliteStatement> string_lookup_;  // reset and reused per lookup
  bool string_lookup_failed_ = false;
  std::map<int64_t, std::unique_ptr<ProcessState>> processes_;
  // Column name -> declared NOT NULL, per table (one PRAGMA per table).
  std::map<std::string, std::map<std::string, bool>, std::less<>> columns_;
  const std::map<std::string, bool>& Columns(std::string_view table);
  // Rows come in runs of one process: remember the last one.
  int64_t last_pid_ = -1;
  ProcessState* last_process_ = nullptr;
  int64_t reserve_ops_ = 0, reserve_api_ = 0;
};

// Table readers. Each returns OK when the table is absent (it adds a note);
// errors only for a damaged database.
// Kernels, copies, memsets and whole-graph executions, merged in time order.
absl::Status ReadGpuOps(ImportContext& ctx);
absl::Status ReadSyncs(ImportContext& ctx);
absl::Status ReadApiCalls(ImportContext& ctx, std::string_view table);
absl::Status ReadNvtx(ImportContext& ctx);
absl::Status ReadThreadNames(ImportContext& ctx);
absl::Status ReadDevicesAndStreams(ImportContext& ctx);
// After all tables: sync kinds and copy async flags from API names,
// per-thread default streams, NVTX depth and domains.
void DeriveFromApiCalls(ImportContext& ctx, ProcessState& p);
// Moves the API calls read into `from` (another connection, other string
// pools) into `to`, with names re-interned; stats and notes too.
void MergeApiCalls(ImportContext& from, ImportContext& to);
void FinishNvtx(ProcessState& p);

}  // namespace streamscope::nsys

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_NSYS_IMPORT_CONTEXT_H_
