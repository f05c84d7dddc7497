#include "analyzer/analysis/memory/happens_before.h"

#include <algorithm>
#include <initializer_list>
#include <string_view>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "analyzer/analysis/causes/api_names.h"

namespace streamscope {
namespace {

// What a call's name says about the order it imposes (the hidden-sync
// analysis' classes, hidden_sync.h's implicit syncs).
enum class CallClass : int8_t { kUnset = -1, kNone = 0, kDeviceSync, kOtherSync, kOwnOps, kDrain };

CallClass ClassifyCall(std::string_view raw) {
  std::string_view n = BaseApiName(raw);
  auto is_any = [&](std::initializer_list<std::string_view> names) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  if (is_any({"cudaDeviceSynchronize", "cudaThreadSynchronize", "cuCtxSynchronize"})) {
    return CallClass::kDeviceSync;
  }
  if (n.find("Synchronize") != std::string_view::npos) return CallClass::kOtherSync;
  bool is_async = n.find("Async") != std::string_view::npos;
  if (n.starts_with("cudaMemcpy") || n.starts_with("cuMemcpy") || n.starts_with("cudaMemset") ||
      n.starts_with("cuMemset")) {
    return is_async ? CallClass::kNone : CallClass::kOwnOps;
  }
  if (DeviceDrainingCallOf(n) != DeviceDrainingCall::kNone) return CallClass::kDrain;
  return CallClass::kNone;
}

bool IsBlocking(StreamKind k) { return k == StreamKind::kBlocking || k == StreamKind::kPerThreadDefault; }

}  // namespace

// Replays the host's submissions in time order, keeping one vector clock per
// stream (what the stream's next command is ordered after) and one for the
// host (what every later submission is ordered after).
class HappensBeforeBuilder {
 public:
  HappensBeforeBuilder(const TraceModel& m, HappensBefore& hb) : m_(m), hb_(hb), s_(m.streams.size()) {}

  void Run() {
    const size_t n = m_.ops.size();
    hb_.position_.assign(n, HappensBefore::kNoPosition);
    hb_.op_stream_.assign(m_.ops.stream.begin(), m_.ops.stream.end());
    hb_.by_rank_.reserve(n);
    hb_.rank_.assign(n, 0);
    hb_.submit_ns_.assign(n, 0);
    hb_.stream_ops_.assign(s_, {});
    hb_.joins_.assign(s_, {});
    hb_.record_offset_.assign(m_.event_ops.size(), UINT32_MAX);
    cur_.assign(s_ * s_, 0);
    seen_.assign(s_ * s_, 0);
    host_.assign(s_, 0);
    count_.assign(s_, 0);
    version_.assign(s_, 1);
    host_seen_.assign(s_, 0);
    dirty_.assign(s_, 0);
    Partners();
    Commands();
    std::sort(commands_.begin(), commands_.end(), [](const Command& a, const Command& b) {
      return std::tie(a.time, a.phase, a.corr, a.sub, a.kind, a.index) <
             std::tie(b.time, b.phase, b.corr, b.sub, b.kind, b.index);
    });
    uint32_t rank = 0;
    for (const Command& c : commands_) {
      switch (c.kind) {
        case Kind::kOp:
          hb_.rank_[c.index] = rank++;
          hb_.by_rank_.push_back(c.index);
          SubmitOp(c.index);
          break;
        case Kind::kRecord: Record(c.index); break;
        case Kind::kWait: Wait(c.index); break;
        case Kind::kWaitStart: WaitStart(waits_[c.index]); break;
        case Kind::kWaitEnd: WaitEnd(waits_[c.index]); break;
      }
    }
  }

 private:
  enum class Kind : uint8_t { kOp, kRecord, kWait, kWaitStart, kWaitEnd };
  struct Command {
    int64_t time;
    uint8_t phase;  // 0: a host wait returning; 1: everything else
    int64_t corr, sub;
    Kind kind;
    int32_t index;
  };
  struct HostWait {
    enum class Target : uint8_t { kStream, kEvent, kAll, kOwnOps } target = Target::kAll;
    int32_t stream = -1;
    int64_t event = 0;
    int64_t corr = -1;
    const char* stat = "";
    bool started = false;
    std::vector<uint32_t> cover;
  };

