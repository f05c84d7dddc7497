#include "analyzer/analysis/causes/hardware_queues.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "absl/strings/numbers.h"
#include "analyzer/analysis/causes/diagnose_support.h"
#include "analyzer/analysis/windows/trace_facts.h"
#include "analyzer/intervals/interval_set.h"
#include "analyzer/model/saturating.h"

namespace streamscope {
namespace {

using diagnose_support::CiteOp;
using diagnose_support::EventWaitFacts;

// CUDA_DEVICE_MAX_CONNECTIONS accepts 1..32; the driver clamps larger values.
constexpr int kMaxConnections = 32;

// The blocks a running kernel occupies when asking whether an SM was left
// idle: its grid's (at most kMaxKernelBlocksKept), and a grid not recorded
// as full (no room is known).
int64_t OccupiedBlocks(const TraceModel& m, int32_t op) {
  const int64_t b = m.kernel_blocks[op];
  return b > 0 ? b : kMaxKernelBlocksKept;
}

bool OnLegacyStream(const TraceModel& m, int32_t op) {
  const int32_t s = m.ops.stream[op];
  return ValidStream(m, s) && m.streams[s].kind == StreamKind::kLegacyDefault;
}

int32_t SmCount(const TraceModel& m, int32_t device_id) {
  const Device* d = m.FindDevice(device_id);
  return d != nullptr ? d->sm_count : 0;
}

// Streams of each device that ran ops starting in [first, last).
absl::flat_hash_map<int32_t, int64_t> StreamsPerDevice(const TraceModel& m, size_t first, size_t last) {
  std::vector<uint8_t> seen(m.streams.size(), 0);
  absl::flat_hash_map<int32_t, int64_t> count;
  for (size_t i = first; i < last; ++i) {
    const int32_t s = m.ops.stream[i];
    if (!ValidStream(m, s) || seen[s] != 0) continue;
    seen[s] = 1;
    count[m.ops.device_id[i]] += 1;
  }
  return count;
}

// Kernels on `devices` that started min_delay_ns or more after they were
// ready (the header says when), with no event wait made on their stream.
struct LateKernel {
  int32_t op;
  int64_t ready;
};
std::vector<LateKernel> LateKernels(const TraceModel& m, size_t first, size_t last,
                                    const absl::flat_hash_map<int32_t, int32_t>& devices,
                                    const HardwareQueueOptions& o) {
  std::vector<LateKernel> late;
  const EventWaitFacts& waits = m.Derived<EventWaitFacts>();
  StreamPredecessorWalk predecessors(m, first);
  for (size_t i = first; i < last; ++i) {
    const int32_t prev = predecessors.Next(i);
    const auto op = static_cast<int32_t>(i);
    if (m.ops.category[i] != OpCategory::kKernel || !devices.contains(m.ops.device_id[i])) continue;
    if (!ValidStream(m, m.ops.stream[i]) || OnLegacyStream(m, op) || m.ops.graph_id[i] >= 0) continue;
    const int32_t a = m.ApiForOp(i);
    if (a < 0) continue;
    const int64_t ready = std::max(m.api.end_ns[a], prev >= 0 ? m.ops.end_ns[prev] : kMinTime);
    if (m.ops.start_ns[i] - ready < o.min_delay_ns) continue;
    int64_t since = kMinTime;  // the previous op's submission
    if (prev >= 0) {
      const int32_t pa = m.ApiForOp(static_cast<size_t>(prev));
      since = pa >= 0 ? m.api.start_ns[pa] : m.ops.start_ns[prev];
    }
    if (waits.FirstIn(m.ops.stream[i], since, m.api.end_ns[a]) != nullptr) continue;
    late.push_back({op, ready});
  }
  return late;
}

// Lazy module loading (CUDA_MODULE_LOADING=LAZY, the default since CUDA
// 12.2): a kernel's first launch loads its module once the device's running
// work has ended, and the launches after it wait with it. simpleHyperQ on an
// H100, with a queue per stream too: kernel_B's first launch held every
// later launch until the running kernel_A ended, 9.9 ms; with eager loading
// nothing waited. A stall runs from the first launch's call return to the
// end of the work then running, when nothing else started on the device
// meanwhile; a kernel ready inside it could not start before its end.
std::vector<LoadStall> LoadStalls(const TraceModel& m, const Window& w,
                                  const absl::flat_hash_map<int32_t, int32_t>& crowded, int64_t tolerance_ns) {
  constexpr int kMaxScan = 4096;  // ops looked at backwards for the work running
  std::vector<LoadStall> stalls;
  std::vector<uint8_t> seen(m.strings.size(), 0);  // per kernel name: launched before
  const size_t last = FirstOpStartingAt(m, w.end_ns);
  for (size_t f = 0; f < last; ++f) {
    if (m.ops.category[f] != OpCategory::kKernel) continue;
    const StringId name = m.ops.name[f];
    if (name < 0 || static_cast<size_t>(name) >= seen.size() || seen[name] != 0) continue;
    seen[name] = 1;
    const int32_t device = m.ops.device_id[f];
    const int32_t a = m.ApiForOp(f);
    if (!crowded.contains(device) || a < 0) continue;
    const int64_t returned = m.api.end_ns[a];
    if (returned >= w.end_ns) continue;
    const size_t after = FirstOpStartingAt(m, SaturatingAdd(returned, 1));  // ops [0, after) started by then
    int64_t drained = kMinTime, blocks = 0;
    int scanned = 0;
    for (size_t j = after; j-- > 0 && scanned < kMaxScan; ++scanned) {
      if (m.ops.start_ns[j] < SaturatingSub(returned, m.max_op_duration_ns)) break;
      if (j != f && m.ops.device_id[j] == device && m.ops.end_ns[j] > returned) {
        drained = std::max(drained, m.ops.end_ns[j]);
        if (m.ops.category[j] == OpCategory::kKernel) blocks += OccupiedBlocks(m, static_cast<int32_t>(j));
      }
    }
    // The work then running left an SM idle: the launches waited for the
    // load, not for room.
    if (drained == kMinTime || scanned >= kMaxScan || blocks >= crowded.at(device)) continue;
    bool started = false;
    for (size_t j = after; j < m.ops.size() && m.ops.start_ns[j] < drained - tolerance_ns && !started; ++j) {
      started = m.ops.device_id[j] == device;
    }
    if (!started) stalls.push_back({device, returned, drained, static_cast<int32_t>(f)});
  }
  return stalls;
}

}  // namespace

HardwareQueueResult FindQueueHeldKernels(const TraceModel& m, const Window& w, const HardwareQueueOptions& o) {
  HardwareQueueResult r;
  r.connections = o.default_connections;
  if (auto it = m.metadata.find("env:CUDA_DEVICE_MAX_CONNECTIONS"); it != m.metadata.end()) {
    int v = 0;
    if (absl::SimpleAtoi(it->second, &v) && v >= 1) {
      r.connections = std::min(v, kMaxConnections);
      r.connections_recorded = true;
    }
  }
  if (m.kernel_blocks.size() != m.ops.size()) return r;  // grids not recorded
  const size_t first = FirstOpStartingAt(m, w.start_ns);
  const size_t last = std::max(first, FirstOpStartingAt(m, w.end_ns));
  // The devices whose streams outnumber the queues (and whose SMs are known).
  absl::flat_hash_map<int32_t, int32_t> crowded;  // device -> SM count
  for (const auto& [device, streams] : StreamsPerDevice(m, first, last)) {
    const int32_t sms = SmCount(m, device);
    if (streams > r.connections && sms > 0) crowded[device] = sms;
  }
  if (crowded.empty()) return r;

  std::vector<LateKernel> candidates = LateKernels(m, first, last, crowded, o);
  if (candidates.empty()) return r;
  // A kernel ready while lazy loading stalled its device was ready at the
  // stall's end.
  r.load_stalls = LoadStalls(m, w, crowded, o.tolerance_ns);
  if (!r.load_stalls.empty()) {
    std::vector<LateKernel> kept;
    for (LateKernel c : candidates) {
      for (const LoadStall& s : r.load_stalls) {
        if (s.device_id == m.ops.device_id[c.op] && s.start_ns <= c.ready && c.ready < s.end_ns) c.ready = s.end_ns;
      }
      if (m.ops.start_ns[c.op] - c.ready >= o.min_delay_ns) kept.push_back(c);
    }
    candidates = std::move(kept);
  }

  // One sweep in start order: per crowded device, the ops that started
  // before the candidate and ended at most `tolerance` before it (or later),
  // in a heap by end: the op whose end released it, and what ran then.
  using Entry = std::pair<int64_t, int32_t>;  // end, op
  absl::flat_hash_map<int32_t, std::vector<Entry>> running;
  size_t next = FirstOpStartingAt(m, SaturatingSub(w.start_ns, m.max_op_duration_ns));
  for (const LateKernel& c : candidates) {
    const int64_t start = m.ops.start_ns[c.op];
    for (; next < m.ops.size() && m.ops.start_ns[next] < start; ++next) {
      auto it = running.find(m.ops.device_id[next]);
      if (it == running.end()) {
        if (!crowded.contains(m.ops.device_id[next])) continue;
        it = running.try_emplace(m.ops.device_id[next]).first;
      }
      it->second.push_back({m.ops.end_ns[next], static_cast<int32_t>(next)});
      std::push_heap(it->second.begin(), it->second.end(), std::greater<>());
    }
    std::vector<Entry>& heap = running[m.ops.device_id[c.op]];
    while (!heap.empty() && heap.front().first < start - o.tolerance_ns) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      heap.pop_back();
    }
    // The op of another stream that ended last at or before the start,
    // after the kernel was ready.
    int32_t waited = -1;
    for (const auto& [end, op] : heap) {
      if (end > start || end <= c.ready || m.ops.stream[op] == m.ops.stream[c.op] || OnLegacyStream(m, op)) continue;
      if (waited < 0 || end > m.ops.end_ns[waited] || (end == m.ops.end_ns[waited] && op < waited)) waited = op;
    }
    if (waited < 0) continue;
    // Room on the device just before it ended: fewer blocks than SMs.
    const int64_t t = m.ops.end_ns[waited];
    int64_t blocks = 0;
    for (const auto& [end, op] : heap) {
      if (m.ops.category[op] == OpCategory::kKernel && m.ops.start_ns[op] < t && end >= t) {
        blocks += OccupiedBlocks(m, op);
      }
    }
    if (blocks >= crowded.at(m.ops.device_id[c.op])) continue;
    r.held.push_back({c.op, waited, c.ready, start - c.ready});
  }
  return r;
}

