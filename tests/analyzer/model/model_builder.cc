#include "tests/analyzer/model/model_builder.h"

#include <random>
#include <utility>

namespace streamscope::testing {

int32_t ModelBuilder::Stream(int64_t stream_id, StreamKind kind, int32_t device_id) {
  int32_t index = model_.StreamIndexFor(stream_id, device_id);
  model_.streams[index].kind = kind;
  model_.streams[index].device_id = device_id;
  model_.streams[index].context_id = device_id + 1;
  return index;
}

int32_t ModelBuilder::DeviceOf(int64_t stream_id) const {
  auto it = model_.stream_index.find(stream_id);
  return it == model_.stream_index.end() ? 0 : model_.streams[it->second].device_id;
}

int64_t ModelBuilder::AddOp(OpCategory category, int64_t stream_id, int64_t start_ns, int64_t end_ns, StringId name,
                            int64_t correlation_id, MemoryKind src, MemoryKind dst, bool is_async, int64_t bytes,
                            int64_t graph_id) {
  int32_t device = DeviceOf(stream_id);
  GpuOps& ops = model_.ops;
  ops.start_ns.push_back(start_ns);
  ops.end_ns.push_back(end_ns);
  ops.category.push_back(category);
  ops.device_id.push_back(device);
  ops.stream.push_back(model_.StreamIndexFor(stream_id, device));
  ops.correlation_id.push_back(correlation_id);
  ops.name.push_back(name);
  ops.bytes.push_back(bytes);
  ops.src_kind.push_back(src);
  ops.dst_kind.push_back(dst);
  ops.is_async.push_back(is_async ? 1 : 0);
  ops.peer_device.push_back(-1);
  ops.graph_id.push_back(graph_id);
  int64_t id = category == OpCategory::kKernel   ? next_kernel_id_++
               : category == OpCategory::kMemset ? next_memset_id_++
                                                 : next_memcpy_id_++;
  ops.source_id.push_back(id);
  return id;
}

int64_t ModelBuilder::Kernel(std::string_view name, int64_t stream_id, int64_t start_ns, int64_t end_ns,
                             std::optional<ApiTimes> launch, int64_t graph_id) {
  int64_t corr = -1;
  if (launch) {
    corr = NextCorrelationId();
    Api(graph_id >= 0 ? "cudaGraphLaunch" : "cudaLaunchKernel", launch->tid, launch->start_ns, launch->end_ns, corr);
  }
  return AddOp(OpCategory::kKernel, stream_id, start_ns, end_ns, model_.strings.Intern(name), corr,
               MemoryKind::kUnknown, MemoryKind::kUnknown, false, 0, graph_id);
}

int64_t ModelBuilder::Copy(OpCategory category, MemoryKind src, MemoryKind dst, int64_t stream_id, int64_t start_ns,
                           int64_t end_ns, std::optional<ApiTimes> call, std::string_view api_name, bool is_async,
                           int64_t bytes) {
  int64_t corr = -1;
  if (call) {
    corr = NextCorrelationId();
    Api(api_name, call->tid, call->start_ns, call->end_ns, corr);
  }
  return AddOp(category, stream_id, start_ns, end_ns, kNoString, corr, src, dst, is_async, bytes, -1);
}

int64_t ModelBuilder::Memset(int64_t stream_id, int64_t start_ns, int64_t end_ns, std::optional<ApiTimes> call,
                             std::string_view api_name, bool is_async) {
  int64_t corr = -1;
  if (call) {
    corr = NextCorrelationId();
    Api(api_name, call->tid, call->start_ns, call->end_ns, corr);
  }
  return AddOp(OpCategory::kMemset, stream_id, start_ns, end_ns, kNoString, corr, MemoryKind::kUnknown,
               MemoryKind::kDevice, is_async, 4096, -1);
}

int64_t ModelBuilder::Api(std::string_view name, int64_t tid, int64_t start_ns, int64_t end_ns, int64_t correlation_id,
                          ApiDomain domain) {
  ApiCalls& api = model_.api;
  api.start_ns.push_back(start_ns);
  api.end_ns.push_back(end_ns);
  api.tid.push_back(tid);
  api.name.push_back(model_.strings.Intern(name));
  api.domain.push_back(domain);
  api.cbid.push_back(0);
  api.correlation_id.push_back(correlation_id);
  api.return_value.push_back(0);
  api.source_id.push_back(next_api_id_);
  return next_api_id_++;
}

void ModelBuilder::Nvtx(std::string_view name, int64_t tid, int64_t start_ns, std::optional<int64_t> end_ns,
                        int32_t depth) {
  NvtxRange r;
  r.name = model_.strings.Intern(name);
  r.tid = tid;
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.depth = depth;
  r.source_id = next_nvtx_id_++;
  model_.nvtx_ranges.push_back(r);
}

void ModelBuilder::Sync(SyncKind kind, int64_t stream_id, int64_t start_ns, int64_t end_ns, std::string_view api_name,
                        int64_t tid) {
  SyncRecord s;
  s.kind = kind;
  s.start_ns = start_ns;
  s.end_ns = end_ns;
  s.stream = stream_id < 0 ? -1 : model_.StreamIndexFor(stream_id, DeviceOf(stream_id));
  s.source_id = next_sync_id_++;
  if (!api_name.empty()) {
    s.correlation_id = NextCorrelationId();
    Api(api_name, tid, start_ns, end_ns, s.correlation_id);
  }
  model_.syncs.push_back(s);
}

void ModelBuilder::EventWait(int64_t stream_id, int64_t tid, int64_t ts_ns) {
  EventOp e;
  e.op = EventOp::Op::kWait;
  e.stream = model_.StreamIndexFor(stream_id, DeviceOf(stream_id));
  e.tid = tid;
  e.ts_ns = ts_ns;
  model_.event_ops.push_back(e);
}

TraceModel ModelBuilder::Build() {
  model_.path = "synthetic";
  model_.format = "streamscope";
  model_.Finalize();
  return std::move(model_);
}

TraceModel RandomInconsistentTrace(uint64_t seed, int ops) {
  std::mt19937_64 rng(seed);
  auto pick = [&](int64_t n) { return static_cast<int64_t>(rng() % static_cast<uint64_t>(n)); };
  ModelBuilder b;
  const StreamKind kinds[] = {StreamKind::kLegacyDefault, StreamKind::kBlocking, StreamKind::kNonBlocking,
                              StreamKind::kPerThreadDefault, StreamKind::kUnknown};
  for (int s = 0; s < 12; ++s) b.Stream(100 + s, kinds[s % 5], s % 3);
  const char* calls[] = {
      "cudaMalloc",      "cudaFree",           "cudaMemcpy",      "cudaStreamSynchronize", "cudaLaunchHostFunc",
      "cuMemcpyHtoD_v2", "cudaDeviceSetLimit", "cudaEventRecord", "cudaHostAlloc",         "cudaDeviceSynchronize"};
  int64_t t = 0;
  for (int i = 0; i < ops; ++i) {
    t += pick(20'000);
    int64_t stream = 100 + pick(12);
    int64_t start = t + pick(5'000), len = pick(30'000) - 2'000;  // some end before start
    int64_t tid = pick(3);
    std::optional<ApiTimes> api;
    if (pick(4) != 0) api = ApiTimes{start - pick(40'000), start - pick(2'000), tid};
    switch (pick(4)) {
      case 0:
        b.Copy(pick(2) ? OpCategory::kHtoD : OpCategory::kDtoH, pick(2) ? MemoryKind::kPageable : MemoryKind::kPinned,
               MemoryKind::kDevice, stream, start, start + len, api, pick(2) ? "cudaMemcpyAsync" : "cudaMemcpy");
        break;
      case 1: b.Memset(stream, start, start + len, api, pick(2) ? "cudaMemset" : "cudaMemsetAsync"); break;
      default: b.Kernel(pick(2) ? "k1" : "k2", stream, start, start + len, api, pick(5) == 0 ? 1 : -1);
    }
    if (pick(3) == 0) b.Api(calls[pick(10)], tid, t - pick(30'000), t + pick(80'000));
    if (pick(5) == 0) {
      std::optional<int64_t> end;
      if (pick(10) != 0) end = t + pick(50'000) - 5'000;
      b.Nvtx(pick(2) ? "outer" : "inner", tid, t - pick(10'000), end, static_cast<int32_t>(pick(3)));
    }
    if (pick(8) == 0) {
      b.Sync(static_cast<SyncKind>(pick(5)), pick(3) == 0 ? -1 : stream, t, t + pick(60'000),
             pick(2) ? "cudaStreamSynchronize" : "", tid);
    }
    if (pick(10) == 0) b.EventWait(stream, tid, t);
  }
  TraceModel m = b.Build();
  for (size_t i = 0; i < m.ops.size(); ++i) {
    if (pick(50) == 0) m.ops.stream.Set(i, -1);
    if (pick(50) == 0) m.ops.stream.Set(i, static_cast<int32_t>(m.streams.size() + 5));
    if (pick(50) == 0) m.ops.name.Set(i, kNoString);
  }
  for (size_t i = 0; i < m.api.size(); ++i) {
    if (pick(50) == 0) m.api.name.Set(i, kNoString);
  }
  return m;
}

}  // namespace streamscope::testing
