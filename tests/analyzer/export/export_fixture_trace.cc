#include "tests/analyzer/export/export_fixture_trace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>
#include <utility>

#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "schema/schema.h"

namespace streamscope::testing {

// Kept whole: the fixture trace's rows, one table after another, read as the trace's content.
std::string WriteFixtureTrace(const std::string& path, const FixtureOptions& options) {
  struct stat st;
  if (lstat(path.c_str(), &st) == 0) return path + " already exists";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
  if (fd < 0) return "cannot create " + path;
  close(fd);
  auto db = SqliteDb::OpenReadWrite(path);
  if (!db.ok()) return "cannot create " + path;
  TraceTableWriter w(db->get());
  absl::Status status = w.Begin();
  auto keep = [&](absl::Status s) {
    if (status.ok()) status = std::move(s);
    return status.ok();
  };
  for (const auto& [key, value] :
       std::initializer_list<std::pair<const char*, std::string>>{{"schema_version", std::to_string(schema::Version())},
                                                                  {"collector_version", "fixture"},
                                                                  {"trace_format", "streamscope"},
                                                                  {"host", "fixture-host"},
                                                                  {"pid", "4242"},
                                                                  {"command_line", "./pipeline --iterations N"},
                                                                  {"executable", "pipeline"},
                                                                  {"clock_domain", "cupti-default"},
                                                                  {"capture_end", "normal_exit"}}) {
    keep(w.Metadata(key, value));
  }
  DeviceRow device;
  device.id = 0;
  device.name = "NVIDIA H200 (synthetic)";
  device.uuid = "GPU-fixture";
  device.compute_major = 9;
  device.compute_minor = 0;
  device.sm_count = 132;
  device.async_engine_count = 2;
  device.concurrent_kernels = 1;
  device.global_memory_bytes = 150754820096;
  keep(w.Device(device));
  keep(w.Context({1, 0, 7}));
  for (auto [id, kind] : {std::pair<int64_t, int64_t>{7, 1}, {13, 4}, {14, 4}, {15, 3}}) {
    StreamRow stream;
    stream.id = id;
    stream.context_id = 1;
    stream.device_id = 0;
    stream.kind = kind;
    keep(w.Stream(stream));
  }
  keep(w.Thread({1, std::string("main")}));
  if (!status.ok()) return std::string(status.message());

  // The rows of the loop below, with the columns every fixture op shares.
  auto op = [](GpuOpColumns* row, int64_t start, int64_t end, int64_t stream, int64_t correlation) {
    row->start_ns = start;
    row->end_ns = end;
    row->device_id = 0;
    row->context_id = 1;
    row->stream_id = stream;
    row->correlation_id = correlation;
  };
  auto kernel = [&](int64_t start, int64_t end, int64_t stream, int64_t correlation, int64_t name, int64_t grid_x) {
    KernelRow row;
    op(&row, start, end, stream, correlation);
    row.name_id = name;
    row.grid_x = grid_x;
    row.grid_y = row.grid_z = 1;
    row.block_x = 256;
    row.block_y = row.block_z = 1;
    row.static_shared_bytes = 0;
    row.dynamic_shared_bytes = 1024;
    row.registers_per_thread = 32;
    return keep(w.Kernel(row));
  };
  auto memcpy = [&](int64_t start, int64_t end, int64_t stream, int64_t correlation, int64_t bytes, int64_t copy_kind,
                    int64_t src, int64_t dst, int64_t is_async) {
    MemcpyRow row;
    op(&row, start, end, stream, correlation);
    row.bytes = bytes;
    row.copy_kind = copy_kind;
    row.src_kind = src;
    row.dst_kind = dst;
    row.is_async = is_async;
    return keep(w.Memcpy(row));
  };
  auto memset = [&](int64_t start, int64_t end, int64_t stream, int64_t correlation) {
    MemsetRow row;
    op(&row, start, end, stream, correlation);
    row.bytes = 65536;
    row.value = 0;
    row.memory_kind = 3;
    row.is_async = 1;
    return keep(w.Memset(row));
  };
  auto api = [&](int64_t domain, int64_t cbid, int64_t name, int64_t start, int64_t end, int64_t correlation) {
    ApiCallRow row;
    row.domain = domain;
    row.cbid = cbid;
    row.name_id = name;
    row.tid = 1;
    row.start_ns = start;
    row.end_ns = end;
    row.correlation_id = correlation;
    row.return_value = 0;
    return keep(w.ApiCall(row));
  };
  auto nvtx = [&](int64_t name, int64_t start, int64_t end, int64_t depth) {
    NvtxRangeRow row;
    row.tid = 1;
    row.end_tid = 1;
    row.name_id = name;
    row.start_ns = start;
    row.end_ns = end;
    row.is_push_pop = 1;
    row.depth = depth;
    return keep(w.NvtxRange(row));
  };
  auto mark = [&](int64_t name, int64_t domain, int64_t ts) { return keep(w.NvtxMark({1, name, domain, ts})); };
  auto sync = [&](int64_t start, int64_t end, int64_t stream, int64_t correlation) {
    SyncRow row;
    row.kind = 3;
    row.start_ns = start;
    row.end_ns = end;
    row.context_id = 1;
    row.stream_id = stream;
    row.correlation_id = correlation;
    row.return_value = 0;
    return keep(w.Sync(row));
  };
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
  for (const auto& [id, s] : strings) keep(w.String(id, s));
  const int64_t us = 1000;
  int64_t corr = 1;
  int64_t n = options.iterations;
  int64_t begin = kFixtureStartNs - 20 * us;
  int64_t end_all = kFixtureStartNs + n * kFixtureIterationNs + (options.legacy_tail ? 100 : 10) * us;
  bool ok = nvtx(kMeasured, begin, end_all, 0) && mark(kWorkload, kDomain, begin);
  for (int64_t i = 0; ok && i < n; ++i) {
    int64_t t = kFixtureStartNs + i * kFixtureIterationNs;
    int64_t c1 = corr++, c2 = corr++, c3 = corr++, c4 = corr++;
    ok = ok && nvtx(kIteration, t - 8 * us, t + 90 * us, 1);
    // Host: copy, launch (with nested driver call), copy back, memset.
    ok = ok && api(1, 41, kMemcpyAsync, t - 7 * us, t - 5 * us, c1);
    ok = ok && api(1, 211, kLaunch, t - 5 * us, t - 3 * us, c2);
    ok = ok && api(2, 307, kCuLaunch, t - 4 * us, t - 3 * us - 500, c2);
    ok = ok && api(1, 41, kMemcpyAsync, t - 3 * us, t - 2 * us, c3);
    ok = ok && api(1, 51, kMemsetAsync, t - 2 * us, t - 1 * us, c4);
    // GPU.
    if (options.sequential) {
      ok = ok && memcpy(t, t + 20 * us, 13, c1, 4 << 20, 1, 2, 3, 1);
      ok = ok && kernel(t + 20 * us, t + 60 * us, 13, c2, i == 0 ? kHostile : kVectorAdd, 1024 + i);
      ok = ok && memcpy(t + 60 * us, t + 75 * us, 13, c3, 4 << 20, 2, 3, 2, 1);
      ok = ok && memset(t + 75 * us, t + 77 * us, 13, c4);
      continue;
    }
    ok = ok && memcpy(t, t + 20 * us, 13, c1, 4 << 20, 1, 2, 3, 1);
    ok = ok && kernel(t + 10 * us, t + 50 * us, 14, c2, i == 0 ? kHostile : kVectorAdd, 1024 + i);
    ok = ok && memcpy(t + 50 * us, t + 65 * us, 13, c3, 4 << 20, 2, 3, 2, 1);
    ok = ok && memset(t + 70 * us, t + 72 * us, 15, c4);
    if (options.jitter && i == 3) {
      int64_t c5 = corr++;
      ok = ok && api(1, 211, kLaunch, t - 1 * us, t - 1 * us + 500, c5);
      ok = ok && kernel(t + 50 * us - 5, t + 60 * us, 14, c5, kVectorAdd, 1);
    }
  }
  int64_t sync_start = kFixtureStartNs + n * kFixtureIterationNs;
  int64_t cs = corr++;
  ok = ok && api(1, 131, kStreamSync, sync_start, sync_start + 5 * us, cs);
  ok = ok && sync(sync_start, sync_start + 5 * us, 13, cs);
  if (options.legacy_tail) {
    int64_t t = sync_start + 20 * us;
    int64_t cl = corr++, cm = corr++, cc = corr++;
    ok = ok && api(1, 211, kLaunch, t - 3 * us, t - 1 * us, cl);
    ok = ok && kernel(t, t + 30 * us, 7, cl, kVectorAdd, 7);
    ok = ok && api(1, 51, kMemsetAsync, t + 2 * us, t + 4 * us, cm);
    ok = ok && memset(t + 31 * us, t + 33 * us, 15, cm);
    ok = ok && api(1, 31, kMemcpy, t + 6 * us, t + 50 * us, cc);
    ok = ok && memcpy(t + 40 * us, t + 48 * us, 7, cc, 1 << 20, 2, 3, 1, 0);
  }
  ok = ok && mark(kValidation, kDomain, end_all);
  if (!ok || !status.ok()) return std::string(status.message());
  if (absl::Status s = w.Finish(); !s.ok()) return std::string(s.message());
  return "";
}

}  // namespace streamscope::testing
