// One walk over what a timeline export shows of one trace, shared by the
// Chrome trace-event JSON writer (perfetto_json_writer) and the Perfetto
// protobuf writer (perfetto_proto_writer), so both files hold the same
// processes, threads and slices: the synthetic pids and tids, the process
// and track names, which ops, API calls, NVTX ranges and marks fall in the
// window, in which order, on which lane and with which drawn end. Each
// writer passes what to write per item (a callable; the protobuf writer
// marks its callables always_inline, so the walk costs it nothing over its
// own loops: callgrind, 40k ops, +0.14% writer instructions). Not
// thread-safe; one per trace and writer, or per part of a writer that
// writes a trace's parts on several threads.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_TRAVERSAL_H_
#define STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_TRAVERSAL_H_

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "analyzer/export/perfetto_json_writer.h"  // PerfettoTraceInput, PerfettoExportStats
#include "analyzer/export/timeline_labels.h"
#include "analyzer/export/track_layout.h"
#include "nlohmann/json.hpp"

namespace streamscope {

class TimelineTraversal {
 public:
  TimelineTraversal(const PerfettoTraceInput& in, int trace_index, int trace_count);

  const TraceModel& model() const { return m_; }
  const Window& window() const { return w_; }

  // Process ids: the trace's own pid when it is the only trace (several
  // traces may share one: control and variant runs), else 1 + its index;
  // devices get pids far above real ones.
  int64_t HostPid() const;
  int64_t DevicePid(int32_t device_id) const;
  // Thread ids, numbered in the order tracks are first used: device tracks
  // from 1; synthetic host tracks above any Linux tid (pid_max <= 2^22).
  int64_t NextDeviceTid() { return next_device_tid_++; }
  int64_t NextSyntheticHostTid();
  // Numbers on where `device` left off with device tids and `host` with
  // synthetic host tids: a writer that walks the ops with one traversal and
  // the host side with another numbers the tracks that follow as one
  // traversal would.
  void ContinueTidsFrom(const TimelineTraversal& device, const TimelineTraversal& host) {
    next_device_tid_ = device.next_device_tid_;
    next_host_tid_ = host.next_host_tid_;
  }
  // Host track of OS thread `tid`: `kind` 0 = API calls (the OS tid when it
  // fits), 1 = NVTX push/pop and marks, 2+ = NVTX start/end lanes.
  int64_t HostThreadId(int64_t tid, int kind);

  std::string HostProcessName() const;
  std::string DeviceProcessName(int32_t device_id) const;
  std::string StreamTrackName(int32_t stream, int lane) const;  // lane 1+: "... overflow N"
  std::string HostThreadName(int64_t tid, int kind) const;

  // f(size_t op, int32_t stream, int lane) for each op in the window on a
  // known stream, in start order; lane 0 is the stream's track, 1+ its
  // overflow tracks (ops that overlapped an earlier op of the stream).
  template <typename F>
  void ForEachOp(F&& f);
  // f(size_t op, int32_t stream) for the same ops, without lanes.
  template <typename F>
  void ForEachOpIndex(F&& f) const;
  // f(int32_t call, int64_t start, int64_t end) for each API call in the
  // window, parents before children; `end` is clipped to the enclosing
  // call's. Returns how many were clipped.
  template <typename F>
  int64_t ForEachApiCall(F&& f) const;
  // f(int32_t range, int64_t start, int64_t end, int kind) for each NVTX
  // range in the window, parents first; kind 1 = push/pop (end clipped to
  // the enclosing range's), 2+ = start/end lane. An open range ends at the
  // later of the window's and the trace's end. Returns how many were clipped.
  template <typename F>
  int64_t ForEachNvtxRange(F&& f) const;
  // f(const NvtxMark&) for each NVTX mark in the window.
  template <typename F>
  void ForEachNvtxMark(F&& f) const;
  // f(const AnalysisTrack&) for each analysis track with slices or markers.
  template <typename F>
  void ForEachAnalysisTrack(F&& f) const;

