#include "tests/analyzer/importers/nsys/nsys_test_util.h"

#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>

#include "gtest/gtest.h"

namespace streamscope::nsys_test {

std::string RealExportPath(std::string_view file) {
#ifdef STREAMSCOPE_NSYS_DATA_DIR
  // Set by the build: __FILE__ is relative to the build folder when ccache
  // rewrites paths (CCACHE_BASEDIR), which breaks runs from elsewhere.
  return (std::filesystem::path(STREAMSCOPE_NSYS_DATA_DIR) / std::string(file)).string();
#endif
  // This file lives in tests/analyzer/importers/nsys/; the data in tests/data/nsys/.
  std::filesystem::path tests = std::filesystem::path(__FILE__).parent_path().parent_path().parent_path().parent_path();
  return (tests / "data" / "nsys" / std::string(file)).string();
}

TempDir::TempDir() {
  std::string tmpl = (std::filesystem::temp_directory_path() / "nsys_test_XXXXXX").string();
  char* made = mkdtemp(tmpl.data());
  EXPECT_NE(made, nullptr);
  dir_ = tmpl;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string TempDir::Path(std::string_view name) const {
  return (std::filesystem::path(dir_) / std::string(name)).string();
}

namespace {
sqlite3* Open(const std::string& path, bool create) {
  sqlite3* db = nullptr;
  int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db);
    sqlite3_close(db);
    return nullptr;
  }
  return db;
}
}  // namespace

void ExecSql(const std::string& path, const std::string& sql) {
  sqlite3* db = Open(path, /*create=*/true);
  if (db == nullptr) return;
  char* error = nullptr;
  // One transaction: one sync instead of one per statement.
  std::string batch = "BEGIN;\n" + sql + "\nCOMMIT;";
  if (sqlite3_exec(db, batch.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
    ADD_FAILURE() << "SQL failed: " << (error ? error : "?") << "\n" << sql;
  }
  sqlite3_free(error);
  sqlite3_close(db);
}

std::vector<std::vector<std::string>> SqlRows(const std::string& path, const std::string& sql) {
  std::vector<std::vector<std::string>> rows;
  sqlite3* db = Open(path, /*create=*/false);
  if (db == nullptr) return rows;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "SQL failed: " << sqlite3_errmsg(db) << "\n" << sql;
    sqlite3_close(db);
    return rows;
  }
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    std::vector<std::string> row;
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const unsigned char* text = sqlite3_column_text(stmt, i);
      row.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
    }
    rows.push_back(std::move(row));
  }
  sqlite3_finalize(stmt);
  sqlite3_close(db);
  return rows;
}

int64_t SqlInt(const std::string& path, const std::string& sql) {
  auto rows = SqlRows(path, sql);
  if (rows.empty() || rows[0].empty() || rows[0][0].empty()) return 0;
  return std::stoll(rows[0][0]);
}

