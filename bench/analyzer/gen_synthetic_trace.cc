// Writes a large synthetic streamscope trace for the analyzer benchmark:
// N GPU ops on several streams of one or more devices (about 70% kernels,
// 12% H2D, 12% D2H, 6% memsets), one submitting API call per op (same
// correlation id), an explicit stream sync every 64 ops, an NVTX "step"
// range per 256 ops and one outer "measured" range. The host submits faster
// than the GPU drains, so streams overlap and the default gap threshold
// finds some gaps. Deterministic for a given seed.
//
//   gen_synthetic_trace OUT.sqlite NUM_OPS [--streams 4] [--devices 1] [--seed 1]
//
// Fast: one transaction, prepared statements, no journal, no indexes until
// the end (like the collector).
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "schema/schema.h"

namespace {

void Check(int rc, sqlite3* db, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
    std::fprintf(stderr, "gen_synthetic_trace: %s: %s\n", what, sqlite3_errmsg(db));
    std::exit(1);
  }
}

sqlite3_stmt* Prepare(sqlite3* db, const char* sql) {
  sqlite3_stmt* s = nullptr;
  Check(sqlite3_prepare_v2(db, sql, -1, &s, nullptr), db, sql);
  return s;
}

void Step(sqlite3* db, sqlite3_stmt* s) {
  Check(sqlite3_step(s), db, "insert");
  sqlite3_reset(s);
}

struct Rng {  // xorshift64*
  uint64_t x;
  uint64_t Next() {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x * 2685821657736338717ull;
  }
  int64_t Uniform(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(Next() % static_cast<uint64_t>(hi - lo)); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: gen_synthetic_trace OUT.sqlite NUM_OPS [--streams N] [--devices N] [--seed N]\n");
    return 2;
  }
  std::string path = argv[1];
  int64_t num_ops = std::atoll(argv[2]);
  int streams_per_device = 4, devices = 1;
  uint64_t seed = 1;
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--streams"))
      streams_per_device = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--devices"))
      devices = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  std::remove(path.c_str());
  sqlite3* db = nullptr;
  Check(sqlite3_open(path.c_str(), &db), db, "open");
  Check(sqlite3_exec(db, "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -262144;", nullptr,
                     nullptr, nullptr),
        db, "pragmas");
  std::string create(streamscope::schema::CreateSql());
  Check(sqlite3_exec(db, create.c_str(), nullptr, nullptr, nullptr), db, "create");
  Check(sqlite3_exec(db, "BEGIN", nullptr, nullptr, nullptr), db, "begin");

