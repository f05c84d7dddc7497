#include "schema/schema.h"

namespace streamscope::schema_internal {
extern const int kEmbeddedSchemaVersion;
extern const std::string_view kEmbeddedSchemaSql;
}  // namespace streamscope::schema_internal

namespace streamscope::schema {
namespace {
constexpr std::string_view kFinalizeMarker = "-- streamscope:finalize";
// Versions 2 and 3 changed copy-kind names and views only (see the schema's history).
constexpr int kOldestReadableVersion = 1;

constexpr std::string_view kRequiredTables[] = {
    "metadata",   "string",        "device",          "context",        "stream",         "thread",     "kernel",
    "memcpy",     "memset",        "graph_execution", "api_call",       "sync",           "nvtx_range", "nvtx_mark",
    "allocation", "memory_access", "event_op",        "collector_stat", "cupti_overhead",
};
}  // namespace

int Version() { return schema_internal::kEmbeddedSchemaVersion; }

int OldestReadableVersion() { return kOldestReadableVersion; }

namespace {
// The statement of CreateSql() that starts with `head`, through its ';'
// (DDL statements here hold no ';' inside), or "" if there is none.
std::string Statement(std::string_view head) {
  std::string_view sql = CreateSql();
  size_t at = sql.find(head);
  if (at == std::string_view::npos) return "";
  size_t end = sql.find(';', at);
  return std::string(sql.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at + 1));
}
}  // namespace

std::string UpgradeSql(int from_version) {
  if (from_version < kOldestReadableVersion || from_version >= Version()) return "";
  // streamscope_schema.sql's history: 1 -> 2 renamed the copy kinds and
  // changed the two views; 2 -> 3 changed gpu_op_with_api. No version
  // changed a table, so every upgrade is: the copy-kind rows when older
  // than 2, both views, both version stamps.
  std::string v = std::to_string(Version());
  std::string sql;
  if (from_version < 2) sql += "DELETE FROM enum_copy_kind;\n" + Statement("INSERT INTO enum_copy_kind VALUES") + "\n";
  return sql + "DROP VIEW IF EXISTS gpu_op_with_api;\nDROP VIEW IF EXISTS gpu_op;\n" +
         Statement("CREATE VIEW gpu_op AS") + "\n" + Statement("CREATE VIEW gpu_op_with_api AS") + "\n" +
         "UPDATE metadata SET value = '" + v + "' WHERE key = 'schema_version';\n" + "PRAGMA user_version = " + v +
         ";\n";
}

std::string_view FullSql() { return schema_internal::kEmbeddedSchemaSql; }

std::string_view CreateSql() {
  std::string_view sql = FullSql();
  size_t marker = sql.find(kFinalizeMarker);
  return marker == std::string_view::npos ? sql : sql.substr(0, marker);
}

std::string_view FinalizeSql() {
  std::string_view sql = FullSql();
  size_t marker = sql.find(kFinalizeMarker);
  return marker == std::string_view::npos ? std::string_view() : sql.substr(marker);
}

const std::string_view* RequiredTables(int* count) {
  *count = static_cast<int>(std::size(kRequiredTables));
  return kRequiredTables;
}

}  // namespace streamscope::schema