std::optional<DiagnoseFinding> HardwareQueueFinding(const TraceModel& m, const Window& w,
                                                    const HardwareQueueResult& held, int max_evidence) {
  if (held.held.empty()) return std::nullopt;
  // The device with the most held kernels (the lowest id on a tie).
  absl::flat_hash_map<int32_t, int64_t> per_device;
  for (const QueueHeldKernel& h : held.held) per_device[m.ops.device_id[h.op]] += 1;
  int32_t device = 0;
  int64_t most = -1;
  for (const auto& [d, n] : per_device) {
    if (n > most || (n == most && d < device)) {
      device = d;
      most = n;
    }
  }
  DiagnoseFinding f;
  f.cause = DiagnoseCause::kHardwareQueue;
  IntervalList delays;
  for (const QueueHeldKernel& h : held.held) {
    delays.push_back({h.ready_ns, m.ops.start_ns[h.op]});
    CiteOp(f, h.op, max_evidence);
    CiteOp(f, h.waited_op, max_evidence);
  }
  f.impact_ns = TotalLength(Clip(Normalize(std::move(delays)), w.interval()));
  HardwareQueueFacts facts;
  facts.device_id = device;
  if (const Device* d = m.FindDevice(device)) {
    facts.device_name = d->name;
    facts.sm_count = d->sm_count;
  }
  facts.held_kernels = static_cast<int64_t>(held.held.size());
  facts.delay_ns = f.impact_ns;
  facts.connections = held.connections;
  facts.connections_recorded = held.connections_recorded;
  const size_t first = FirstOpStartingAt(m, w.start_ns);
  const size_t last = std::max(first, FirstOpStartingAt(m, w.end_ns));
  const auto streams = StreamsPerDevice(m, first, last);
  if (auto it = streams.find(device); it != streams.end()) facts.streams = it->second;
  // The most kernels that ran at once on the device in the window.
  std::vector<int64_t> ends;  // a heap of the running kernels' ends
  for (size_t i = first; i < last; ++i) {
    if (m.ops.device_id[i] != device || m.ops.category[i] != OpCategory::kKernel) continue;
    while (!ends.empty() && ends.front() <= m.ops.start_ns[i]) {
      std::pop_heap(ends.begin(), ends.end(), std::greater<>());
      ends.pop_back();
    }
    ends.push_back(m.ops.end_ns[i]);
    std::push_heap(ends.begin(), ends.end(), std::greater<>());
    facts.max_concurrent_kernels = std::max(facts.max_concurrent_kernels, static_cast<int64_t>(ends.size()));
  }
  IntervalList stalls;
  int64_t longest = 0;
  for (const LoadStall& s : held.load_stalls) {
    if (s.device_id != device) continue;
    stalls.push_back({s.start_ns, s.end_ns});
    if (s.end_ns - s.start_ns > longest) {
      longest = s.end_ns - s.start_ns;
      facts.load_stall_kernel = s.first_launch;
    }
  }
  facts.load_stall_ns = TotalLength(Clip(Normalize(std::move(stalls)), w.interval()));
  f.figures = {{"device_id", device},
               {"load_stall_ns", static_cast<double>(facts.load_stall_ns)},
               {"held_kernels", static_cast<double>(facts.held_kernels)},
               {"delay_ns", static_cast<double>(facts.delay_ns)},
               {"streams", static_cast<double>(facts.streams)},
               {"hardware_queues", facts.connections},
               {"sm_count", facts.sm_count},
               {"max_concurrent_kernels", static_cast<double>(facts.max_concurrent_kernels)}};
  f.facts = std::move(facts);
  return f;
}

