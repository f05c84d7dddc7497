#include "analyzer/model/trace_model.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/string_view.h"
#include "analyzer/base/grouped_order.h"
#include "analyzer/base/threads.h"
#include "analyzer/model/saturating.h"

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

bool IsCopy(OpCategory c) { return c != OpCategory::kKernel && c != OpCategory::kMemset; }

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

template <typename Wide, typename Narrow>
void Permute(NarrowColumn<Wide, Narrow>& column, const std::vector<uint32_t>& order) {
  column.Permute(order);
}

// The stable order by (start, end) of rows that are in order within each
// partition (a stream runs its ops one after another, so each stream's ops
// of one table come in time order): the partitions' runs are merged with a
// heap, O(n log k) for k runs. Empty if that takes more than kMaxRuns runs.
std::vector<uint32_t> MergePartitionRuns(const std::vector<int64_t>& start, const std::vector<int64_t>* end,
                                         const Int32In16Column& partition) {
  constexpr size_t kMaxRuns = 256;
  const size_t n = start.size();
  int32_t max_part = -1;
  for (int32_t p : partition) max_part = std::max(max_part, p);
  const size_t buckets = static_cast<size_t>(max_part) + 2;  // partition -1 and below: bucket 0
  if (buckets > kMaxRuns + 1) return {};
  auto bucket = [&](size_t i) { return partition[i] < 0 ? size_t{0} : static_cast<size_t>(partition[i]) + 1; };
  // Row indices grouped by partition, ascending within each.
  const GroupedIndices grouped = GroupIndices(n, buckets, bucket);
  const std::vector<size_t>& offset = grouped.begin;
  const std::vector<uint32_t>& rows = grouped.items;
  auto key_less = [&](uint32_t a, uint32_t b) {
    if (start[a] != start[b]) return start[a] < start[b];
    if (end != nullptr && (*end)[a] != (*end)[b]) return (*end)[a] < (*end)[b];
    return a < b;
  };
  std::vector<IndexRun> runs;
  for (size_t b = 0; b < buckets; ++b) {
    size_t begin = offset[b];
    for (size_t p = offset[b] + 1; p <= offset[b + 1]; ++p) {
      if (p < offset[b + 1] && !key_less(rows[p], rows[p - 1])) continue;
      if (p > begin) runs.push_back({begin, p});
      begin = p;
      if (runs.size() > kMaxRuns) return {};
    }
  }
  // The row breaks ties, so the merge equals a stable sort. Cut into parts
  // merged side by side for a large trace (at 10M ops the merge took 0.37
  // s on one core while the other sat idle).
  return MergeRunsInSlices(rows, std::move(runs), key_less, SliceCount(n, size_t{1} << 20));
}

