#include "analyzer/export/timeline_labels.h"

#include "absl/strings/str_cat.h"
#include "analyzer/base/demangle.h"

namespace streamscope {

std::string DeviceLabel(const TraceModel& model, int32_t device_id) {
  const Device* d = model.FindDevice(device_id);
  if (d == nullptr || d->name.empty()) return absl::StrCat("GPU ", device_id);
  return absl::StrCat("GPU ", device_id, ": ", d->name);
}

std::string_view StreamKindLabel(StreamKind kind) {
  switch (kind) {
    case StreamKind::kLegacyDefault: return "legacy default";
    case StreamKind::kPerThreadDefault: return "per-thread default";
    case StreamKind::kBlocking: return "blocking";
    case StreamKind::kNonBlocking: return "non-blocking";
    case StreamKind::kUnknown: break;
  }
  return "unknown kind";
}

std::string StreamLabel(const TraceModel& model, int32_t stream_index) {
  if (stream_index < 0 || static_cast<size_t>(stream_index) >= model.streams.size()) {
    return "stream ?";
  }
  const Stream& s = model.streams[stream_index];
  if (s.id < 0) return "no stream";  // importers give stream-less ops (migrations) stream id -1
  return absl::StrCat("stream ", s.id, " (", std::string(StreamKindLabel(s.kind)), ")");
}

std::string_view KernelNames::Get(StringId id) {
  if (id < 0) return "kernel";
  if (static_cast<size_t>(id) >= cache_.size()) {
    cache_.resize(model_.strings.size());
    done_.resize(model_.strings.size());
    if (static_cast<size_t>(id) >= cache_.size()) return "kernel";
  }
  if (!done_[id]) {
    cache_[id] = Demangle(model_.strings.Get(id));
    done_[id] = 1;
  }
  return cache_[id];
}

std::string OpDisplayName(const TraceModel& model, size_t op, KernelNames& names) {
  OpCategory c = model.ops.category[op];
  if (c == OpCategory::kKernel) return std::string(names.Get(model.ops.name[op]));
  if (c == OpCategory::kMemset) return "memset";
  return absl::StrCat("memcpy ", std::string(OpCategoryName(c)));
}

int64_t CountOpsInWindow(const TraceModel& model, const Window& window) {
  auto [first, last] = model.OpRangeFor(window.start_ns, window.end_ns + 1);
  int64_t n = 0;
  for (size_t i = first; i < last; ++i) {
    n += InWindow(model.ops.start_ns[i], model.ops.end_ns[i], window) ? 1 : 0;
  }
  return n;
}

Window CapWindowToOps(const TraceModel& model, const Window& window, int64_t max_ops) {
  if (max_ops < 0) return window;
  auto [first, last] = model.OpRangeFor(window.start_ns, window.end_ns + 1);
  int64_t n = 0;
  for (size_t i = first; i < last; ++i) {
    if (!InWindow(model.ops.start_ns[i], model.ops.end_ns[i], window)) continue;
    if (n == max_ops) {
      Window cut = window;
      int64_t s = model.ops.start_ns[i];
      if (s > cut.start_ns && s < cut.end_ns) {
        cut.end_ns = s;
        cut.origin.cut_to_ops = max_ops;
      }
      return cut;
    }
    ++n;
  }
  return window;
}

}  // namespace streamscope
