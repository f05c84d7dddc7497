#include "tests/analyzer/model_builder.h"

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

int64_t ModelBuilder::AddOp(OpCategory category, int64_t stream_id, int64_t start_ns,
                            int64_t end_ns, StringId name, int64_t correlation_id,
                            MemoryKind src, MemoryKind dst, bool is_async, int64_t bytes,
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

int64_t ModelBuilder::Kernel(std::string_view name, int64_t stream_id, int64_t start_ns,
                             int64_t end_ns, std::optional<ApiTimes> launch, int64_t graph_id) {
  int64_t corr = -1;
  if (launch) {
    corr = NextCorrelationId();
    Api(graph_id >= 0 ? "cudaGraphLaunch" : "cudaLaunchKernel", launch->tid, launch->start_ns,
        launch->end_ns, corr);
  }
  return AddOp(OpCategory::kKernel, stream_id, start_ns, end_ns, model_.strings.Intern(name),
               corr, MemoryKind::kUnknown, MemoryKind::kUnknown, false, 0, graph_id);
}

int64_t ModelBuilder::Copy(OpCategory category, MemoryKind src, MemoryKind dst,
                           int64_t stream_id, int64_t start_ns, int64_t end_ns,
                           std::optional<ApiTimes> call, std::string_view api_name,
                           bool is_async, int64_t bytes) {
  int64_t corr = -1;
  if (call) {
    corr = NextCorrelationId();
    Api(api_name, call->tid, call->start_ns, call->end_ns, corr);
  }
  return AddOp(category, stream_id, start_ns, end_ns, kNoString, corr, src, dst, is_async,
               bytes, -1);
}

int64_t ModelBuilder::Memset(int64_t stream_id, int64_t start_ns, int64_t end_ns,
                             std::optional<ApiTimes> call, std::string_view api_name,
                             bool is_async) {
  int64_t corr = -1;
  if (call) {
    corr = NextCorrelationId();
    Api(api_name, call->tid, call->start_ns, call->end_ns, corr);
  }
  return AddOp(OpCategory::kMemset, stream_id, start_ns, end_ns, kNoString, corr,
               MemoryKind::kUnknown, MemoryKind::kDevice, is_async, 4096, -1);
}

int64_t ModelBuilder::Api(std::string_view name, int64_t tid, int64_t start_ns, int64_t end_ns,
                          int64_t correlation_id, ApiDomain domain) {
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

void ModelBuilder::Nvtx(std::string_view name, int64_t tid, int64_t start_ns,
                        std::optional<int64_t> end_ns, int32_t depth) {
  NvtxRange r;
  r.name = model_.strings.Intern(name);
  r.tid = tid;
  r.start_ns = start_ns;
  r.end_ns = end_ns;
  r.depth = depth;
  r.source_id = next_nvtx_id_++;
  model_.nvtx_ranges.push_back(r);
}

void ModelBuilder::Sync(SyncKind kind, int64_t stream_id, int64_t start_ns, int64_t end_ns,
                        std::string_view api_name, int64_t tid) {
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

}  // namespace streamscope::testing
