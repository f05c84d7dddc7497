#include "tests/analyzer/export/export_fixture_trace.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "schema/schema.h"

namespace streamscope::testing {
namespace {

class Db {
 public:
  ~Db() {
    for (sqlite3_stmt* s : stmts_) sqlite3_finalize(s);
    if (db_ != nullptr) sqlite3_close(db_);
  }
  bool Open(const std::string& path) {
    return sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) == SQLITE_OK;
  }
  bool Exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      error_ = msg ? msg : "sqlite error";
      sqlite3_free(msg);
      return false;
    }
    return true;
  }
  sqlite3_stmt* Prepare(const char* sql) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db_, sql, -1, &s, nullptr) != SQLITE_OK) {
      error_ = sqlite3_errmsg(db_);
      return nullptr;
    }
    stmts_.push_back(s);
    return s;
  }
  // Binds int64s (and a text at `text_index` when given) and steps.
  bool Run(sqlite3_stmt* s, std::initializer_list<int64_t> values) {
    int i = 1;
    for (int64_t v : values) sqlite3_bind_int64(s, i++, v);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
      error_ = sqlite3_errmsg(db_);
      return false;
    }
    return true;
  }
  bool Text(sqlite3_stmt* s, int64_t id, const std::string& text) {
    sqlite3_bind_int64(s, 1, id);
    sqlite3_bind_text(s, 2, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE) {
      error_ = sqlite3_errmsg(db_);
      return false;
    }
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  sqlite3* db_ = nullptr;
  std::vector<sqlite3_stmt*> stmts_;
  std::string error_;
};

}  // namespace

