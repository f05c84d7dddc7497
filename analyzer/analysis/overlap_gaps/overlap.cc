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

// Local stream numbers: dense indices of the streams the device's ops run on.
struct LocalStreams {
  std::vector<int32_t> local_of;  // stream -> local number; -1: none of the ops
  std::vector<int32_t> stream_of_local;
  int count() const { return static_cast<int>(stream_of_local.size()); }
};

LocalStreams NumberStreams(const TraceModel& model, const std::vector<int32_t>& ops) {
  LocalStreams s;
  s.local_of.assign(model.streams.size(), -1);
  for (int32_t op : ops) {
    int32_t stream = model.ops.stream[op];
    if (stream >= 0 && s.local_of[stream] < 0) {
      s.local_of[stream] = static_cast<int32_t>(s.stream_of_local.size());
      s.stream_of_local.push_back(stream);
    }
  }
  return s;
}

// Per category: how many ops run, on which local streams, and the mask of
// the categories running.
class ActiveCategories {
 public:
  explicit ActiveCategories(int num_streams)
      : n_(num_streams),
        per_cat_stream_(static_cast<size_t>(kNumOpCategories) * num_streams, 0),
        active_pos_(static_cast<size_t>(kNumOpCategories) * num_streams, -1) {}

  // An op of category c on local stream ls (-1: none) starts (+1) or ends (-1).
  void Enter(int c, int ls, int delta) {
    count_[c] += delta;
    if (count_[c] > 0)
      mask_ |= 1 << c;
    else
      mask_ &= ~(1 << c);
    if (ls < 0) return;
    size_t k = static_cast<size_t>(c) * n_ + ls;
    per_cat_stream_[k] += delta;
    if (delta > 0 && per_cat_stream_[k] == 1) {
      active_pos_[k] = static_cast<int32_t>(active_streams_[c].size());
      active_streams_[c].push_back(ls);
    } else if (delta < 0 && per_cat_stream_[k] == 0) {
      int32_t pos = active_pos_[k];
      int32_t last = active_streams_[c].back();
      active_streams_[c][pos] = last;
      active_pos_[static_cast<size_t>(c) * n_ + last] = pos;
      active_streams_[c].pop_back();
      active_pos_[k] = -1;
    }
  }
  int mask() const { return mask_; }
  // The local streams running ops of category c.
  const std::vector<int32_t>& streams(int c) const { return active_streams_[c]; }

 private:
  int n_;
  std::array<int64_t, kNumOpCategories> count_{};
  std::vector<int32_t> per_cat_stream_;
  std::array<std::vector<int32_t>, kNumOpCategories> active_streams_;
  std::vector<int32_t> active_pos_;
  int mask_ = 0;
};

// Running ops by end time; `local` indexes the sweep's ops.
class RunningOps {
 public:
  explicit RunningOps(size_t n) : pos_(n, -1) {}
  bool empty() const { return heap_.empty(); }
  int64_t next_end() const { return heap_.top().t; }
  void Add(int32_t local, int32_t op, int64_t end) {
    heap_.push({end, local});
    pos_[local] = static_cast<int32_t>(ops_.size());
    ops_.push_back(op);
    local_.push_back(local);
  }
  // Removes the op that ends first; returns its local index.
  int32_t PopFirstEnding() {
    int32_t local = heap_.top().local;
    heap_.pop();
    int32_t pos = pos_[local];
    ops_[pos] = ops_.back();
    local_[pos] = local_.back();
    pos_[local_[pos]] = pos;
    ops_.pop_back();
    local_.pop_back();
    return local;
  }
  // Global op indices of the running ops, in no order.
  const std::vector<int32_t>& ops() const { return ops_; }

 private:
  struct End {
    int64_t t;
    int32_t local;
    bool operator>(const End& o) const { return t > o.t; }
  };
  std::priority_queue<End, std::vector<End>, std::greater<End>> heap_;
  // priority_queue hides its container; keep a mirror of the running ops for
  // interval op lists (swap-remove with positions by local index).
  std::vector<int32_t> ops_;
  std::vector<int32_t> local_;
  std::vector<int32_t> pos_;
};