// The stable order of rows by (start, end): a permutation, or empty if the
// rows are already in that order (the common case for one table written in
// time order). Rows in order within each `partition` value are merged (see
// MergePartitionRuns); otherwise sorting a packed key array directly is
// several times faster than an indirect sort over 10M rows; the index breaks
// ties, which keeps it stable.
std::vector<uint32_t> SortOrder(const std::vector<int64_t>& start, const std::vector<int64_t>* end,
                                const Int32In16Column* partition = nullptr) {
  auto key_less = [&](size_t a, size_t b) {
    if (start[a] != start[b]) return start[a] < start[b];
    return end != nullptr && (*end)[a] < (*end)[b];
  };
  // Runs of rows already in order: an importer that reads several tables,
  // each written in time order (kernels, copies, memsets), yields one run
  // per table. A few runs are merged in O(n) without a key array.
  constexpr size_t kMaxMergedRuns = 16;
  std::vector<size_t> run_starts = {0};
  for (size_t i = 1; i < start.size(); ++i) {
    if (!key_less(i, i - 1)) continue;
    run_starts.push_back(i);
    if (run_starts.size() > kMaxMergedRuns) break;
  }
  if (run_starts.size() == 1) return {};
  if (run_starts.size() <= kMaxMergedRuns) {
    const size_t runs = run_starts.size();
    std::vector<size_t> head(run_starts), stop(runs);
    for (size_t r = 0; r + 1 < runs; ++r) stop[r] = run_starts[r + 1];
    stop[runs - 1] = start.size();
    std::vector<uint32_t> order;
    order.reserve(start.size());
    for (size_t n = 0; n < start.size(); ++n) {
      // Ties go to the earlier run, i.e. the lower index: a stable merge.
      size_t best = runs;
      for (size_t r = 0; r < runs; ++r) {
        if (head[r] == stop[r]) continue;
        if (best == runs || key_less(head[r], head[best])) best = r;
      }
      order.push_back(static_cast<uint32_t>(head[best]++));
    }
    return order;
  }
  if (partition != nullptr && partition->size() == start.size()) {
    if (std::vector<uint32_t> order = MergePartitionRuns(start, end, *partition); !order.empty()) return order;
  }
  struct Key {
    int64_t start, end;
    uint32_t index;
  };
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
  derived = std::make_shared<DerivedCache>();  // facts of the old contents are stale
  // GPU ops and API calls are independent: on large traces one goes to a
  // second thread (the target machine has two cores).
  auto finalize_ops = [this] {
    if (std::vector<uint32_t> order = SortOrder(ops.start_ns, &ops.end_ns, &ops.stream); !order.empty()) {
      ForEachOpColumn([&order](auto& column) { Permute(column, order); }, ops);
      if (kernel_shapes.size() == order.size()) Permute(kernel_shapes, order);
      if (kernel_blocks.size() == order.size()) Permute(kernel_blocks, order);
    }
    max_op_duration_ns = 0;
    op_devices.clear();
    int32_t last_device = INT32_MIN;
    for (size_t i = 0; i < ops.size(); ++i) {
      max_op_duration_ns = std::max(max_op_duration_ns, SaturatingSub(ops.end_ns[i], ops.start_ns[i]));
      if (ops.device_id[i] != last_device) {
        last_device = ops.device_id[i];
        if (std::find(op_devices.begin(), op_devices.end(), last_device) == op_devices.end()) {
          op_devices.push_back(last_device);
        }
      }
    }
    std::sort(op_devices.begin(), op_devices.end());
  };
  auto finalize_api = [this] {
    if (std::vector<uint32_t> order = SortOrder(api.start_ns, nullptr); !order.empty()) {
      ForEachApiColumn([&order](auto& column) { Permute(column, order); }, api);
    }
    api_by_correlation.Build(api);
  };
  constexpr size_t kThreadedFrom = 1 << 16;  // rows; below that a thread costs more than it saves
  if (ops.size() >= kThreadedFrom && api.size() >= kThreadedFrom) {
    TaskThreads ops_thread;
    ops_thread.Start(finalize_ops);
    finalize_api();
    ops_thread.Join();
  } else {
    finalize_ops();
    finalize_api();
  }
  std::stable_sort(nvtx_ranges.begin(), nvtx_ranges.end(),
                   [](const NvtxRange& a, const NvtxRange& b) { return a.start_ns < b.start_ns; });
  std::stable_sort(syncs.begin(), syncs.end(),
                   [](const SyncRecord& a, const SyncRecord& b) { return a.start_ns < b.start_ns; });
  stream_index.clear();
  for (size_t i = 0; i < streams.size(); ++i) stream_index[streams[i].id] = static_cast<int32_t>(i);
}

std::pair<size_t, size_t> TraceModel::OpRangeFor(int64_t start, int64_t end) const {
  // Ops are sorted by start; one that starts before start - max duration
  // has ended by start.
  int64_t lo = SaturatingSub(start, max_op_duration_ns);
  auto first = std::lower_bound(ops.start_ns.begin(), ops.start_ns.end(), lo);
  auto last = std::lower_bound(first, ops.start_ns.end(), end);
  return {static_cast<size_t>(first - ops.start_ns.begin()), static_cast<size_t>(last - ops.start_ns.begin())};
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
  return corr < 0 ? -1 : api_by_correlation.Lookup(corr);
}

void CorrelationIndex::clear() {
  dense_mode_ = true;
  lo_ = 0;
  std::vector<int32_t>().swap(dense_);
  sparse_ = {};
  size_ = 0;
}

void CorrelationIndex::Build(const ApiCalls& api) {
  clear();
  int64_t lo = INT64_MAX, hi = -1;
  for (int64_t c : api.correlation_id) {
    if (c < 0) continue;
    lo = std::min(lo, c);
    hi = std::max(hi, c);
  }
  if (hi < 0) return;  // no call has a correlation id
  // The first call of an id wins, unless a later one is the runtime call
  // above a driver call.
  auto better = [&](int32_t current, size_t candidate) {
    return current < 0 || (api.domain[candidate] == ApiDomain::kRuntime && api.domain[current] != ApiDomain::kRuntime);
  };
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  dense_mode_ = span <= 4 * static_cast<uint64_t>(api.size()) + 4096;
  if (dense_mode_) {
    lo_ = lo;
    dense_.assign(span, -1);
    for (size_t i = 0; i < api.size(); ++i) {
      int64_t c = api.correlation_id[i];
      if (c < 0) continue;
      int32_t& slot = dense_[static_cast<size_t>(c - lo)];
      if (slot < 0) ++size_;
      if (better(slot, i)) slot = static_cast<int32_t>(i);
    }
    return;
  }
  sparse_.reserve(api.size());  // one allocation, no rehash peaks
  for (size_t i = 0; i < api.size(); ++i) {
    int64_t c = api.correlation_id[i];
    if (c < 0) continue;
    auto [it, inserted] = sparse_.try_emplace(c, static_cast<int32_t>(i));
    if (!inserted && better(it->second, i)) it->second = static_cast<int32_t>(i);
  }
  size_ = sparse_.size();
}

}  // namespace streamscope
