// Devices, contexts and streams of an Nsight Systems export
// (TARGET_INFO_GPU, TARGET_INFO_CUDA_DEVICE, TARGET_INFO_CUDA_STREAM, and
// each context's null stream from TARGET_INFO_CUDA_NULL_STREAM (2.x) or
// TARGET_INFO_CUDA_CONTEXT_INFO.nullStreamId (3.x)).
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "analyzer/importers/nsys/nsys_import_context.h"

namespace streamscope::nsys {
namespace {

struct GpuRow {
  int64_t nsys_id = 0;
  Device device;  // id = CUDA ordinal where the export says it
};

int32_t Int32Or(const SqliteStatement& row, int col, int32_t fallback) {
  if (row.IsNull(col)) return fallback;
  int64_t v = row.Int64(col);
  return v > INT32_MAX || v < INT32_MIN ? fallback : static_cast<int32_t>(v);
}

absl::StatusOr<std::vector<GpuRow>> ReadGpus(ImportContext& ctx) {
  std::vector<GpuRow> gpus;
  const std::string t("TARGET_INFO_GPU");
  if (!ctx.db().HasTable(t)) return gpus;
  std::string sql = absl::StrCat(
      "SELECT ", ctx.Col(t, "id"), ", ", ctx.Col(t, "name"), ", ", ctx.Col(t, "uuid"), ", ", ctx.Col(t, "computeMajor"),
      ", ", ctx.Col(t, "computeMinor"), ", ", ctx.Col(t, "smCount"), ", ", ctx.Col(t, "asyncEngines"), ", ",
      ctx.Col(t, "concurrentKernels"), ", ", ctx.Col(t, "totalMemory"), ", ", ctx.Col(t, "cuDevice"), " FROM ", t);
  absl::Status rows = ctx.db().ForEachRow(sql, [&](const SqliteStatement& row) {
    GpuRow g;
    g.nsys_id = row.Int64(0);
    g.device.id = Int32Or(row, 9, Int32Or(row, 0, 0));
    g.device.name = std::string(row.Text(1));
    std::string uuid(row.Text(2));
    if (!uuid.empty() && !uuid.starts_with("GPU-")) uuid = absl::StrCat("GPU-", uuid);
    g.device.uuid = uuid;
    g.device.compute_major = Int32Or(row, 3, 0);
    g.device.compute_minor = Int32Or(row, 4, 0);
    g.device.sm_count = Int32Or(row, 5, 0);
    g.device.async_engine_count = Int32Or(row, 6, -1);
    g.device.concurrent_kernels = Int32Or(row, 7, -1);
    g.device.global_memory_bytes = row.IsNull(8) ? 0 : row.Int64(8);
    gpus.push_back(std::move(g));
  });
  if (!rows.ok()) return rows;
  return gpus;
}

// Per process: which GPUs it used, under which CUDA ordinal (3.x); every
// device an op ran on gets a row.
absl::Status AddProcessDevices(ImportContext& ctx, const std::vector<GpuRow>& gpus) {
  SqliteDb& db = ctx.db();
  std::map<int64_t, std::vector<std::pair<int64_t, int32_t>>> cuda_devices;  // pid -> (gpu, ordinal)
  if (db.HasTable("TARGET_INFO_CUDA_DEVICE")) {
    const std::string t("TARGET_INFO_CUDA_DEVICE");
    absl::Status rows = db.ForEachRow(
        absl::StrCat("SELECT ", ctx.Col(t, "gpuId"), ", ", ctx.Col(t, "cudaId"), ", ", ctx.Col(t, "pid"), " FROM ", t),
        [&](const SqliteStatement& row) {
          if (row.IsNull(0) || row.IsNull(1)) return;
          cuda_devices[row.Int64(2)].emplace_back(row.Int64(0), Int32Or(row, 1, 0));
        });
    if (!rows.ok()) return rows;
  }
  for (auto& [pid, p] : ctx.processes()) {
    std::vector<Device>& devices = p->model.devices;
    auto it = cuda_devices.find(pid);
    if (it != cuda_devices.end()) {
      for (auto [gpu_id, ordinal] : it->second) {
        for (const GpuRow& g : gpus) {
          if (g.nsys_id != gpu_id) continue;
          Device d = g.device;
          d.id = ordinal;
          devices.push_back(d);
        }
      }
    } else {
      for (const GpuRow& g : gpus) devices.push_back(g.device);
    }
    // Every device an op ran on gets a row, even if the export lacks it.
    std::vector<int32_t> used;
    int32_t last = INT32_MIN;
    for (int32_t id : p->model.ops.device_id) {
      if (id == last) continue;  // ops of one device come in long runs
      last = id;
      if (std::find(used.begin(), used.end(), id) == used.end()) used.push_back(id);
    }
    for (int32_t id : used) {
      if (p->model.FindDevice(id) != nullptr) continue;
      Device d;
      d.id = id;
      d.name = "unknown device";
      devices.push_back(d);
      p->model.notes.push_back(absl::StrCat("device ", id, " has operations but no description in the export"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ReadDevicesAndStreams(ImportContext& ctx) {
  SqliteDb& db = ctx.db();
  auto gpus = ReadGpus(ctx);
  if (!gpus.ok()) return gpus.status();
  if (gpus->empty()) {
    ctx.notes.push_back(
        "export has no TARGET_INFO_GPU table: device properties (copy engines, "
        "SM count) are unknown");
  }

  if (absl::Status s = AddProcessDevices(ctx, *gpus); !s.ok()) return s;

  // Contexts: device and null stream (legacy default stream) of each.
  bool have_null_streams = false;
  std::map<std::pair<int64_t, int64_t>, int32_t> context_device;  // (pid, ctx) -> device
  auto read_null_streams = [&](const std::string& t, std::string_view stream_col) -> absl::Status {
    if (!db.HasTable(t)) return absl::OkStatus();
    have_null_streams = true;
    absl::Status rows =
        db.ForEachRow(absl::StrCat("SELECT ", ctx.Col(t, stream_col), ", ", ctx.Col(t, "processId"), ", ",
                                   ctx.Col(t, "deviceId"), ", ", ctx.Col(t, "contextId"), " FROM ", t),
                      [&](const SqliteStatement& row) {
                        int64_t pid = row.Int64(1);
                        int32_t device = Int32Or(row, 2, 0);
                        context_device[{pid, row.Int64(3)}] = device;
                        ProcessState* p = ctx.ProcessForPid(pid, /*create=*/false);
                        if (p == nullptr || row.IsNull(0)) return;
                        int32_t s = ctx.StreamIndex(*p, row.Int64(0), device);
                        Stream& stream = p->model.streams[s];
                        stream.kind = StreamKind::kLegacyDefault;
                        stream.device_id = device;
                        stream.context_id = row.Int64(3);
                      });
    if (!rows.ok()) return rows;
    return absl::OkStatus();
  };
  if (auto s = read_null_streams("TARGET_INFO_CUDA_NULL_STREAM", "streamId"); !s.ok()) return s;
  if (db.HasColumn("TARGET_INFO_CUDA_CONTEXT_INFO", "nullStreamId")) {
    if (auto s = read_null_streams("TARGET_INFO_CUDA_CONTEXT_INFO", "nullStreamId"); !s.ok()) {
      return s;
    }
  }
  if (!have_null_streams) {
    ctx.notes.push_back(
        "export has neither TARGET_INFO_CUDA_NULL_STREAM nor "
        "TARGET_INFO_CUDA_CONTEXT_INFO: the legacy default stream is not known");
  }

  // Streams: kind from the creation flag, priority, context.
  const std::string t("TARGET_INFO_CUDA_STREAM");
  if (!db.HasTable(t)) {
    ctx.notes.push_back(
        "export has no TARGET_INFO_CUDA_STREAM table: stream kinds "
        "(blocking, non-blocking) are unknown");
    return absl::OkStatus();
  }
  return db.ForEachRow(
      absl::StrCat("SELECT ", ctx.Col(t, "streamId"), ", ", ctx.Col(t, "processId"), ", ", ctx.Col(t, "contextId"),
                   ", ", ctx.Col(t, "priority"), ", ", ctx.Col(t, "flag"), " FROM ", t),
      [&](const SqliteStatement& row) {
        if (row.IsNull(0)) return;
        int64_t pid = row.Int64(1);
        ProcessState* p = ctx.ProcessForPid(pid, /*create=*/false);
        if (p == nullptr) return;
        int64_t context = row.Int64(2);
        auto dev = context_device.find({pid, context});
        int32_t device = dev != context_device.end() ? dev->second : 0;
        bool known = p->model.stream_index.contains(row.Int64(0));
        int32_t s = ctx.StreamIndex(*p, row.Int64(0), device);
        Stream& stream = p->model.streams[s];
        if (!known || dev != context_device.end()) stream.device_id = device;
        stream.context_id = context;
        StreamKind kind = StreamKindForFlag(row.IsNull(4) ? 0 : row.Int64(4));
        // The null-stream tables are authoritative for the legacy stream.
        if (stream.kind != StreamKind::kLegacyDefault) stream.kind = kind;
        if (!row.IsNull(3)) {
          // Exported as the unsigned 32-bit value (-5 appears as 4294967291).
          stream.priority = static_cast<int32_t>(static_cast<uint32_t>(row.Int64(3)));
        }
      });
}

}  // namespace streamscope::nsys