  std::string meta = "INSERT INTO metadata VALUES ('schema_version','" +
                     std::to_string(streamscope::schema::Version()) +
                     "'),('capture_end','normal_exit'),('pid','1000'),('collector_version','bench'),"
                     "('trace_format','streamscope');";
  Check(sqlite3_exec(db, meta.c_str(), nullptr, nullptr, nullptr), db, "metadata");
  const char* names[] = {
      "gemm_kernel",      "elementwise_add", "reduce_sum",      "softmax_fwd",           "layernorm_fwd",
      "cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaStreamSynchronize", "step",
      "measured"};
  constexpr int kNumKernelNames = 5, kLaunch = 6, kMemcpy = 7, kMemset = 8, kSyncName = 9, kStep = 10, kMeasured = 11;
  sqlite3_stmt* str = Prepare(db, "INSERT INTO string VALUES (?1, ?2)");
  for (int i = 0; i < 11; ++i) {
    sqlite3_bind_int64(str, 1, i + 1);
    sqlite3_bind_text(str, 2, names[i], -1, SQLITE_STATIC);
    Step(db, str);
  }
  for (int d = 0; d < devices; ++d) {
    std::string sql =
        "INSERT INTO device (id, name, compute_major, compute_minor, sm_count, async_engine_count, "
        "concurrent_kernels, global_memory_bytes) VALUES (" +
        std::to_string(d) +
        ", 'Synthetic H200', 9, 0, 132, 3, 1, 150000000000);"
        "INSERT INTO context VALUES (" +
        std::to_string(d + 1) + ", " + std::to_string(d) + ", NULL);";
    Check(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), db, "device");
    for (int s = 0; s < streams_per_device; ++s) {
      std::string st = "INSERT INTO stream (id, context_id, device_id, kind) VALUES (" +
                       std::to_string(100 * (d + 1) + s) + ", " + std::to_string(d + 1) + ", " + std::to_string(d) +
                       ", 4);";
      Check(sqlite3_exec(db, st.c_str(), nullptr, nullptr, nullptr), db, "stream");
    }
  }
  Check(sqlite3_exec(db, "INSERT INTO thread VALUES (1, 'main')", nullptr, nullptr, nullptr), db, "thread");

  sqlite3_stmt* kernel =
      Prepare(db,
              "INSERT INTO kernel (id, start_ns, end_ns, device_id, context_id, stream_id, correlation_id, name_id, "
              "grid_x, grid_y, grid_z, block_x, block_y, block_z, registers_per_thread) "
              "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 1024, 1, 1, 256, 1, 1, 32)");
  sqlite3_stmt* memcpy_stmt = Prepare(
      db,
      "INSERT INTO memcpy (id, start_ns, end_ns, device_id, context_id, stream_id, correlation_id, bytes, copy_kind, "
      "src_kind, dst_kind, is_async) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1)");
  sqlite3_stmt* memset_stmt = Prepare(
      db,
      "INSERT INTO memset (id, start_ns, end_ns, device_id, context_id, stream_id, correlation_id, bytes, value, "
      "memory_kind, is_async) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 0, 3, 1)");
  sqlite3_stmt* api =
      Prepare(db,
              "INSERT INTO api_call (id, domain, cbid, name_id, tid, start_ns, end_ns, correlation_id, return_value) "
              "VALUES (?1, 1, ?2, ?3, 1, ?4, ?5, ?6, 0)");
  sqlite3_stmt* sync =
      Prepare(db,
              "INSERT INTO sync (id, kind, start_ns, end_ns, context_id, stream_id, correlation_id, return_value) "
              "VALUES (?1, 3, ?2, ?3, ?4, ?5, ?6, 0)");
  sqlite3_stmt* nvtx =
      Prepare(db,
              "INSERT INTO nvtx_range (id, tid, end_tid, name_id, start_ns, end_ns, is_push_pop, depth) "
              "VALUES (?1, 1, 1, ?2, ?3, ?4, 1, ?5)");

  Rng rng{seed * 0x9E3779B97F4A7C15ull + 1};
  const int num_streams = streams_per_device * devices;
  std::vector<int64_t> stream_clock(num_streams, 0);
  int64_t host = 1'000'000'000;  // trace clock starts at 1 s
  const int64_t measured_start = host - 1000;
  int64_t kernel_id = 1, memcpy_id = 1, memset_id = 1, api_id = 1, corr = 1, sync_id = 1, nvtx_id = 1;
  int64_t step_start = host;
  int64_t last_end = host;
  for (int64_t i = 0; i < num_ops; ++i) {
    int sidx = static_cast<int>((i / 8) % num_streams);  // runs of 8 ops per stream
    int device = sidx / streams_per_device;
    int64_t stream_id = 100 * (device + 1) + sidx % streams_per_device;
    int64_t r = static_cast<int64_t>(rng.Next() % 100);
    // Host side: the submitting call.
    int64_t call_start = host + rng.Uniform(300, 1500);
    int64_t call_end = call_start + rng.Uniform(1500, 4000);
    host = call_end;
    // Device side: after the stream's previous op and the call's start.
    int64_t start = std::max(stream_clock[sidx] + rng.Uniform(50, 400), call_start + rng.Uniform(1000, 3000));
    // Now and then the host is late: a visible idle gap.
    if (rng.Next() % 1000 == 0) {
      host += rng.Uniform(20'000, 200'000);
    }
    int64_t dur;
    int name_id;
    sqlite3_stmt* s;
    int64_t* id;
    if (r < 70) {
      dur = rng.Uniform(2'000, 40'000);
      name_id = kLaunch;
      s = kernel;
      id = &kernel_id;
      sqlite3_bind_int64(s, 8, 1 + static_cast<int64_t>(rng.Next() % kNumKernelNames));
    } else if (r < 94) {
      bool h2d = r < 82;
      dur = rng.Uniform(3'000, 60'000);
      name_id = kMemcpy;
      s = memcpy_stmt;
      id = &memcpy_id;
      sqlite3_bind_int64(s, 8, dur * 25);  // ~25 GB/s
      sqlite3_bind_int64(s, 9, h2d ? 1 : 2);
      sqlite3_bind_int64(s, 10, h2d ? 2 : 3);
      sqlite3_bind_int64(s, 11, h2d ? 3 : 2);
    } else {
      dur = rng.Uniform(1'000, 5'000);
      name_id = kMemset;
      s = memset_stmt;
      id = &memset_id;
      sqlite3_bind_int64(s, 8, dur * 100);
    }
    int64_t end = start + dur;
    stream_clock[sidx] = end;
    last_end = std::max(last_end, end);
    sqlite3_bind_int64(s, 1, (*id)++);
    sqlite3_bind_int64(s, 2, start);
    sqlite3_bind_int64(s, 3, end);
    sqlite3_bind_int64(s, 4, device);
    sqlite3_bind_int64(s, 5, device + 1);
    sqlite3_bind_int64(s, 6, stream_id);
    sqlite3_bind_int64(s, 7, corr);
    Step(db, s);
    sqlite3_bind_int64(api, 1, api_id++);
    sqlite3_bind_int64(api, 2, name_id == kLaunch ? 211 : name_id == kMemcpy ? 41 : 49);
    sqlite3_bind_int64(api, 3, name_id);
    sqlite3_bind_int64(api, 4, call_start);
    sqlite3_bind_int64(api, 5, call_end);
    sqlite3_bind_int64(api, 6, corr);
    Step(db, api);
    ++corr;
    // Keep the host from running arbitrarily far ahead: sync every 64 ops.
    if (i % 64 == 63) {
      int64_t sync_start = host + 500;
      int64_t sync_end = std::max(sync_start + 2000, stream_clock[sidx] + 1500);
      sqlite3_bind_int64(api, 1, api_id++);
      sqlite3_bind_int64(api, 2, 131);
      sqlite3_bind_int64(api, 3, kSyncName);
      sqlite3_bind_int64(api, 4, sync_start);
      sqlite3_bind_int64(api, 5, sync_end);
      sqlite3_bind_int64(api, 6, corr);
      Step(db, api);
      sqlite3_bind_int64(sync, 1, sync_id++);
      sqlite3_bind_int64(sync, 2, sync_start);
      sqlite3_bind_int64(sync, 3, sync_end);
      sqlite3_bind_int64(sync, 4, device + 1);
      sqlite3_bind_int64(sync, 5, stream_id);
      sqlite3_bind_int64(sync, 6, corr);
      Step(db, sync);
      ++corr;
      host = sync_end;
    }
    if (i % 256 == 255 || i + 1 == num_ops) {
      sqlite3_bind_int64(nvtx, 1, nvtx_id++);
      sqlite3_bind_int64(nvtx, 2, kStep);
      sqlite3_bind_int64(nvtx, 3, step_start);
      sqlite3_bind_int64(nvtx, 4, host);
      sqlite3_bind_int64(nvtx, 5, 1);
      Step(db, nvtx);
      step_start = host;
    }
  }
  sqlite3_bind_int64(nvtx, 1, nvtx_id++);
  sqlite3_bind_int64(nvtx, 2, kMeasured);
  sqlite3_bind_int64(nvtx, 3, measured_start);
  sqlite3_bind_int64(nvtx, 4, std::max(host, last_end) + 1000);
  sqlite3_bind_int64(nvtx, 5, 0);
  Step(db, nvtx);
  for (sqlite3_stmt* s : {str, kernel, memcpy_stmt, memset_stmt, api, sync, nvtx}) sqlite3_finalize(s);
  Check(sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr), db, "commit");
  std::string fin(streamscope::schema::FinalizeSql());
  Check(sqlite3_exec(db, fin.c_str(), nullptr, nullptr, nullptr), db, "finalize");
  sqlite3_close(db);
  std::printf("%s: %lld GPU ops (%lld kernels, %lld copies, %lld memsets), %lld API calls, %lld NVTX ranges\n",
              path.c_str(), static_cast<long long>(num_ops), static_cast<long long>(kernel_id - 1),
              static_cast<long long>(memcpy_id - 1), static_cast<long long>(memset_id - 1),
              static_cast<long long>(api_id - 1), static_cast<long long>(nvtx_id - 1));
  return 0;
}
