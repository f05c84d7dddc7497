#include "schema/schema.h"

namespace streamscope::schema_internal {
extern const int kEmbeddedSchemaVersion;
extern const std::string_view kEmbeddedSchemaSql;
}  // namespace streamscope::schema_internal

namespace streamscope::schema {
namespace {
constexpr std::string_view kFinalizeMarker = "-- streamscope:finalize";
// Version 2 renamed copy kinds and view columns only (see the schema's history).
constexpr int kOldestReadableVersion = 1;

constexpr std::string_view kRequiredTables[] = {
    "metadata", "string",   "device",   "context",         "stream",
    "thread",   "kernel",   "memcpy",   "memset",          "graph_execution",
    "api_call", "sync",     "nvtx_range", "nvtx_mark",     "allocation",
    "memory_access", "event_op", "collector_stat", "cupti_overhead",
};
}  // namespace

int Version() { return schema_internal::kEmbeddedSchemaVersion; }

int OldestReadableVersion() { return kOldestReadableVersion; }

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
