#include "analyzer/analysis/overlap_gaps/overlap.h"

#include <algorithm>
#include <queue>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace streamscope {
namespace {

constexpr int kKernelBit = 1 << static_cast<int>(OpCategory::kKernel);
constexpr int kNumMasks = 1 << kNumOpCategories;

struct PairTable {
  std::array<OverlapPairKind, kNumOverlapPairs> kinds;
  std::array<int, kNumOverlapPairs> masks;
  // Pairs whose two categories are both in a category mask.
  std::array<std::vector<int>, kNumMasks> pairs_for_mask;
  int copy_mask = 0;

  PairTable() {
    int p = 0;
    for (int a = 0; a < kNumOpCategories; ++a) {
      for (int b = a + 1; b < kNumOpCategories; ++b) {
        kinds[p] = {static_cast<OpCategory>(a), static_cast<OpCategory>(b)};
        masks[p] = (1 << a) | (1 << b);
        ++p;
      }
    }
    kinds[kComputeComputePair] = {OpCategory::kKernel, OpCategory::kKernel};
    masks[kComputeComputePair] = kKernelBit;
    for (int m = 0; m < kNumMasks; ++m) {
      for (int q = 0; q < kComputeComputePair; ++q) {
        if ((m & masks[q]) == masks[q]) pairs_for_mask[m].push_back(q);
      }
    }
    for (int c = 0; c < kNumOpCategories; ++c) {
      if (IsCopy(static_cast<OpCategory>(c))) copy_mask |= 1 << c;
    }
  }
};

const PairTable& Pairs() {
  static const PairTable* table = new PairTable();
  return *table;
}

// Overlapped time per (pair, stream a, stream b) with dense local stream
// numbers: a flat array while the device has few streams, a hash map beyond.
class StreamPairAccumulator {
 public:
  explicit StreamPairAccumulator(int streams) : n_(streams) {
    if (n_ <= kDenseLimit) dense_.assign(static_cast<size_t>(kNumOverlapPairs) * n_ * n_, 0);
  }
  void Add(int pair, int sa, int sb, int64_t ns) {
    if (n_ <= kDenseLimit) {
      dense_[(static_cast<size_t>(pair) * n_ + sa) * n_ + sb] += ns;
    } else {
      sparse_[(static_cast<uint64_t>(pair) << 48) | (static_cast<uint64_t>(sa) << 24) | static_cast<uint64_t>(sb)] +=
          ns;
    }
  }
  template <typename Fn>  // fn(pair, sa, sb, ns) for every non-zero entry
  void ForEach(Fn fn) const {
    if (n_ <= kDenseLimit) {
      for (size_t i = 0; i < dense_.size(); ++i) {
        if (dense_[i] == 0) continue;
        size_t sb = i % n_, sa = (i / n_) % n_, pair = i / (static_cast<size_t>(n_) * n_);
        fn(static_cast<int>(pair), static_cast<int>(sa), static_cast<int>(sb), dense_[i]);
      }
    } else {
      for (const auto& [key, ns] : sparse_) {
        fn(static_cast<int>(key >> 48), static_cast<int>((key >> 24) & 0xffffff), static_cast<int>(key & 0xffffff), ns);
      }
    }
  }