  uint32_t* Cur(size_t s) { return &cur_[s * s_]; }
  bool Join(uint32_t* dst, const uint32_t* src) {
    bool changed = false;
    for (size_t a = 0; a < s_; ++a) {
      if (src[a] > dst[a]) {
        dst[a] = src[a];
        changed = true;
      }
    }
    return changed;
  }
  void Tail(size_t s, std::vector<uint32_t>& out) {
    out.assign(Cur(s), Cur(s) + s_);
    out[s] = count_[s];
  }
  bool ValidStream(int32_t s) const { return s >= 0 && static_cast<size_t>(s) < s_; }
  void Changed(size_t s) {
    dirty_[s] = 1;
    ++version_[s];
  }

  // Which streams a stream must catch up with under the legacy rules.
  void Partners() {
    partners_.assign(s_, {});
    for (size_t a = 0; a < s_; ++a) {
      StreamKind ka = m_.streams[a].kind;
      if (ka != StreamKind::kLegacyDefault && !IsBlocking(ka)) continue;
      for (size_t b = 0; b < s_; ++b) {
        if (a == b) continue;
        StreamKind kb = m_.streams[b].kind;
        bool pair = (ka == StreamKind::kLegacyDefault && IsBlocking(kb)) ||
                    (IsBlocking(ka) && kb == StreamKind::kLegacyDefault);
        int64_t ca = m_.streams[a].context_id, cb = m_.streams[b].context_id;
        bool same_context = ca == 0 || cb == 0 ? m_.streams[a].device_id == m_.streams[b].device_id : ca == cb;
        if (pair && same_context) partners_[a].push_back(static_cast<uint32_t>(b));
      }
    }
  }