LoadStallResult FindLoadStalls(const TraceModel& m, const Window& w, const HardwareQueueOptions& o) {
  LoadStallResult r;
  if (m.kernel_blocks.size() != m.ops.size()) return r;  // grids not recorded
  const size_t first = FirstOpStartingAt(m, w.start_ns);
  const size_t last = std::max(first, FirstOpStartingAt(m, w.end_ns));
  absl::flat_hash_map<int32_t, int32_t> devices;  // device -> SM count, those known
  for (const int32_t d : m.op_devices) {
    if (const int32_t sms = SmCount(m, d); sms > 0) devices[d] = sms;
  }
  if (devices.empty()) return r;
  // The stalls first: a few first launches, where the late kernels are a
  // pass over the window (and at 10M ops perhaps millions of them).
  const std::vector<LoadStall> stalls = LoadStalls(m, w, devices, o.tolerance_ns);
  if (stalls.empty()) return r;
  const std::vector<LateKernel> late = LateKernels(m, first, last, devices, o);
  for (const LoadStall& s : stalls) {
    bool waited = false;
    for (const LateKernel& k : late) {
      if (m.ops.device_id[k.op] != s.device_id || k.op == s.first_launch) continue;
      if (k.ready >= s.end_ns || m.ops.start_ns[k.op] < s.end_ns - o.tolerance_ns) continue;
      const int64_t from = std::max(k.ready, s.start_ns);
      if (s.end_ns - from < o.min_delay_ns) continue;
      r.waiting.push_back({k.op, s.first_launch, from, s.end_ns - from});
      waited = true;
    }
    if (waited) r.stalls.push_back(s);
  }
  std::sort(r.waiting.begin(), r.waiting.end(),
            [](const QueueHeldKernel& a, const QueueHeldKernel& b) { return a.op < b.op; });
  r.waiting.erase(std::unique(r.waiting.begin(), r.waiting.end(),
                              [](const QueueHeldKernel& a, const QueueHeldKernel& b) { return a.op == b.op; }),
                  r.waiting.end());
  return r;
}