 private:
  static constexpr int kDenseLimit = 96;
  int n_;
  std::vector<int64_t> dense_;
  absl::flat_hash_map<uint64_t, int64_t> sparse_;
};

// One device's sweep. `ops` are op indices sorted by (clipped) start.
void SweepDevice(const TraceModel& model, const Window& window, const std::vector<int32_t>& ops,
                 const OverlapOptions& options, DeviceOverlap* out) {
  const PairTable& table = Pairs();
  const GpuOps& g = model.ops;
  const int64_t w0 = window.start_ns, w1 = window.end_ns;
  auto cs = [&](int32_t op) { return std::max(g.start_ns[op], w0); };
  auto ce = [&](int32_t op) { return std::min(g.end_ns[op], w1); };

  // Local stream numbers.
  std::vector<int32_t> local_of(model.streams.size(), -1);
  std::vector<int32_t> stream_of_local;
  for (int32_t op : ops) {
    int32_t s = g.stream[op];
    if (s >= 0 && local_of[s] < 0) {
      local_of[s] = static_cast<int32_t>(stream_of_local.size());
      stream_of_local.push_back(s);
    }
  }
  const int num_streams = static_cast<int>(stream_of_local.size());
  StreamPairAccumulator stream_pairs(num_streams);

  // Active state.
  std::array<int64_t, kNumOpCategories> count{};
  std::vector<int32_t> per_cat_stream(static_cast<size_t>(kNumOpCategories) * num_streams, 0);
  std::array<std::vector<int32_t>, kNumOpCategories> active_streams;
  std::vector<int32_t> active_pos(static_cast<size_t>(kNumOpCategories) * num_streams, -1);
  int mask = 0;

  // Running ops by end time; `local` indexes `ops`.
  struct End {
    int64_t t;
    int32_t local;
    bool operator>(const End& o) const { return t > o.t; }
  };
  std::priority_queue<End, std::vector<End>, std::greater<End>> heap;
  // priority_queue hides its container; keep a mirror of the running ops for
  // interval op lists (swap-remove with positions by local index).
  std::vector<int32_t> active_ops;  // global op indices
  std::vector<int32_t> active_local;
  std::vector<int32_t> active_op_pos(ops.size(), -1);

  auto enter = [&](int32_t op, int delta) {
    int c = static_cast<int>(g.category[op]);
    int ls = g.stream[op] >= 0 ? local_of[g.stream[op]] : -1;
    count[c] += delta;
    if (count[c] > 0)
      mask |= 1 << c;
    else
      mask &= ~(1 << c);
    if (ls < 0) return;
    size_t k = static_cast<size_t>(c) * num_streams + ls;
    per_cat_stream[k] += delta;
    if (delta > 0 && per_cat_stream[k] == 1) {
      active_pos[k] = static_cast<int32_t>(active_streams[c].size());
      active_streams[c].push_back(ls);
    } else if (delta < 0 && per_cat_stream[k] == 0) {
      int32_t pos = active_pos[k];
      int32_t last = active_streams[c].back();
      active_streams[c][pos] = last;
      active_pos[static_cast<size_t>(c) * num_streams + last] = pos;
      active_streams[c].pop_back();
      active_pos[k] = -1;
    }
  };

  // Open pair intervals (open[p] >= 0 while pair p overlaps).
  std::array<int64_t, kNumOverlapPairs> open{};
  open.fill(-1);
  std::array<OverlapInterval, kNumOverlapPairs> current{};
  // With a per-pair limit: the longest closed intervals and their ops.
  struct Kept {
    OverlapInterval iv;
    std::vector<int32_t> ops;
  };
  const bool keep_all = options.max_intervals_per_pair < 0;
  const size_t keep_n = keep_all ? 0 : static_cast<size_t>(options.max_intervals_per_pair);
  std::array<std::vector<Kept>, kNumOverlapPairs> kept;
  uint32_t open_mask = 0;
  const uint64_t cap =
      options.max_ops_per_interval < 0 ? UINT64_MAX : static_cast<uint64_t>(options.max_ops_per_interval);
  std::array<int64_t, kNumOverlapPairs> pair_ns{};
  std::array<int64_t, kNumOverlapPairs> pair_intervals{};

  auto pair_has = [&](int p, int c) { return (table.masks[p] >> c) & 1; };
  // Adds op to open interval of pair p. Ops are appended contiguously per
  // interval only while it is the last interval written to interval_ops, so
  // each interval keeps its own small buffer until it closes.
  std::array<std::vector<int32_t>, kNumOverlapPairs> pending;
  auto add_op = [&](int p, int32_t op) {
    ++current[p].ops_total;
    if (pending[p].size() < cap) pending[p].push_back(op);
  };
  auto close = [&](int p, int64_t t) {
    OverlapInterval iv = current[p];
    iv.end_ns = t;
    iv.ops_kept = static_cast<uint32_t>(pending[p].size());
    open[p] = -1;
    ++pair_intervals[p];
    if (keep_all) {
      iv.ops_offset = out->interval_ops.size();
      out->interval_ops.insert(out->interval_ops.end(), pending[p].begin(), pending[p].end());
      out->intervals.push_back(iv);
    } else if (keep_n > 0) {
      std::vector<Kept>& k = kept[p];
      if (k.size() < keep_n) {
        k.push_back({iv, pending[p]});
      } else {
        // Replace the shortest kept interval (the earliest among equals stays).
        size_t shortest = 0;
        for (size_t i = 1; i < k.size(); ++i) {
          if (k[i].iv.length() < k[shortest].iv.length()) shortest = i;
        }
        if (iv.length() > k[shortest].iv.length()) k[shortest] = {iv, pending[p]};
      }
    }
    pending[p].clear();
  };

  std::vector<int32_t> started;
  size_t next = 0;
  const size_t n = ops.size();
  const int64_t kInf = INT64_MAX;
  while (next < n || !heap.empty()) {
    int64_t t = std::min(next < n ? cs(ops[next]) : kInf, heap.empty() ? kInf : heap.top().t);
    // Ends first: touching ops never overlap.
    while (!heap.empty() && heap.top().t == t) {
      int32_t local = heap.top().local;
      heap.pop();
      enter(ops[local], -1);
      int32_t pos = active_op_pos[local];
      active_ops[pos] = active_ops.back();
      active_local[pos] = active_local.back();
      active_op_pos[active_local[pos]] = pos;
      active_ops.pop_back();
      active_local.pop_back();
    }
    started.clear();
    while (next < n && cs(ops[next]) == t) {
      int32_t local = static_cast<int32_t>(next++);
      int32_t op = ops[local];
      heap.push({ce(op), local});
      enter(op, +1);
      active_op_pos[local] = static_cast<int32_t>(active_ops.size());
      active_ops.push_back(op);
      active_local.push_back(local);
      started.push_back(op);
      ++out->op_count[static_cast<int>(g.category[op])];
    }
    // Which pairs overlap from t on.
    uint32_t now_open = 0;
    for (int p : table.pairs_for_mask[mask]) now_open |= 1u << p;
    if (active_streams[0].size() >= 2) now_open |= 1u << kComputeComputePair;
    for (uint32_t bits = open_mask | now_open; bits != 0; bits &= bits - 1) {
      int p = __builtin_ctz(bits);
      bool was = (open_mask >> p) & 1, is = (now_open >> p) & 1;
      if (was && !is) {
        close(p, t);
      } else if (!was && is) {
        current[p] = OverlapInterval{};
        current[p].start_ns = t;
        current[p].pair = p;
        open[p] = 1;
        for (int32_t op : active_ops) {
          if (pair_has(p, static_cast<int>(g.category[op]))) add_op(p, op);
        }
      } else if (was && is) {
        for (int32_t op : started) {
          if (pair_has(p, static_cast<int>(g.category[op]))) add_op(p, op);
        }
      }
    }
    open_mask = now_open;
    if (heap.empty()) continue;
    // The segment [t, t_next) has constant activity.
    int64_t t_next = std::min(next < n ? cs(ops[next]) : kInf, heap.top().t);
    int64_t len = t_next - t;
    out->busy_ns += len;
    if (now_open != 0) out->overlap_ns += len;
    for (uint32_t bits = mask; bits != 0; bits &= bits - 1) out->category_ns[__builtin_ctz(bits)] += len;
    if (mask & table.copy_mask) {
      out->copy_ns += len;
      if (!(mask & kKernelBit)) {
        out->exposed_copy_ns += len;
        for (int c = 0; c < kNumOpCategories; ++c) {
          if (((mask & table.copy_mask) >> c) & 1) out->exposed_ns[c] += len;
        }
      }
    }
    for (int p : table.pairs_for_mask[mask]) {
      pair_ns[p] += len;
      int a = static_cast<int>(table.kinds[p].a), b = static_cast<int>(table.kinds[p].b);
      for (int32_t sa : active_streams[a]) {
        for (int32_t sb : active_streams[b]) stream_pairs.Add(p, sa, sb, len);
      }
    }
    const std::vector<int32_t>& ks = active_streams[0];
    if (ks.size() >= 2) {
      pair_ns[kComputeComputePair] += len;
      for (size_t i = 0; i < ks.size(); ++i) {
        for (size_t j = i + 1; j < ks.size(); ++j) {
          stream_pairs.Add(kComputeComputePair, std::min(ks[i], ks[j]), std::max(ks[i], ks[j]), len);
        }
      }
    }
  }
  for (int p = 0; p < kNumOverlapPairs; ++p) {
    if (open[p] >= 0) close(p, w1);  // cannot happen: all ops end by w1
  }

  for (int p = 0; p < kNumOverlapPairs; ++p) {
    out->interval_total += pair_intervals[p];
    for (Kept& k : kept[p]) {
      k.iv.ops_offset = out->interval_ops.size();
      out->interval_ops.insert(out->interval_ops.end(), k.ops.begin(), k.ops.end());
      out->intervals.push_back(k.iv);
    }
  }
  std::sort(out->intervals.begin(), out->intervals.end(), [](const OverlapInterval& a, const OverlapInterval& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    return a.pair < b.pair;
  });

  std::array<std::vector<StreamPairTime>, kNumOverlapPairs> by_pair;
  stream_pairs.ForEach([&](int p, int sa, int sb, int64_t ns) {
    int32_t a = stream_of_local[sa], b = stream_of_local[sb];
    if (p == kComputeComputePair && model.streams[a].id > model.streams[b].id) std::swap(a, b);
    by_pair[p].push_back({a, b, ns});
  });
  for (int p = 0; p < kNumOverlapPairs; ++p) {
    const OverlapPairKind& k = table.kinds[p];
    int64_t ta = out->category_ns[static_cast<int>(k.a)];
    int64_t tb = out->category_ns[static_cast<int>(k.b)];
    int64_t possible = p == kComputeComputePair ? ta : std::min(ta, tb);
    if (possible == 0 && pair_ns[p] == 0) continue;
    PairOverlap po;
    po.pair = p;
    po.overlapped_ns = pair_ns[p];
    po.possible_ns = possible;
    po.hidden_share = possible > 0 ? static_cast<double>(pair_ns[p]) / static_cast<double>(possible) : 0;
    po.interval_count = pair_intervals[p];
    po.by_stream_pair = std::move(by_pair[p]);
    std::sort(po.by_stream_pair.begin(), po.by_stream_pair.end(),
              [&](const StreamPairTime& x, const StreamPairTime& y) {
                if (x.overlapped_ns != y.overlapped_ns) return x.overlapped_ns > y.overlapped_ns;
                if (x.stream_a != y.stream_a) return x.stream_a < y.stream_a;
                return x.stream_b < y.stream_b;
              });
    out->pairs.push_back(std::move(po));
  }
}

}  // namespace