  void Commands() {
    const GpuOps& ops = m_.ops;
    commands_.reserve(ops.size() + m_.event_ops.size() + m_.syncs.size() * 2);
    for (size_t i = 0; i < ops.size(); ++i) {
      int32_t a = m_.ApiForOp(i);
      int64_t t = a >= 0 ? m_.api.start_ns[a] : ops.start_ns[i];
      if (a < 0) ++hb_.stats_["op_without_call"];
      hb_.submit_ns_[i] = t;
      commands_.push_back({t, 1, ops.correlation_id[i], ops.start_ns[i], Kind::kOp, static_cast<int32_t>(i)});
    }
    absl::flat_hash_set<int64_t> sync_corrs;         // calls already described by a record
    absl::flat_hash_map<int64_t, int64_t> sync_end;  // correlation -> sync record end
    for (const SyncRecord& r : m_.syncs) {
      if (r.correlation_id >= 0) {
        sync_corrs.insert(r.correlation_id);
        sync_end[r.correlation_id] = r.end_ns;
      }
    }
    auto call_end = [&](int64_t corr, int64_t fallback) {
      if (corr >= 0) {
        auto it = m_.api_by_correlation.find(corr);
        if (it != m_.api_by_correlation.end()) return std::max(fallback, m_.api.end_ns[it->second]);
        auto s = sync_end.find(corr);
        if (s != sync_end.end()) return std::max(fallback, s->second);
      }
      return fallback;
    };
    absl::flat_hash_set<int64_t> event_sync_corrs;
    // ts_ns is taken inside the call, a little after its start: use the
    // call's start (the time ops are ordered by) when the call is known.
    auto call_start = [&](const EventOp& e) {
      auto it = e.correlation_id >= 0 ? m_.api_by_correlation.find(e.correlation_id) : m_.api_by_correlation.end();
      return it != m_.api_by_correlation.end() ? std::min(e.ts_ns, m_.api.start_ns[it->second]) : e.ts_ns;
    };
    for (size_t i = 0; i < m_.event_ops.size(); ++i) {
      const EventOp& e = m_.event_ops[i];
      int32_t index = static_cast<int32_t>(i);
      switch (e.op) {
        case EventOp::Op::kRecord:
          commands_.push_back({call_start(e), 1, e.correlation_id, 0, Kind::kRecord, index});
          break;
        case EventOp::Op::kWait:
          commands_.push_back({call_start(e), 1, e.correlation_id, 0, Kind::kWait, index});
          break;
        case EventOp::Op::kSynchronize:
          if (e.correlation_id >= 0) event_sync_corrs.insert(e.correlation_id);
          AddWait(HostWait::Target::kEvent, -1, e.event_handle, e.correlation_id, "edge_event_sync", e.ts_ns,
                  call_end(e.correlation_id, e.ts_ns));
          break;
        case EventOp::Op::kQuery: {
          // Only a query that reported completion tells the host anything
          // (the collector records only those; a recorded call that failed
          // is skipped).
          auto it = e.correlation_id >= 0 ? m_.api_by_correlation.find(e.correlation_id) : m_.api_by_correlation.end();
          bool known = it != m_.api_by_correlation.end();
          if (!known || m_.api.return_value[it->second] == 0) {
            AddWait(HostWait::Target::kEvent, -1, e.event_handle, e.correlation_id, "edge_event_query", e.ts_ns,
                    known ? m_.api.end_ns[it->second] : e.ts_ns);
          }
          break;
        }
        case EventOp::Op::kElapsed: break;
      }
    }
    for (const SyncRecord& r : m_.syncs) {
      switch (r.kind) {
        case SyncKind::kStreamSynchronize:
          if (ValidStream(r.stream)) {
            AddWait(HostWait::Target::kStream, r.stream, 0, r.correlation_id, "edge_stream_sync", r.start_ns, r.end_ns);
          } else {
            ++hb_.stats_["stream_sync_without_stream"];
          }
          break;
        case SyncKind::kContextSynchronize:
          AddWait(HostWait::Target::kAll, -1, 0, r.correlation_id, "edge_device_sync", r.start_ns, r.end_ns);
          break;
        case SyncKind::kEventSynchronize:
          if (r.correlation_id < 0 || !event_sync_corrs.contains(r.correlation_id)) {
            ++hb_.stats_["event_sync_without_event"];
          }
          break;
        default: break;
      }
    }
    std::vector<CallClass> classes(m_.strings.size(), CallClass::kUnset);
    for (size_t i = 0; i < m_.api.size(); ++i) {
      StringId name = m_.api.name[i];
      if (name < 0 || static_cast<size_t>(name) >= classes.size()) continue;
      if (classes[name] == CallClass::kUnset) classes[name] = ClassifyCall(m_.strings.Get(name));
      CallClass c = classes[name];
      int64_t corr = m_.api.correlation_id[i];
      if (c == CallClass::kNone) continue;
      if (corr >= 0 && (sync_corrs.contains(corr) || event_sync_corrs.contains(corr))) continue;
      int64_t start = m_.api.start_ns[i], end = m_.api.end_ns[i];
      switch (c) {
        case CallClass::kDeviceSync:
          AddWait(HostWait::Target::kAll, -1, 0, corr, "edge_device_sync", start, end);
          break;
        case CallClass::kOtherSync: ++hb_.stats_["sync_call_without_target"]; break;
        case CallClass::kOwnOps:
          if (corr >= 0) {
            own_corrs_.insert(corr);
            AddWait(HostWait::Target::kOwnOps, -1, 0, corr, "edge_sync_call", start, end);
          }
          break;
        case CallClass::kDrain: AddWait(HostWait::Target::kAll, -1, 0, corr, "edge_sync_call", start, end); break;
        default: break;
      }
    }
    if (!own_corrs_.empty()) {
      for (size_t i = 0; i < ops.size(); ++i) {
        if (own_corrs_.contains(ops.correlation_id[i]))
          own_ops_[ops.correlation_id[i]].push_back(static_cast<int32_t>(i));
      }
    }
  }