std::string WriteFixtureTrace(const std::string& path, const FixtureOptions& options) {
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) return path + " already exists";
  Db db;
  if (!db.Open(path)) return "cannot create " + path;
  if (!db.Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;") || !db.Exec(std::string(schema::CreateSql())) ||
      !db.Exec("BEGIN")) {
    return db.error();
  }
  const std::string meta = std::string("INSERT INTO metadata VALUES ('schema_version','") +
                           std::to_string(schema::Version()) +
                           "'),('collector_version','fixture'),('trace_format','streamscope'),"
                           "('host','fixture-host'),('pid','4242'),('command_line','./pipeline --iterations N'),"
                           "('executable','pipeline'),('clock_domain','cupti-default'),"
                           "('capture_end','normal_exit');"
                           "INSERT INTO device (id,name,uuid,compute_major,compute_minor,sm_count,"
                           "async_engine_count,concurrent_kernels,global_memory_bytes) VALUES "
                           "(0,'NVIDIA H200 (synthetic)','GPU-fixture',9,0,132,2,1,150754820096);"
                           "INSERT INTO context VALUES (1,0,7);"
                           "INSERT INTO stream (id,context_id,device_id,kind) VALUES "
                           "(7,1,0,1),(13,1,0,4),(14,1,0,4),(15,1,0,3);"
                           "INSERT INTO thread VALUES (1,'main');";
  if (!db.Exec(meta)) return db.error();
  sqlite3_stmt* str = db.Prepare("INSERT INTO string (id, value) VALUES (?, ?)");
  sqlite3_stmt* kernel = db.Prepare(
      "INSERT INTO kernel (start_ns,end_ns,device_id,context_id,stream_id,correlation_id,name_id,"
      "grid_x,grid_y,grid_z,block_x,block_y,block_z,static_shared_bytes,dynamic_shared_bytes,"
      "registers_per_thread) VALUES (?,?,0,1,?,?,?,?,1,1,256,1,1,0,1024,32)");
  sqlite3_stmt* memcpy = db.Prepare(
      "INSERT INTO memcpy (start_ns,end_ns,device_id,context_id,stream_id,correlation_id,bytes,copy_kind,"
      "src_kind,dst_kind,is_async) VALUES (?,?,0,1,?,?,?,?,?,?,?)");
  sqlite3_stmt* memset = db.Prepare(
      "INSERT INTO memset (start_ns,end_ns,device_id,context_id,stream_id,correlation_id,bytes,value,"
      "memory_kind,is_async) VALUES (?,?,0,1,?,?,65536,0,3,1)");
  sqlite3_stmt* api = db.Prepare(
      "INSERT INTO api_call (domain,cbid,name_id,tid,start_ns,end_ns,correlation_id,return_value) "
      "VALUES (?,?,?,1,?,?,?,0)");
  sqlite3_stmt* nvtx = db.Prepare(
      "INSERT INTO nvtx_range (tid,end_tid,name_id,domain_id,start_ns,end_ns,is_push_pop,depth) "
      "VALUES (1,1,?,NULL,?,?,1,?)");
  sqlite3_stmt* mark = db.Prepare("INSERT INTO nvtx_mark (tid,name_id,domain_id,ts_ns) VALUES (1,?,?,?)");
  sqlite3_stmt* sync = db.Prepare(
      "INSERT INTO sync (kind,start_ns,end_ns,context_id,stream_id,correlation_id,return_value) "
      "VALUES (3,?,?,1,?,?,0)");
  if (!str || !kernel || !memcpy || !memset || !api || !nvtx || !mark || !sync) return db.error();

  enum : int64_t {
    kHostile = 1,
    kVectorAdd,
    kLaunch,
    kCuLaunch,
    kMemcpyAsync,
    kMemsetAsync,
    kStreamSync,
    kMeasured,
    kIteration,
    kDomain,
    kWorkload,
    kValidation,
    kMemcpy
  };
  const std::pair<int64_t, std::string> strings[] = {
      {kHostile, kHostileKernelName},
      {kVectorAdd, "_Z10vector_addPfS_S_i"},
      {kLaunch, "cudaLaunchKernel"},
      {kCuLaunch, "cuLaunchKernel"},
      {kMemcpyAsync, "cudaMemcpyAsync"},
      {kMemsetAsync, "cudaMemsetAsync"},
      {kStreamSync, "cudaStreamSynchronize"},
      {kMeasured, "measured"},
      {kIteration, "iteration"},
      {kDomain, "streamscope"},
      {kWorkload, options.sequential ? "workload=synthetic-sequential" : "workload=synthetic-pipeline"},
      {kValidation, "validation=passed"},
      {kMemcpy, "cudaMemcpy"}};
  for (const auto& [id, s] : strings) {
    if (!db.Text(str, id, s)) return db.error();
  }
  const int64_t us = 1000;
  int64_t corr = 1;
  int64_t n = options.iterations;
  int64_t begin = kFixtureStartNs - 20 * us;
  int64_t end_all = kFixtureStartNs + n * kFixtureIterationNs + (options.legacy_tail ? 100 : 10) * us;
  bool ok = db.Run(nvtx, {kMeasured, begin, end_all, 0}) && db.Run(mark, {kWorkload, kDomain, begin});
  for (int64_t i = 0; ok && i < n; ++i) {
    int64_t t = kFixtureStartNs + i * kFixtureIterationNs;
    int64_t c1 = corr++, c2 = corr++, c3 = corr++, c4 = corr++;
    ok = ok && db.Run(nvtx, {kIteration, t - 8 * us, t + 90 * us, 1});
    // Host: copy, launch (with nested driver call), copy back, memset.
    ok = ok && db.Run(api, {1, 41, kMemcpyAsync, t - 7 * us, t - 5 * us, c1});
    ok = ok && db.Run(api, {1, 211, kLaunch, t - 5 * us, t - 3 * us, c2});
    ok = ok && db.Run(api, {2, 307, kCuLaunch, t - 4 * us, t - 3 * us - 500, c2});
    ok = ok && db.Run(api, {1, 41, kMemcpyAsync, t - 3 * us, t - 2 * us, c3});
    ok = ok && db.Run(api, {1, 51, kMemsetAsync, t - 2 * us, t - 1 * us, c4});
    // GPU.
    if (options.sequential) {
      ok = ok && db.Run(memcpy, {t, t + 20 * us, 13, c1, 4 << 20, 1, 2, 3, 1});
      ok = ok && db.Run(kernel, {t + 20 * us, t + 60 * us, 13, c2, i == 0 ? kHostile : kVectorAdd, 1024 + i});
      ok = ok && db.Run(memcpy, {t + 60 * us, t + 75 * us, 13, c3, 4 << 20, 2, 3, 2, 1});
      ok = ok && db.Run(memset, {t + 75 * us, t + 77 * us, 13, c4});
      continue;
    }
    ok = ok && db.Run(memcpy, {t, t + 20 * us, 13, c1, 4 << 20, 1, 2, 3, 1});
    ok = ok && db.Run(kernel, {t + 10 * us, t + 50 * us, 14, c2, i == 0 ? kHostile : kVectorAdd, 1024 + i});
    ok = ok && db.Run(memcpy, {t + 50 * us, t + 65 * us, 13, c3, 4 << 20, 2, 3, 2, 1});
    ok = ok && db.Run(memset, {t + 70 * us, t + 72 * us, 15, c4});
    if (options.jitter && i == 3) {
      int64_t c5 = corr++;
      ok = ok && db.Run(api, {1, 211, kLaunch, t - 1 * us, t - 1 * us + 500, c5});
      ok = ok && db.Run(kernel, {t + 50 * us - 5, t + 60 * us, 14, c5, kVectorAdd, 1});
    }
  }
  int64_t sync_start = kFixtureStartNs + n * kFixtureIterationNs;
  int64_t cs = corr++;
  ok = ok && db.Run(api, {1, 131, kStreamSync, sync_start, sync_start + 5 * us, cs});
  ok = ok && db.Run(sync, {sync_start, sync_start + 5 * us, 13, cs});
  if (options.legacy_tail) {
    int64_t t = sync_start + 20 * us;
    int64_t cl = corr++, cm = corr++, cc = corr++;
    ok = ok && db.Run(api, {1, 211, kLaunch, t - 3 * us, t - 1 * us, cl});
    ok = ok && db.Run(kernel, {t, t + 30 * us, 7, cl, kVectorAdd, 7});
    ok = ok && db.Run(api, {1, 51, kMemsetAsync, t + 2 * us, t + 4 * us, cm});
    ok = ok && db.Run(memset, {t + 31 * us, t + 33 * us, 15, cm});
    ok = ok && db.Run(api, {1, 31, kMemcpy, t + 6 * us, t + 50 * us, cc});
    ok = ok && db.Run(memcpy, {t + 40 * us, t + 48 * us, 7, cc, 1 << 20, 2, 3, 1, 0});
  }
  ok = ok && db.Run(mark, {kValidation, kDomain, end_all});
  if (!ok) return db.error();
  if (!db.Exec("COMMIT") || !db.Exec(std::string(schema::FinalizeSql()))) return db.error();
  return "";
}

}  // namespace streamscope::testing