// The open and closed overlap intervals of each pair, with their ops: all
// of them, or with a per-pair limit the longest.
class IntervalRecorder {
 public:
  IntervalRecorder(const OverlapOptions& options, DeviceOverlap* out)
      : out_(out),
        keep_all_(options.max_intervals_per_pair < 0),
        keep_n_(keep_all_ ? 0 : static_cast<size_t>(options.max_intervals_per_pair)),
        cap_(options.max_ops_per_interval < 0 ? UINT64_MAX : static_cast<uint64_t>(options.max_ops_per_interval)) {
    open_.fill(-1);
  }

  void Open(int p, int64_t t) {
    current_[p] = OverlapInterval{};
    current_[p].start_ns = t;
    current_[p].pair = p;
    open_[p] = 1;
  }
  // Adds op to open interval of pair p. Ops are appended contiguously per
  // interval only while it is the last interval written to interval_ops, so
  // each interval keeps its own small buffer until it closes.
  void Add(int p, int32_t op) {
    ++current_[p].ops_total;
    if (pending_[p].size() < cap_) pending_[p].push_back(op);
  }
  void Close(int p, int64_t t) {
    OverlapInterval iv = current_[p];
    iv.end_ns = t;
    iv.ops_kept = static_cast<uint32_t>(pending_[p].size());
    open_[p] = -1;
    ++pair_intervals_[p];
    if (keep_all_) {
      iv.ops_offset = out_->interval_ops.size();
      out_->interval_ops.insert(out_->interval_ops.end(), pending_[p].begin(), pending_[p].end());
      out_->intervals.push_back(iv);
    } else if (keep_n_ > 0) {
      std::vector<Kept>& k = kept_[p];
      if (k.size() < keep_n_) {
        k.push_back({iv, pending_[p]});
      } else {
        // Replace the shortest kept interval (the earliest among equals stays).
        size_t shortest = 0;
        for (size_t i = 1; i < k.size(); ++i) {
          if (k[i].iv.length() < k[shortest].iv.length()) shortest = i;
        }
        if (iv.length() > k[shortest].iv.length()) k[shortest] = {iv, pending_[p]};
      }
    }
    pending_[p].clear();
  }
  // Closes what is still open (cannot happen: all ops end by the window's
  // end), writes the kept intervals and sorts them by start.
  void Finish(int64_t end_ns) {
    for (int p = 0; p < kNumOverlapPairs; ++p) {
      if (open_[p] >= 0) Close(p, end_ns);
    }
    for (int p = 0; p < kNumOverlapPairs; ++p) {
      out_->interval_total += pair_intervals_[p];
      for (Kept& k : kept_[p]) {
        k.iv.ops_offset = out_->interval_ops.size();
        out_->interval_ops.insert(out_->interval_ops.end(), k.ops.begin(), k.ops.end());
        out_->intervals.push_back(k.iv);
      }
    }
    std::sort(out_->intervals.begin(), out_->intervals.end(), [](const OverlapInterval& a, const OverlapInterval& b) {
      if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
      return a.pair < b.pair;
    });
  }
  int64_t intervals(int p) const { return pair_intervals_[p]; }

 private:
  struct Kept {
    OverlapInterval iv;
    std::vector<int32_t> ops;
  };
  DeviceOverlap* out_;
  const bool keep_all_;
  const size_t keep_n_;
  const uint64_t cap_;
  std::array<int64_t, kNumOverlapPairs> open_{};  // >= 0 while pair p overlaps
  std::array<OverlapInterval, kNumOverlapPairs> current_{};
  std::array<std::vector<Kept>, kNumOverlapPairs> kept_;
  std::array<std::vector<int32_t>, kNumOverlapPairs> pending_;
  std::array<int64_t, kNumOverlapPairs> pair_intervals_{};
};

// Counts a segment of constant activity, `len` long: busy, overlapped, per
// category, copies exposed, per pair and per stream pair.
void AddSegment(int64_t len, const ActiveCategories& active, uint32_t now_open, DeviceOverlap* out,
                std::array<int64_t, kNumOverlapPairs>& pair_ns, StreamPairAccumulator& stream_pairs) {
  const PairTable& table = Pairs();
  const int mask = active.mask();
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
    for (int32_t sa : active.streams(a)) {
      for (int32_t sb : active.streams(b)) stream_pairs.Add(p, sa, sb, len);
    }
  }
  const std::vector<int32_t>& ks = active.streams(0);
  if (ks.size() >= 2) {
    pair_ns[kComputeComputePair] += len;
    for (size_t i = 0; i < ks.size(); ++i) {
      for (size_t j = i + 1; j < ks.size(); ++j) {
        stream_pairs.Add(kComputeComputePair, std::min(ks[i], ks[j]), std::max(ks[i], ks[j]), len);
      }
    }
  }
}