  void AddWait(HostWait::Target target, int32_t stream, int64_t event, int64_t corr, const char* stat, int64_t start,
               int64_t end) {
    int32_t index = static_cast<int32_t>(waits_.size());
    HostWait w;
    w.target = target;
    w.stream = stream;
    w.event = event;
    w.corr = corr;
    w.stat = stat;
    waits_.push_back(std::move(w));
    commands_.push_back({start, 1, waits_.back().corr, 0, Kind::kWaitStart, index});
    commands_.push_back({std::max(start, end), 0, waits_.back().corr, 0, Kind::kWaitEnd, index});
  }

  // Brings stream s up to date before one of its commands: what the host
  // waited for, and the legacy default-stream rules.
  void Catchup(size_t s) {
    if (host_seen_[s] != host_version_) {
      if (Join(Cur(s), host_.data())) Changed(s);
      host_seen_[s] = host_version_;
    }
    for (uint32_t b : partners_[s]) {
      uint64_t& seen = seen_[s * s_ + b];
      if (seen == version_[b]) continue;
      seen = version_[b];
      Tail(b, scratch_);
      if (Join(Cur(s), scratch_.data())) {
        Changed(s);
        ++hb_.stats_["edge_legacy_stream"];
      }
    }
  }

  void SubmitOp(int32_t op) {
    int32_t s = m_.ops.stream[op];
    if (!ValidStream(s)) {
      ++hb_.stats_["op_without_stream"];
      return;
    }
    Catchup(s);
    if (dirty_[s]) {
      uint32_t offset = static_cast<uint32_t>(hb_.vc_pool_.size());
      hb_.vc_pool_.insert(hb_.vc_pool_.end(), Cur(s), Cur(s) + s_);
      hb_.joins_[s].push_back({count_[s], offset});
      dirty_[s] = 0;
    }
    hb_.position_[op] = count_[s]++;
    ++version_[s];
    hb_.stream_ops_[s].push_back(op);
  }

  void Record(int32_t index) {
    const EventOp& e = m_.event_ops[index];
    if (!ValidStream(e.stream)) {
      ++hb_.stats_["event_op_without_stream"];
      last_record_.erase(e.event_handle);  // what the event now covers is unknown
      return;
    }
    Catchup(e.stream);
    Tail(e.stream, scratch_);
    uint32_t offset = static_cast<uint32_t>(hb_.vc_pool_.size());
    hb_.vc_pool_.insert(hb_.vc_pool_.end(), scratch_.begin(), scratch_.end());
    hb_.record_offset_[index] = offset;
    last_record_[e.event_handle] = offset;
  }

  void Wait(int32_t index) {
    const EventOp& e = m_.event_ops[index];
    if (!ValidStream(e.stream)) {
      ++hb_.stats_["event_op_without_stream"];
      return;
    }
    auto it = last_record_.find(e.event_handle);
    if (it == last_record_.end()) {
      ++hb_.stats_["wait_before_record"];  // CUDA: a wait on a never-recorded event is a no-op
      return;
    }
    Catchup(e.stream);
    // Copy first: the pool may grow while we hold a pointer into it.
    scratch_.assign(hb_.vc_pool_.begin() + it->second, hb_.vc_pool_.begin() + it->second + s_);
    if (Join(Cur(e.stream), scratch_.data())) Changed(e.stream);
    ++hb_.stats_["edge_event_wait"];
  }

  void WaitStart(HostWait& w) {
    if (w.started) return;
    w.started = true;
    w.cover.assign(s_, 0);
    switch (w.target) {
      case HostWait::Target::kStream:
        Catchup(w.stream);  // a sync of the legacy stream also covers blocking streams
        Tail(w.stream, w.cover);
        break;
      case HostWait::Target::kEvent: {
        auto it = last_record_.find(w.event);
        if (it == last_record_.end()) break;
        std::copy(hb_.vc_pool_.begin() + it->second, hb_.vc_pool_.begin() + it->second + s_, w.cover.begin());
        break;
      }
      case HostWait::Target::kAll:
        for (size_t s = 0; s < s_; ++s) {
          Tail(s, scratch_);
          Join(w.cover.data(), scratch_.data());
        }
        break;
      case HostWait::Target::kOwnOps: break;  // known once the call's ops are submitted
    }
  }