OverlapPairKind OverlapPairAt(int pair) { return Pairs().kinds[pair]; }

int OverlapPairIndex(OpCategory a, OpCategory b) {
  if (a == b) return a == OpCategory::kKernel ? kComputeComputePair : -1;
  int mask = (1 << static_cast<int>(a)) | (1 << static_cast<int>(b));
  for (int p = 0; p < kComputeComputePair; ++p) {
    if (Pairs().masks[p] == mask) return p;
  }
  return -1;
}

std::string OverlapPairName(int pair) {
  OverlapPairKind k = OverlapPairAt(pair);
  return std::string(OpCategoryName(k.a)) + "|" + std::string(OpCategoryName(k.b));
}

const PairOverlap* OverlapResult::Find(int32_t device_id, int pair) const {
  for (const DeviceOverlap& d : devices) {
    if (d.device_id != device_id) continue;
    for (const PairOverlap& p : d.pairs) {
      if (p.pair == pair) return &p;
    }
  }
  return nullptr;
}

OverlapResult AnalyzeOverlap(const TraceModel& model, const Window& window, const OverlapOptions& options) {
  OverlapResult result;
  result.window = window;
  const std::vector<int32_t>& devices = model.op_devices;
  std::vector<std::vector<int32_t>> ops_of(devices.size());
  auto [first, last] = model.OpRangeFor(window.start_ns, window.end_ns);
  size_t slot = 0;
  for (size_t i = first; i < last; ++i) {
    int64_t s = std::max(model.ops.start_ns[i], window.start_ns);
    int64_t e = std::min(model.ops.end_ns[i], window.end_ns);
    if (e <= s) continue;  // outside the window, or zero length
    int32_t dev = model.ops.device_id[i];
    if (devices[slot] != dev) {
      slot = std::lower_bound(devices.begin(), devices.end(), dev) - devices.begin();
    }
    ops_of[slot].push_back(static_cast<int32_t>(i));
  }
  // Clipping keeps the start order: max(start, w0) is monotone in start.
  for (size_t d = 0; d < devices.size(); ++d) {
    DeviceOverlap out;
    out.device_id = devices[d];
    SweepDevice(model, window, ops_of[d], options, &out);
    std::vector<int32_t>().swap(ops_of[d]);
    result.devices.push_back(std::move(out));
  }
  return result;
}

}  // namespace streamscope
