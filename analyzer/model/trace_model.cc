#include "analyzer/model/trace_model.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/string_view.h"

namespace streamscope {

StringId StringPool::Intern(std::string_view s) {
  auto it = index_.find(absl::string_view(s.data(), s.size()));
  if (it != index_.end()) return it->second;
  StringId id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  index_.emplace(std::string(s), id);
  return id;
}

std::string_view OpCategoryName(OpCategory c) {
  switch (c) {
    case OpCategory::kKernel: return "compute";
    case OpCategory::kHtoD: return "H2D";
    case OpCategory::kDtoH: return "D2H";
    case OpCategory::kDtoD: return "D2D";
    case OpCategory::kPtoP: return "P2P";
    case OpCategory::kMemset: return "memset";
    case OpCategory::kOtherCopy: return "other_copy";
  }
  return "unknown";
}

bool IsCopy(OpCategory c) {
  return c != OpCategory::kKernel && c != OpCategory::kMemset;
}

std::string_view MemoryKindName(MemoryKind k) {
  switch (k) {
    case MemoryKind::kUnknown: return "unknown";
    case MemoryKind::kPageable: return "pageable";
    case MemoryKind::kPinned: return "pinned";
    case MemoryKind::kDevice: return "device";
    case MemoryKind::kArray: return "array";
    case MemoryKind::kManaged: return "managed";
    case MemoryKind::kDeviceStatic: return "device_static";
    case MemoryKind::kManagedStatic: return "managed_static";
  }
  return "unknown";
}

std::string_view StreamKindName(StreamKind k) {
  switch (k) {
    case StreamKind::kUnknown: return "unknown";
    case StreamKind::kLegacyDefault: return "legacy_default";
    case StreamKind::kPerThreadDefault: return "per_thread_default";
    case StreamKind::kBlocking: return "blocking";
    case StreamKind::kNonBlocking: return "non_blocking";
  }
  return "unknown";
}

std::string_view SyncKindName(SyncKind k) {
  switch (k) {
    case SyncKind::kUnknown: return "unknown";
    case SyncKind::kEventSynchronize: return "event_synchronize";
    case SyncKind::kStreamWaitEvent: return "stream_wait_event";
    case SyncKind::kStreamSynchronize: return "stream_synchronize";
    case SyncKind::kContextSynchronize: return "context_synchronize";
  }
  return "unknown";
}

namespace {
// Applies permutation `order` to a column: out[i] = in[order[i]].
template <typename T>
void Permute(std::vector<T>& column, const std::vector<uint32_t>& order) {
  if (column.empty()) return;
  std::vector<T> out;
  out.reserve(order.size());
  for (uint32_t i : order) out.push_back(column[i]);
  column.swap(out);
}

// The stable order of rows by (start, end): a permutation, or empty if the
// rows are already in that order (the common case for one table written in
// time order). Sorting a packed key array directly is several times faster
// than an indirect sort over 10M rows; the index breaks ties, which keeps it
// stable.
std::vector<uint32_t> SortOrder(const std::vector<int64_t>& start, const std::vector<int64_t>* end) {
  auto key_less = [&](size_t a, size_t b) {
    if (start[a] != start[b]) return start[a] < start[b];
    return end != nullptr && (*end)[a] < (*end)[b];
  };
  bool sorted = true;
  for (size_t i = 1; i < start.size() && sorted; ++i) sorted = !key_less(i, i - 1);
  if (sorted) return {};
  struct Key { int64_t start, end; uint32_t index; };
  std::vector<Key> keys(start.size());
  for (size_t i = 0; i < start.size(); ++i) {
    keys[i] = {start[i], end != nullptr ? (*end)[i] : 0, static_cast<uint32_t>(i)};
  }
  std::sort(keys.begin(), keys.end(), [](const Key& a, const Key& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end < b.end;
    return a.index < b.index;
  });
  std::vector<uint32_t> order(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) order[i] = keys[i].index;
  return order;
}
}  // namespace

void TraceModel::Finalize() {
  if (std::vector<uint32_t> order = SortOrder(ops.start_ns, &ops.end_ns); !order.empty()) {
    Permute(ops.start_ns, order); Permute(ops.end_ns, order);
    Permute(ops.category, order); Permute(ops.device_id, order);
    Permute(ops.stream, order); Permute(ops.correlation_id, order);
    Permute(ops.name, order); Permute(ops.bytes, order);
    Permute(ops.src_kind, order); Permute(ops.dst_kind, order);
    Permute(ops.is_async, order); Permute(ops.peer_device, order);
    Permute(ops.graph_id, order); Permute(ops.source_id, order);
    if (kernel_shapes.size() == order.size()) Permute(kernel_shapes, order);
  }
  if (std::vector<uint32_t> order = SortOrder(api.start_ns, nullptr); !order.empty()) {
    Permute(api.start_ns, order); Permute(api.end_ns, order);
    Permute(api.tid, order); Permute(api.name, order);
    Permute(api.domain, order); Permute(api.cbid, order);
    Permute(api.correlation_id, order); Permute(api.return_value, order);
    Permute(api.source_id, order);
  }
  std::stable_sort(nvtx_ranges.begin(), nvtx_ranges.end(),
                   [](const NvtxRange& a, const NvtxRange& b) { return a.start_ns < b.start_ns; });
  std::stable_sort(syncs.begin(), syncs.end(),
                   [](const SyncRecord& a, const SyncRecord& b) { return a.start_ns < b.start_ns; });

  api_by_correlation.clear();
  api_by_correlation.reserve(api.size());  // one allocation, no rehash peaks
  for (size_t i = 0; i < api.size(); ++i) {
    if (api.correlation_id[i] < 0) continue;
    auto [it, inserted] = api_by_correlation.try_emplace(api.correlation_id[i], static_cast<int32_t>(i));
    // A runtime call and the driver call beneath it share the correlation id
    // of the op; the runtime call is what the application wrote.
    if (!inserted && api.domain[i] == ApiDomain::kRuntime &&
        api.domain[it->second] != ApiDomain::kRuntime) {
      it->second = static_cast<int32_t>(i);
    }
  }
  stream_index.clear();
  for (size_t i = 0; i < streams.size(); ++i) stream_index[streams[i].id] = static_cast<int32_t>(i);
  max_op_duration_ns = 0;
  op_devices.clear();
  int32_t last_device = INT32_MIN;
  for (size_t i = 0; i < ops.size(); ++i) {
    max_op_duration_ns = std::max(max_op_duration_ns, ops.end_ns[i] - ops.start_ns[i]);
    if (ops.device_id[i] != last_device) {
      last_device = ops.device_id[i];
      if (std::find(op_devices.begin(), op_devices.end(), last_device) == op_devices.end()) {
        op_devices.push_back(last_device);
      }
    }
  }
  std::sort(op_devices.begin(), op_devices.end());
}

std::pair<size_t, size_t> TraceModel::OpRangeFor(int64_t start, int64_t end) const {
  // Ops are sorted by start; one that starts before start - max duration
  // has ended by start.
  int64_t lo = start > INT64_MIN + max_op_duration_ns ? start - max_op_duration_ns : INT64_MIN;
  auto first = std::lower_bound(ops.start_ns.begin(), ops.start_ns.end(), lo);
  auto last = std::lower_bound(first, ops.start_ns.end(), end);
  return {static_cast<size_t>(first - ops.start_ns.begin()),
          static_cast<size_t>(last - ops.start_ns.begin())};
}

int32_t TraceModel::StreamIndexFor(int64_t stream_id, int32_t device_id) {
  auto it = stream_index.find(stream_id);
  if (it != stream_index.end()) return it->second;
  Stream s;
  s.id = stream_id;
  s.device_id = device_id;
  streams.push_back(s);
  int32_t index = static_cast<int32_t>(streams.size() - 1);
  stream_index[stream_id] = index;
  return index;
}

const Device* TraceModel::FindDevice(int32_t id) const {
  for (const Device& d : devices) {
    if (d.id == id) return &d;
  }
  return nullptr;
}

int32_t TraceModel::ApiForOp(size_t op) const {
  int64_t corr = ops.correlation_id[op];
  if (corr < 0) return -1;
  auto it = api_by_correlation.find(corr);
  return it == api_by_correlation.end() ? -1 : it->second;
}

}  // namespace streamscope
