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
// the end (like the collector); the rows go through the trace-table writer
// (analyzer/convert/trace_table_writer.h).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "analyzer/convert/trace_table_writer.h"
#include "analyzer/sqlite/sqlite_db.h"
#include "schema/schema.h"

namespace {

[[noreturn]] void Fail(const char* what, const absl::Status& status) {
  std::fprintf(stderr, "gen_synthetic_trace: %s: %s\n", what, std::string(status.message()).c_str());
  std::exit(1);
}

void Check(const absl::Status& status, const char* what) {
  if (!status.ok()) Fail(what, status);
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

// String ids: kernel names 1..kNumKernelNames, then the API calls and the
// NVTX ranges.
constexpr int kNumKernelNames = 5, kLaunch = 6, kMemcpy = 7, kMemset = 8, kSyncName = 9, kStep = 10, kMeasured = 11;

struct Args {
  std::string path;
  int64_t num_ops = 0;
  int streams_per_device = 4, devices = 1;
  uint64_t seed = 1;
};

std::optional<Args> ParseArgs(int argc, char** argv) {
  if (argc < 3) return std::nullopt;
  Args args;
  args.path = argv[1];
  args.num_ops = std::atoll(argv[2]);
  for (int i = 3; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--streams"))
      args.streams_per_device = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--devices"))
      args.devices = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--seed"))
      args.seed = std::strtoull(argv[i + 1], nullptr, 10);
  }
  return args;
}

// Metadata, strings, devices with their contexts and streams, the thread.
void WriteHeader(streamscope::TraceTableWriter& w, const Args& args) {
  for (const auto& [key, value] : std::initializer_list<std::pair<const char*, std::string>>{
           {"schema_version", std::to_string(streamscope::schema::Version())},
           {"capture_end", "normal_exit"},
           {"pid", "1000"},
           {"collector_version", "bench"},
           {"trace_format", "streamscope"}}) {
    Check(w.Metadata(key, value), "metadata");
  }
  const char* names[] = {
      "gemm_kernel",      "elementwise_add", "reduce_sum",      "softmax_fwd",           "layernorm_fwd",
      "cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaStreamSynchronize", "step",
      "measured"};
  for (int i = 0; i < 11; ++i) Check(w.String(i + 1, names[i]), "string");
  for (int d = 0; d < args.devices; ++d) {
    streamscope::DeviceRow device;
    device.id = d;
    device.name = "Synthetic H200";
    device.compute_major = 9;
    device.compute_minor = 0;
    device.sm_count = 132;
    device.async_engine_count = 3;
    device.concurrent_kernels = 1;
    device.global_memory_bytes = 150000000000;
    Check(w.Device(device), "device");
    Check(w.Context({d + 1, d, std::nullopt}), "context");
    for (int s = 0; s < args.streams_per_device; ++s) {
      streamscope::StreamRow stream;
      stream.id = 100 * (d + 1) + s;
      stream.context_id = d + 1;
      stream.device_id = d;
      stream.kind = 4;
      Check(w.Stream(stream), "stream");
    }
  }
  Check(w.Thread({1, std::string("main")}), "thread");
}

void WriteApiCall(streamscope::TraceTableWriter& w, int64_t id, int64_t cbid, int64_t name, int64_t start, int64_t end,
                  int64_t correlation) {
  streamscope::ApiCallRow row;
  row.id = id;
  row.domain = 1;
  row.cbid = cbid;
  row.name_id = name;
  row.tid = 1;
  row.start_ns = start;
  row.end_ns = end;
  row.correlation_id = correlation;
  row.return_value = 0;
  Check(w.ApiCall(row), "api_call");
}

void WriteNvtxRange(streamscope::TraceTableWriter& w, int64_t id, int64_t name, int64_t start, int64_t end,
                    int64_t depth) {
  streamscope::NvtxRangeRow row;
  row.id = id;
  row.tid = 1;
  row.end_tid = 1;
  row.name_id = name;
  row.start_ns = start;
  row.end_ns = end;
  row.is_push_pop = 1;
  row.depth = depth;
  Check(w.NvtxRange(row), "nvtx_range");
}

// The next row id of each table, and the next correlation id.
struct Ids {
  int64_t kernel = 1, memcpy = 1, memset = 1, api = 1, corr = 1, sync = 1, nvtx = 1;
};

// Where and when one GPU op runs.
struct Placement {
  int64_t start;
  int device;
  int64_t stream_id;
};

// One GPU op, its kind chosen by r (0..99): a kernel, a copy or a memset.
// Returns the name id of its submitting call; sets its duration.
int WriteGpuOp(streamscope::TraceTableWriter& w, Rng& rng, int64_t r, const Placement& at, Ids& ids, int64_t* dur) {
  auto place = [&](streamscope::GpuOpColumns* row, int64_t* id, int64_t d) {
    row->id = (*id)++;
    row->start_ns = at.start;
    row->end_ns = at.start + d;
    row->device_id = at.device;
    row->context_id = at.device + 1;
    row->stream_id = at.stream_id;
    row->correlation_id = ids.corr;
  };
  if (r < 70) {
    *dur = rng.Uniform(2'000, 40'000);
    streamscope::KernelRow row;
    row.name_id = 1 + static_cast<int64_t>(rng.Next() % kNumKernelNames);
    place(&row, &ids.kernel, *dur);
    row.grid_x = 1024;
    row.grid_y = row.grid_z = 1;
    row.block_x = 256;
    row.block_y = row.block_z = 1;
    row.registers_per_thread = 32;
    Check(w.Kernel(row), "kernel");
    return kLaunch;
  }
  if (r < 94) {
    bool h2d = r < 82;
    *dur = rng.Uniform(3'000, 60'000);
    streamscope::MemcpyRow row;
    place(&row, &ids.memcpy, *dur);
    row.bytes = *dur * 25;  // ~25 GB/s
    row.copy_kind = h2d ? 1 : 2;
    row.src_kind = h2d ? 2 : 3;
    row.dst_kind = h2d ? 3 : 2;
    row.is_async = 1;
    Check(w.Memcpy(row), "memcpy");
    return kMemcpy;
  }
  *dur = rng.Uniform(1'000, 5'000);
  streamscope::MemsetRow row;
  place(&row, &ids.memset, *dur);
  row.bytes = *dur * 100;
  row.value = 0;
  row.memory_kind = 3;
  row.is_async = 1;
  Check(w.Memset(row), "memset");
  return kMemset;
}

// An explicit stream sync from `host` on until the stream's last op ended;
// returns when it returns.
int64_t WriteSync(streamscope::TraceTableWriter& w, int64_t host, int64_t stream_done, const Placement& at, Ids& ids) {
  int64_t sync_start = host + 500;
  int64_t sync_end = std::max(sync_start + 2000, stream_done + 1500);
  WriteApiCall(w, ids.api++, 131, kSyncName, sync_start, sync_end, ids.corr);
  streamscope::SyncRow sync;
  sync.id = ids.sync++;
  sync.kind = 3;
  sync.start_ns = sync_start;
  sync.end_ns = sync_end;
  sync.context_id = at.device + 1;
  sync.stream_id = at.stream_id;
  sync.correlation_id = ids.corr;
  sync.return_value = 0;
  Check(w.Sync(sync), "sync");
  ++ids.corr;
  return sync_end;
}

// The ops, their calls, the syncs and the NVTX ranges.
Ids WriteOps(streamscope::TraceTableWriter& w, const Args& args) {
  Rng rng{args.seed * 0x9E3779B97F4A7C15ull + 1};
  const int num_streams = args.streams_per_device * args.devices;
  std::vector<int64_t> stream_clock(num_streams, 0);
  int64_t host = 1'000'000'000;  // trace clock starts at 1 s
  const int64_t measured_start = host - 1000;
  Ids ids;
  int64_t step_start = host;
  int64_t last_end = host;
  for (int64_t i = 0; i < args.num_ops; ++i) {
    int sidx = static_cast<int>((i / 8) % num_streams);  // runs of 8 ops per stream
    int device = sidx / args.streams_per_device;
    int64_t stream_id = 100 * (device + 1) + sidx % args.streams_per_device;
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
    const Placement at{start, device, stream_id};
    int64_t dur;
    int name_id = WriteGpuOp(w, rng, r, at, ids, &dur);
    int64_t end = start + dur;
    stream_clock[sidx] = end;
    last_end = std::max(last_end, end);
    WriteApiCall(w, ids.api++,
                 name_id == kLaunch   ? 211
                 : name_id == kMemcpy ? 41
                                      : 49,
                 name_id, call_start, call_end, ids.corr);
    ++ids.corr;
    // Keep the host from running arbitrarily far ahead: sync every 64 ops.
    if (i % 64 == 63) host = WriteSync(w, host, stream_clock[sidx], at, ids);
    if (i % 256 == 255 || i + 1 == args.num_ops) {
      WriteNvtxRange(w, ids.nvtx++, kStep, step_start, host, 1);
      step_start = host;
    }
  }
  WriteNvtxRange(w, ids.nvtx++, kMeasured, measured_start, std::max(host, last_end) + 1000, 0);
  return ids;
}

}  // namespace

int main(int argc, char** argv) {
  std::optional<Args> args = ParseArgs(argc, argv);
  if (!args) {
    std::fprintf(stderr, "usage: gen_synthetic_trace OUT.sqlite NUM_OPS [--streams N] [--devices N] [--seed N]\n");
    return 2;
  }
  const std::string& path = args->path;
  std::remove(path.c_str());
  std::ofstream(path).close();  // an empty file is an empty database
  auto opened = streamscope::SqliteDb::OpenReadWrite(path);
  if (!opened.ok()) Fail("open", opened.status());
  streamscope::SqliteDb& db = **opened;
  Check(db.Exec("PRAGMA cache_size = -262144;"), "pragmas");
  streamscope::TraceTableWriter w(&db);
  Check(w.Begin(), "create");
  WriteHeader(w, *args);
  const Ids ids = WriteOps(w, *args);
  Check(w.Finish(), "finish");
  std::printf("%s: %lld GPU ops (%lld kernels, %lld copies, %lld memsets), %lld API calls, %lld NVTX ranges\n",
              path.c_str(), static_cast<long long>(args->num_ops), static_cast<long long>(ids.kernel - 1),
              static_cast<long long>(ids.memcpy - 1), static_cast<long long>(ids.memset - 1),
              static_cast<long long>(ids.api - 1), static_cast<long long>(ids.nvtx - 1));
  return 0;
}
