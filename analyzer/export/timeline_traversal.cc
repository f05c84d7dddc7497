#include "analyzer/export/timeline_traversal.h"

#include "absl/strings/str_cat.h"
#include "analyzer/render/window_label.h"

namespace streamscope {
namespace {

constexpr int64_t kDevicePidBase = int64_t{1} << 30;
constexpr int64_t kDevicePidsPerTrace = 256;
constexpr int64_t kSyntheticTidBase = int64_t{1} << 28;

// "<label>: " before every process name when several traces share the file.
std::string Prefix(const PerfettoTraceInput& in, int count) {
  return count > 1 ? absl::StrCat(in.label.empty() ? in.model->path : in.label, ": ") : "";
}

}  // namespace

TimelineTraversal::TimelineTraversal(const PerfettoTraceInput& in, int trace_index, int trace_count)
    : in_(in), m_(*in.model), w_(in.window), index_(trace_index), count_(trace_count), lanes_(m_.streams.size()) {}

int64_t TimelineTraversal::HostPid() const {
  if (m_.pid > 0 && m_.pid < kDevicePidBase && count_ == 1) return m_.pid;
  return 1 + index_;
}

int64_t TimelineTraversal::DevicePid(int32_t device_id) const {
  return kDevicePidBase + index_ * kDevicePidsPerTrace + (device_id & (kDevicePidsPerTrace - 1));
}

int64_t TimelineTraversal::NextSyntheticHostTid() { return kSyntheticTidBase + next_host_tid_++; }

int64_t TimelineTraversal::HostThreadId(int64_t tid, int kind) {
  return (kind == 0 && tid > 0 && tid < kSyntheticTidBase) ? tid : NextSyntheticHostTid();
}

std::string TimelineTraversal::HostProcessName() const {
  std::string cmd;
  if (auto it = m_.metadata.find("executable"); it != m_.metadata.end()) cmd = it->second;
  return absl::StrCat(Prefix(in_, count_), "host process ", m_.pid > 0 ? absl::StrCat(m_.pid) : "?",
                      cmd.empty() ? "" : absl::StrCat(" (", cmd, ")"));
}

std::string TimelineTraversal::DeviceProcessName(int32_t device_id) const {
  return absl::StrCat(Prefix(in_, count_), DeviceLabel(m_, device_id));
}

std::string TimelineTraversal::StreamTrackName(int32_t stream, int lane) const {
  std::string name = StreamLabel(m_, stream);
  if (lane > 0) absl::StrAppend(&name, " overflow ", lane);
  return name;
}

std::string TimelineTraversal::HostThreadName(int64_t tid, int kind) const {
  std::string name = absl::StrCat("thread ", tid);
  if (auto n = m_.thread_names.find(tid); n != m_.thread_names.end() && !n->second.empty()) {
    absl::StrAppend(&name, " (", n->second, ")");
  }
  if (kind == 1) absl::StrAppend(&name, " NVTX");
  if (kind >= 2) absl::StrAppend(&name, " NVTX start/end", kind > 2 ? absl::StrCat(" ", kind - 1) : "");
  return name;
}

std::vector<int32_t> TimelineTraversal::ApiCallOrder() const {
  const ApiCalls& api = m_.api;
  // Calls that can reach the window: ones starting before its end.
  size_t last = std::lower_bound(api.start_ns.begin(), api.start_ns.end(), w_.end_ns + 1) - api.start_ns.begin();
  std::vector<int32_t> order;
  for (size_t i = 0; i < last; ++i) {
    if (InWindow(api.start_ns[i], api.end_ns[i], w_)) order.push_back(static_cast<int32_t>(i));
  }
  // Parents before children: by start, then longest first.
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    if (api.start_ns[a] != api.start_ns[b]) return api.start_ns[a] < api.start_ns[b];
    return api.end_ns[a] > api.end_ns[b];
  });
  return order;
}

int64_t TimelineTraversal::NvtxOpenEnd() const { return std::max(w_.end_ns, WholeTraceWindow(m_).end_ns); }

std::vector<int32_t> TimelineTraversal::NvtxRangeOrder(int64_t open_end) const {
  auto end_of = [&](const NvtxRange& r) { return std::max(r.start_ns, r.end_ns.value_or(open_end)); };
  std::vector<int32_t> order;
  for (size_t i = 0; i < m_.nvtx_ranges.size(); ++i) {
    const NvtxRange& r = m_.nvtx_ranges[i];
    if (InWindow(r.start_ns, end_of(r), w_)) order.push_back(static_cast<int32_t>(i));
  }
  std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) {
    const NvtxRange& x = m_.nvtx_ranges[a];
    const NvtxRange& y = m_.nvtx_ranges[b];
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return end_of(x) > end_of(y);
  });
  return order;
}

int64_t TimelineBaseTime(std::span<const PerfettoTraceInput> traces) {
  int64_t base = INT64_MAX;
  for (const PerfettoTraceInput& t : traces) {
    base = std::min(base, t.window.start_ns);
    const TraceModel& m = *t.model;
    auto [first, last] = m.OpRangeFor(t.window.start_ns, t.window.end_ns + 1);
    if (first < last) base = std::min(base, m.ops.start_ns[first]);
    // API calls overlapping the window start may begin earlier.
    for (size_t i = 0; i < m.api.size() && m.api.start_ns[i] < t.window.start_ns; ++i) {
      if (m.api.end_ns[i] >= t.window.start_ns) base = std::min(base, m.api.start_ns[i]);
    }
    for (const NvtxRange& r : m.nvtx_ranges) {
      if (r.start_ns >= t.window.start_ns) break;  // sorted by start
      if (!r.end_ns || *r.end_ns >= t.window.start_ns) base = std::min(base, r.start_ns);
    }
  }
  return base == INT64_MAX ? 0 : base;
}

void AddTimelineNotes(PerfettoExportStats& stats) {
  if (stats.ops_on_overflow_tracks > 0) {
    stats.notes.push_back(absl::StrCat(stats.ops_on_overflow_tracks,
                                       " ops started before the previous op of their stream ended (clock jitter or "
                                       "concurrent work on one stream) and are shown on \"overflow\" tracks"));
  }
  if (stats.host_slices_clipped > 0) {
    stats.notes.push_back(
        absl::StrCat(stats.host_slices_clipped,
                     " API calls or NVTX ranges ended after the enclosing call/range on their thread and "
                     "were clipped to it (args.recorded_end_clipped_by_ns)"));
  }
}

nlohmann::json TimelineTraceInfo(const PerfettoTraceInput& t) {
  nlohmann::json info = {{"path", t.model->path},           {"label", t.label},
                         {"format", t.model->format},       {"pid", t.model->pid},
                         {"window", WindowLabel(t.window)}, {"window_start_ns", t.window.start_ns},
                         {"window_end_ns", t.window.end_ns}};
  if (t.analysis != nullptr) {
    info["analyses"] = t.analysis->analyses;
    info["analysis_notes"] = t.analysis->notes;
  }
  return info;
}

}  // namespace streamscope