bool SqlHasTable(const std::string& path, const std::string& table) {
  return SqlInt(path, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='" + table + "'") > 0;
}

std::string UnionLengthSql(const std::string& select_intervals) {
  return "WITH iv AS (" + select_intervals +
         "), ordered AS (SELECT s, e, MAX(e) OVER (ORDER BY s, e ROWS BETWEEN UNBOUNDED PRECEDING "
         "AND 1 PRECEDING) AS reach FROM iv WHERE e > s), "
         "islands AS (SELECT s, e, SUM(CASE WHEN reach IS NULL OR s > reach THEN 1 ELSE 0 END) "
         "OVER (ORDER BY s, e ROWS UNBOUNDED PRECEDING) AS grp FROM ordered) "
         "SELECT COALESCE(SUM(ge - gs), 0) FROM (SELECT MIN(s) AS gs, MAX(e) AS ge FROM islands "
         "GROUP BY grp)";
}

std::string PidExpr(const std::string& column) { return "((" + column + " >> 24) & 16777215)"; }

// Every GPU op of the export as (s, e, d, st, c, pid, bytes) rows in SQL,
// with c named like OpCategoryName(); unified-memory migrations included.
std::string OpsSql(const std::string& path) {
  std::vector<std::string> parts;
  if (SqlHasTable(path, "CUPTI_ACTIVITY_KIND_KERNEL")) {
    parts.push_back("SELECT start AS s, end AS e, deviceId AS d, streamId AS st, 'compute' AS c, " +
                    PidExpr("globalPid") + " AS pid, 0 AS bytes FROM CUPTI_ACTIVITY_KIND_KERNEL");
  }
  if (SqlHasTable(path, "CUPTI_ACTIVITY_KIND_MEMCPY")) {
    // Unified-memory migrations (11-13) are copies on no stream (-1).
    parts.push_back(
        "SELECT start, end, deviceId, CASE WHEN copyKind IN (11, 12, 13) THEN -1 ELSE "
        "streamId END, CASE copyKind WHEN 1 THEN 'H2D' WHEN 2 THEN 'D2H' WHEN 8 THEN "
        "'D2D' WHEN 10 THEN 'P2P' WHEN 11 THEN 'H2D' WHEN 12 THEN 'D2H' WHEN 13 THEN "
        "'D2D' ELSE 'other_copy' END, " +
        PidExpr("globalPid") + ", bytes FROM CUPTI_ACTIVITY_KIND_MEMCPY");
  }
  if (SqlHasTable(path, "CUPTI_ACTIVITY_KIND_MEMSET")) {
    parts.push_back("SELECT start, end, deviceId, streamId, 'memset', " + PidExpr("globalPid") +
                    ", bytes FROM CUPTI_ACTIVITY_KIND_MEMSET");
  }
  std::string sql;
  for (const std::string& p : parts) sql += (sql.empty() ? "" : " UNION ALL ") + p;
  return sql;
}

std::string ApiSql(const std::string& path) {
  if (!SqlHasTable(path, "CUPTI_ACTIVITY_KIND_RUNTIME")) {
    return "SELECT 0 AS s, 0 AS e, 0 AS tid, 0 AS pid, 0 AS cls, 0 AS corr WHERE 0";
  }
  return "SELECT start AS s, end AS e, (globalTid & 16777215) AS tid, " + PidExpr("globalTid") +
         " AS pid, eventClass AS cls, correlationId AS corr FROM CUPTI_ACTIVITY_KIND_RUNTIME "
         "WHERE eventClass IN (0, 1)";
}

int64_t GlobalTid(int64_t pid, int64_t tid) { return (int64_t{1} << 48) | (pid << 24) | tid; }

// Kept whole: the export's tables, one after another, as Nsight Systems lays them out.
void CreateExport(const std::string& path, const ExportLayout& l) {
  std::string version = !l.version.empty() ? l.version : (l.v3 ? "3.24.0" : "2.9.1");
  std::string major = version.substr(0, version.find('.'));
  std::string sql =
      "CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);\n"
      "CREATE TABLE PROCESSES (globalPid INTEGER, pid INTEGER, name TEXT);\n"
      "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);\n";
  const std::string pid = std::to_string(l.pid);
  if (l.meta) {
    std::string t = l.v3 ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
    sql += "CREATE TABLE " + t + " (name TEXT, value TEXT);\n";
    sql += "INSERT INTO " + t +
           " VALUES ('EXPORT_PRODUCT_VERSION','2099.1.1'),"
           "('EXPORT_SCHEMA_VERSION','" +
           version + "'),('EXPORT_SCHEMA_VERSION_MAJOR','" + major + "'),('EXPORT_HOST','synthetic-host');\n";
  }
  sql += "INSERT INTO PROCESSES VALUES (" + std::to_string(GlobalPid(l.pid)) + ", " + pid + ", './synthetic-app');\n";
  const std::string green = l.v3 ? "greenContextId INTEGER, " : "";
  if (l.kernel) {
    sql +=
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL, "
        "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, " +
        green +
        "streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, "
        "demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, "
        "launchType INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, "
        "gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, "
        "blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL, "
        "dynamicSharedMemory INTEGER NOT NULL, graphNodeId INTEGER" +
        std::string(l.v3 ? ", graphId INTEGER" : "") + ");\n";
  }
  if (l.memcpy) {
    sql +=
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL, "
        "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, " +
        green +
        "streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT "
        "NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER, "
        "srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause "
        "INTEGER, graphNodeId INTEGER);\n";
  }
  if (l.memset) {
    sql +=
        "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL, "
        "deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, " +
        green +
        "streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, value INTEGER, "
        "bytes INTEGER NOT NULL, graphNodeId INTEGER, memKind INTEGER);\n";
  }
  if (l.sync) {
    sql +=
        "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER NOT NULL, end INTEGER "
        "NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, " +
        green +
        "streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, syncType INTEGER "
        "NOT NULL, eventId INTEGER NOT NULL);\n";
  }
  if (l.runtime) {
    sql +=
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT "
        "NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId "
        "INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);\n";
  }
  if (l.nvtx) {
    sql +=
        "CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT "
        "NULL, rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, "
        "endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);\n";
  }
  if (l.target_info) {
    sql +=
        "CREATE TABLE TARGET_INFO_GPU (vmId INTEGER, id INTEGER, name TEXT, uuid TEXT, "
        "totalMemory INTEGER, smCount INTEGER, asyncEngines INTEGER, computeMajor INTEGER, "
        "computeMinor INTEGER, cuDevice INTEGER);\n"
        "INSERT INTO TARGET_INFO_GPU VALUES (1, 0, 'Synthetic GPU', "
        "'01234567-89ab-cdef-0123-456789abcdef', 17179869184, 100, 2, 9, 0, 0);\n"
        "CREATE TABLE TARGET_INFO_CUDA_STREAM (streamId INTEGER NOT NULL, hwId INTEGER, vmId "
        "INTEGER, processId INTEGER NOT NULL, contextId INTEGER NOT NULL, priority INTEGER NOT "
        "NULL, flag INTEGER NOT NULL);\n"
        "INSERT INTO TARGET_INFO_CUDA_STREAM VALUES (7,0,1," +
        pid + ",1,0,3),(13,0,1," + pid + ",1,4294967291,2),(14,0,1," + pid + ",1,0,1);\n";
    if (l.v3) {
      sql +=
          "CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (nullStreamId INTEGER NOT NULL, hwId "
          "INTEGER, vmId INTEGER, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
          "contextId INTEGER NOT NULL, parentContextId INTEGER, isGreenContext INTEGER);\n"
          "INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES (7,0,1," +
          pid +
          ",0,1,0,0);\n"
          "CREATE TABLE TARGET_INFO_CUDA_DEVICE (gpuId INTEGER, cudaId INTEGER, pid INTEGER);\n"
          "INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES (0, 0, " +
          pid + ");\n";
    } else {
      sql +=
          "CREATE TABLE TARGET_INFO_CUDA_NULL_STREAM (streamId INTEGER NOT NULL, hwId INTEGER, "
          "vmId INTEGER, processId INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId "
          "INTEGER NOT NULL);\n"
          "INSERT INTO TARGET_INFO_CUDA_NULL_STREAM VALUES (7,0,1," +
          pid + ",0,1);\n";
    }
  }
  if (l.v3) {
    sql +=
        "CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER PRIMARY KEY, name TEXT, label TEXT);\n"
        "INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (0,'CUDA_MEMCPY_KIND_UNKNOWN',''),"
        "(1,'CUDA_MEMCPY_KIND_HTOD',''),(2,'CUDA_MEMCPY_KIND_DTOH',''),"
        "(8,'CUDA_MEMCPY_KIND_DTOD',''),(10,'CUDA_MEMCPY_KIND_PTOP',''),"
        "(11,'CUDA_MEMCPY_KIND_UVM_HTOD',''),(12,'CUDA_MEMCPY_KIND_UVM_DTOH','');\n"
        "CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT);\n"
        "INSERT INTO ENUM_CUDA_MEM_KIND VALUES (0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE',''),"
        "(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED',''),(2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE',''),"
        "(4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED',''),(7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN','');\n"
        "CREATE TABLE ENUM_CUPTI_SYNC_TYPE (id INTEGER PRIMARY KEY, name TEXT, label TEXT);\n"
        "INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES (0,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN',''),"
        "(1,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE',''),"
        "(2,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT',''),"
        "(3,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE',''),"
        "(4,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE','');\n";
  }
  ExecSql(path, sql);
}

}  // namespace streamscope::nsys_test