 private:
  std::vector<int32_t> ApiCallOrder() const;
  std::vector<int32_t> NvtxRangeOrder(int64_t open_end) const;
  int64_t NvtxOpenEnd() const;

  const PerfettoTraceInput& in_;
  const TraceModel& m_;
  Window w_;
  int index_, count_;
  std::vector<LaneAssigner> lanes_;  // per stream
  int64_t next_device_tid_ = 1;
  int64_t next_host_tid_ = 0;
};

// The earliest time any exported item starts (ops, API calls, NVTX ranges
// that begin before the window), so every timestamp is >= 0.
int64_t TimelineBaseTime(std::span<const PerfettoTraceInput> traces);
// The notes both writers add for overflow tracks and clipped host slices.
void AddTimelineNotes(PerfettoExportStats& stats);
// One trace's entry in the file's export info (path, label, window, analyses).
nlohmann::json TimelineTraceInfo(const PerfettoTraceInput& trace);

template <typename F>
void TimelineTraversal::ForEachOpIndex(F&& f) const {
  const GpuOps& ops = m_.ops;
  auto [first, last] = m_.OpRangeFor(w_.start_ns, w_.end_ns + 1);
  for (size_t i = first; i < last; ++i) {
    if (!InWindow(ops.start_ns[i], ops.end_ns[i], w_)) continue;
    int32_t stream = ops.stream[i];
    if (stream < 0 || static_cast<size_t>(stream) >= m_.streams.size()) continue;
    f(i, stream);
  }
}

template <typename F>
void TimelineTraversal::ForEachOp(F&& f) {
  ForEachOpIndex([&](size_t i, int32_t stream) __attribute__((always_inline)) {
    f(i, stream, lanes_[stream].Place(m_.ops.start_ns[i], m_.ops.end_ns[i]));
  });
}

template <typename F>
int64_t TimelineTraversal::ForEachApiCall(F&& f) const {
  const ApiCalls& api = m_.api;
  absl::flat_hash_map<int64_t, NestingClipper> clippers;
  for (int32_t i : ApiCallOrder()) {
    int64_t s = api.start_ns[i];
    f(i, s, clippers[api.tid[i]].Place(s, api.end_ns[i]));
  }
  int64_t clipped = 0;
  for (auto& [tid, c] : clippers) clipped += c.clipped();
  return clipped;
}

template <typename F>
int64_t TimelineTraversal::ForEachNvtxRange(F&& f) const {
  const int64_t open_end = NvtxOpenEnd();
  absl::flat_hash_map<int64_t, NestingClipper> clippers;
  absl::flat_hash_map<int64_t, LaneAssigner> lanes;
  for (int32_t i : NvtxRangeOrder(open_end)) {
    const NvtxRange& r = m_.nvtx_ranges[i];
    int64_t s = r.start_ns, e = std::max(r.start_ns, r.end_ns.value_or(open_end));
    if (r.push_pop) {
      f(i, s, clippers[r.tid].Place(s, e), 1);
    } else {
      f(i, s, e, 2 + lanes[r.tid].Place(s, e));
    }
  }
  int64_t clipped = 0;
  for (auto& [tid, c] : clippers) clipped += c.clipped();
  return clipped;
}

template <typename F>
void TimelineTraversal::ForEachNvtxMark(F&& f) const {
  for (const NvtxMark& mark : m_.nvtx_marks) {
    if (InWindow(mark.ts_ns, mark.ts_ns, w_)) f(mark);
  }
}

template <typename F>
void TimelineTraversal::ForEachAnalysisTrack(F&& f) const {
  if (in_.analysis == nullptr) return;
  for (const AnalysisTrack& t : in_.analysis->tracks) {
    if (t.HasSlices() || !t.markers.empty()) f(t);
  }
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_TRAVERSAL_H_
