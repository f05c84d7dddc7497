// Capture control: which stretches of time reach the trace.
//
// `run` records the whole process by default. A capture range narrows it:
// between cudaProfilerStart and cudaProfilerStop, or during instances of an
// NVTX range (every instance of NAME, or from the start of the FIRST-th to
// the end of the LAST-th). Start and stop from outside (`streamscope capture
// start|stop PID`, or a session started paused) move the same switch: the
// last edge wins. The gate keeps the windows [on, off) it opened; the writer
// drops every timestamped record outside them, and the CUPTI layer turns
// the per-op activity kinds off while the gate is off.
//
// Pure (no CUPTI): edges come in as calls with their time. Thread-safe:
// edges arrive on application threads, Keeps/Windows are read by the writer.
#ifndef STREAMSCOPE_COLLECTOR_CAPTURE_GATE_H_
#define STREAMSCOPE_COLLECTOR_CAPTURE_GATE_H_

#include <atomic>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "collector/status.h"

namespace streamscope::collector {

struct CaptureRange {
  enum class Kind { kWhole, kProfilerApi, kNvtx };
  Kind kind = Kind::kWhole;
  std::string nvtx_name;  // kNvtx
  // kNvtx with @FIRST-LAST: 1-based instance numbers (0: every instance).
  uint64_t first = 0, last = 0;
  bool start_paused = false;

  // 'whole', 'cudaProfilerApi', 'nvtx:NAME', 'nvtx:NAME@N' or
  // 'nvtx:NAME@FIRST-LAST' (the form ParseCaptureRange reads).
  std::string ToString() const;
};

// Reads a --capture-range value: '' or 'whole', 'cudaProfilerApi',
// 'nvtx:NAME', 'nvtx:NAME@N', 'nvtx:NAME@FIRST-LAST' (1 <= FIRST <= LAST).
StatusOr<CaptureRange> ParseCaptureRange(std::string_view spec);

struct CaptureWindow {
  uint64_t on_ns = 0;
  uint64_t off_ns = std::numeric_limits<uint64_t>::max();  // still open
};

class CaptureGate {
 public:
  // What an edge did to the switch.
  enum class Edge { kNone, kOn, kOff };

  // `start_ns`: when recording began (the first window's start when the
  // gate starts on).
  CaptureGate(CaptureRange range, uint64_t start_ns);
  CaptureGate(const CaptureGate&) = delete;
  CaptureGate& operator=(const CaptureGate&) = delete;

  const CaptureRange& range() const { return range_; }
  // Whether the application's range calls matter (callbacks to enable).
  bool watches_profiler_api() const { return range_.kind == CaptureRange::Kind::kProfilerApi; }
  bool watches_nvtx() const { return range_.kind == CaptureRange::Kind::kNvtx; }

  Edge ProfilerStart(uint64_t t);
  Edge ProfilerStop(uint64_t t);
  // nvtxRangePush*/Pop on thread `tid` (a pop without a push seen is ignored).
  Edge NvtxPush(uint32_t tid, std::string_view name, uint64_t t);
  Edge NvtxPop(uint32_t tid, uint64_t t);
  // nvtxRangeStart*/End with the range id.
  Edge NvtxStart(uint64_t id, std::string_view name, uint64_t t);
  Edge NvtxEnd(uint64_t id, uint64_t t);
  // `streamscope capture start|stop`.
  Edge ExternalStart(uint64_t t);
  Edge ExternalStop(uint64_t t);

  bool on() const { return on_.load(std::memory_order_acquire); }
  // Whether a record at `t` lies in a window.
  bool Keeps(uint64_t t) const;
  // The same against a copy of the windows (the writer takes one per batch).
  static bool InWindows(const std::vector<CaptureWindow>& windows, uint64_t t);
  // Whether a window opens in [lo, hi].
  static bool WindowOpensIn(const std::vector<CaptureWindow>& windows, uint64_t lo, uint64_t hi);
  // Whether [lo, hi] shares time with a window.
  static bool Overlaps(const std::vector<CaptureWindow>& windows, uint64_t lo, uint64_t hi);
  // Whether the gate ever switched (if not, on() answers Keeps for any time).
  bool ever_switched() const { return ever_switched_.load(std::memory_order_acquire); }
  std::vector<CaptureWindow> Windows() const;
  // NVTX instances of the range seen so far.
  uint64_t instances() const;
  // Windows as JSON: [[on,off],...] (off null while open), at most `max`
  // of them, then the count of the rest as {"more":N}.
  std::string WindowsJson(size_t max = 1000) const;

 private:
  Edge Switch(bool on, uint64_t t);  // mu_ held
  Edge InstanceBegins(uint64_t t);   // mu_ held; returns the edge
  Edge InstanceEnds(uint64_t index, uint64_t t);

  const CaptureRange range_;
  mutable std::mutex mu_;
  std::atomic<bool> on_{false};
  std::atomic<bool> ever_switched_{false};  // Keeps' fast path for a whole capture
  std::vector<CaptureWindow> windows_;
  uint64_t instances_ = 0;  // instances of the NVTX range begun
  uint64_t active_ = 0;     // instances open now (every-instance mode)
  // Per thread: for each open push/pop range, its instance index (0: not ours).
  std::unordered_map<uint32_t, std::vector<uint64_t>> pushed_;
  std::unordered_map<uint64_t, uint64_t> started_;  // start/end range id -> instance index
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_CAPTURE_GATE_H_