// Per pair: overlapped against possible time, and by stream pair.
void SummarizePairs(const TraceModel& model, const LocalStreams& streams, const StreamPairAccumulator& stream_pairs,
                    const std::array<int64_t, kNumOverlapPairs>& pair_ns, const IntervalRecorder& intervals,
                    DeviceOverlap* out) {
  const PairTable& table = Pairs();
  std::array<std::vector<StreamPairTime>, kNumOverlapPairs> by_pair;
  stream_pairs.ForEach([&](int p, int sa, int sb, int64_t ns) {
    int32_t a = streams.stream_of_local[sa], b = streams.stream_of_local[sb];
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
    po.interval_count = intervals.intervals(p);
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

// One device's sweep. `ops` are op indices sorted by (clipped) start.
void SweepDevice(const TraceModel& model, const Window& window, const std::vector<int32_t>& ops,
                 const OverlapOptions& options, DeviceOverlap* out) {
  const PairTable& table = Pairs();
  const GpuOps& g = model.ops;
  const int64_t w0 = window.start_ns, w1 = window.end_ns;
  auto cs = [&](int32_t op) { return std::max(g.start_ns[op], w0); };
  auto ce = [&](int32_t op) { return std::min(g.end_ns[op], w1); };

  const LocalStreams streams = NumberStreams(model, ops);
  StreamPairAccumulator stream_pairs(streams.count());
  ActiveCategories active(streams.count());
  auto enter = [&](int32_t op, int delta) {
    active.Enter(static_cast<int>(g.category[op]), g.stream[op] >= 0 ? streams.local_of[g.stream[op]] : -1, delta);
  };
  RunningOps running(ops.size());
  IntervalRecorder intervals(options, out);
  uint32_t open_mask = 0;
  std::array<int64_t, kNumOverlapPairs> pair_ns{};
  auto pair_has = [&](int p, int c) { return (table.masks[p] >> c) & 1; };

  std::vector<int32_t> started;
  size_t next = 0;
  const size_t n = ops.size();
  const int64_t kInf = INT64_MAX;
  while (next < n || !running.empty()) {
    int64_t t = std::min(next < n ? cs(ops[next]) : kInf, running.empty() ? kInf : running.next_end());
    // Ends first: touching ops never overlap.
    while (!running.empty() && running.next_end() == t) enter(ops[running.PopFirstEnding()], -1);
    started.clear();
    while (next < n && cs(ops[next]) == t) {
      int32_t local = static_cast<int32_t>(next++);
      int32_t op = ops[local];
      running.Add(local, op, ce(op));
      enter(op, +1);
      started.push_back(op);
      ++out->op_count[static_cast<int>(g.category[op])];
    }
    // Which pairs overlap from t on.
    uint32_t now_open = 0;
    for (int p : table.pairs_for_mask[active.mask()]) now_open |= 1u << p;
    if (active.streams(0).size() >= 2) now_open |= 1u << kComputeComputePair;
    for (uint32_t bits = open_mask | now_open; bits != 0; bits &= bits - 1) {
      int p = __builtin_ctz(bits);
      bool was = (open_mask >> p) & 1, is = (now_open >> p) & 1;
      if (was && !is) {
        intervals.Close(p, t);
      } else if (!was && is) {
        intervals.Open(p, t);
        for (int32_t op : running.ops()) {
          if (pair_has(p, static_cast<int>(g.category[op]))) intervals.Add(p, op);
        }
      } else if (was && is) {
        for (int32_t op : started) {
          if (pair_has(p, static_cast<int>(g.category[op]))) intervals.Add(p, op);
        }
      }
    }
    open_mask = now_open;
    if (running.empty()) continue;
    // The segment [t, t_next) has constant activity.
    int64_t t_next = std::min(next < n ? cs(ops[next]) : kInf, running.next_end());
    AddSegment(t_next - t, active, now_open, out, pair_ns, stream_pairs);
  }
  intervals.Finish(w1);
  SummarizePairs(model, streams, stream_pairs, pair_ns, intervals, out);
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