  void WaitEnd(HostWait& w) {
    WaitStart(w);
    if (w.target == HostWait::Target::kOwnOps) {
      auto it = own_ops_.find(w.corr);
      if (it == own_ops_.end()) return;
      for (int32_t op : it->second) {
        int32_t s = m_.ops.stream[op];
        uint32_t pos = hb_.position_[op];
        if (!ValidStream(s) || pos == HappensBefore::kNoPosition) continue;
        if (const auto* jp = hb_.JoinFor(s, pos)) Join(w.cover.data(), &hb_.vc_pool_[jp->offset]);
        w.cover[s] = std::max(w.cover[s], pos + 1);
      }
    }
    if (Join(host_.data(), w.cover.data())) {
      ++host_version_;
      ++hb_.stats_[w.stat];
    }
    w.cover = {};
  }

  const TraceModel& m_;
  HappensBefore& hb_;
  const size_t s_;
  std::vector<uint32_t> cur_, host_, count_, scratch_;
  std::vector<uint64_t> seen_, version_, host_seen_;
  uint64_t host_version_ = 1;
  std::vector<uint8_t> dirty_;
  std::vector<std::vector<uint32_t>> partners_;
  std::vector<Command> commands_;
  std::vector<HostWait> waits_;
  absl::flat_hash_map<int64_t, uint32_t> last_record_;  // event handle -> vc_pool_ offset
  absl::flat_hash_set<int64_t> own_corrs_;
  absl::flat_hash_map<int64_t, std::vector<int32_t>> own_ops_;
};

HappensBefore::HappensBefore(const TraceModel& model) { HappensBeforeBuilder(model, *this).Run(); }

const HappensBefore::JoinPoint* HappensBefore::JoinFor(int32_t stream, uint32_t position) const {
  const std::vector<JoinPoint>& joins = joins_[stream];
  auto it = std::upper_bound(joins.begin(), joins.end(), position,
                             [](uint32_t p, const JoinPoint& j) { return p < j.first_position; });
  return it == joins.begin() ? nullptr : &*(it - 1);
}

uint32_t HappensBefore::Cover(int32_t op, int32_t stream) const {
  if (op < 0 || static_cast<size_t>(op) >= position_.size() || position_[op] == kNoPosition) return 0;
  if (stream < 0 || static_cast<size_t>(stream) >= stream_ops_.size()) return 0;
  int32_t own = op_stream_[op];
  if (own == stream) return position_[op];
  const JoinPoint* jp = JoinFor(own, position_[op]);
  return jp == nullptr ? 0 : vc_pool_[jp->offset + stream];
}

bool HappensBefore::Ordered(int32_t a, int32_t b) const {
  if (a == b || a < 0 || b < 0) return false;
  if (static_cast<size_t>(a) >= position_.size() || static_cast<size_t>(b) >= position_.size()) return false;
  if (position_[a] == kNoPosition || position_[b] == kNoPosition) return false;
  return Cover(b, op_stream_[a]) > position_[a];
}

int32_t HappensBefore::OpAt(int32_t stream, uint32_t pos) const {
  if (stream < 0 || static_cast<size_t>(stream) >= stream_ops_.size()) return -1;
  return pos < stream_ops_[stream].size() ? stream_ops_[stream][pos] : -1;
}

uint32_t HappensBefore::StreamOpCount(int32_t stream) const {
  if (stream < 0 || static_cast<size_t>(stream) >= stream_ops_.size()) return 0;
  return static_cast<uint32_t>(stream_ops_[stream].size());
}

std::vector<uint32_t> HappensBefore::RecordCover(size_t event_op_index) const {
  if (event_op_index >= record_offset_.size() || record_offset_[event_op_index] == UINT32_MAX) return {};
  auto first = vc_pool_.begin() + record_offset_[event_op_index];
  return std::vector<uint32_t>(first, first + static_cast<std::ptrdiff_t>(stream_ops_.size()));
}

}  // namespace streamscope