std::optional<DiagnoseFinding> LoadStallFinding(const TraceModel&, const Window& w, const LoadStallResult& stalls,
                                                int max_evidence) {
  if (stalls.waiting.empty()) return std::nullopt;
  DiagnoseFinding f;
  f.cause = DiagnoseCause::kLazyLoading;
  IntervalList waits, stalled;
  for (const QueueHeldKernel& k : stalls.waiting) waits.push_back({k.ready_ns, k.ready_ns + k.delay_ns});
  f.impact_ns = TotalLength(Clip(Normalize(std::move(waits)), w.interval()));
  LazyLoadingFacts facts;
  facts.waiting_kernels = static_cast<int64_t>(stalls.waiting.size());
  facts.wait_ns = f.impact_ns;
  facts.stalls = static_cast<int64_t>(stalls.stalls.size());
  int64_t longest = -1;
  for (const LoadStall& s : stalls.stalls) {
    stalled.push_back({s.start_ns, s.end_ns});
    CiteOp(f, s.first_launch, max_evidence);
    if (s.end_ns - s.start_ns > longest) {
      longest = s.end_ns - s.start_ns;
      facts.device_id = s.device_id;
      facts.first_launch = s.first_launch;
    }
  }
  facts.stalled_ns = TotalLength(Clip(Normalize(std::move(stalled)), w.interval()));
  for (const QueueHeldKernel& k : stalls.waiting) CiteOp(f, k.op, max_evidence);
  f.figures = {{"stalls", static_cast<double>(facts.stalls)},
               {"waiting_kernels", static_cast<double>(facts.waiting_kernels)},
               {"wait_ns", static_cast<double>(facts.wait_ns)},
               {"stalled_ns", static_cast<double>(facts.stalled_ns)}};
  f.facts = std::move(facts);
  return f;
}

}  // namespace streamscope
