// Names and small formatting rules the exporters share, so that the Perfetto
// JSON, the HTML report and their tests agree on how a device, a stream and
// an op are labelled and on which ops a window contains.
//
// KernelNames caches demangled names per StringId; not thread-safe. The free
// functions are pure.
#ifndef STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_LABELS_H_
#define STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_LABELS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/analysis/windows/window.h"
#include "analyzer/base/units.h"  // FormatDuration, FormatBytes
#include "analyzer/model/trace_model.h"

namespace streamscope {

// "GPU 0: NVIDIA H200" (or "GPU 3" when the trace does not describe it).
std::string DeviceLabel(const TraceModel& model, int32_t device_id);
// "stream 13 (non-blocking)", "stream 7 (legacy default)".
std::string StreamLabel(const TraceModel& model, int32_t stream_index);
// "non-blocking", "legacy default", "per-thread default", "blocking", "unknown kind".
std::string_view StreamKindLabel(StreamKind kind);

// Demangled kernel names (the mangled name when demangling fails), cached.
class KernelNames {
 public:
  explicit KernelNames(const TraceModel& model) : model_(model) {}
  std::string_view Get(StringId id);

 private:
  const TraceModel& model_;
  std::vector<std::string> cache_;
  std::vector<uint8_t> done_;
};

// Display name of op i: the kernel's (demangled) name, "memcpy H2D",
// "memset".
std::string OpDisplayName(const TraceModel& model, size_t op, KernelNames& names);

// Whether [start, end) belongs to the window: it intersects it, or it is a
// zero-length item inside [window.start, window.end].
inline bool InWindow(int64_t start, int64_t end, const Window& w) {
  if (end > start) return end > w.start_ns && start < w.end_ns;
  return start >= w.start_ns && start <= w.end_ns;
}

// Number of ops in the window (InWindow).
int64_t CountOpsInWindow(const TraceModel& model, const Window& window);

// The window cut so that it holds at most max_ops ops (max_ops < 0: no cap):
// its end moves to the start of the first op past the cap. Ops are taken in
// start order, so the result is the first max_ops ops of the window (a few
// more when several start at the same instant as the cut).
Window CapWindowToOps(const TraceModel& model, const Window& window, int64_t max_ops);

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_EXPORT_TIMELINE_LABELS_H_
