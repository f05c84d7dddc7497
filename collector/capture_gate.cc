#include "collector/capture_gate.h"

#include <algorithm>

namespace streamscope::collector {

std::string CaptureRange::ToString() const {
  switch (kind) {
    case Kind::kWhole: return "whole";
    case Kind::kProfilerApi: return "cudaProfilerApi";
    case Kind::kNvtx:
      if (first == 0) return StrCat("nvtx:", nvtx_name);
      if (first == last) return StrCat("nvtx:", nvtx_name, "@", first);
      return StrCat("nvtx:", nvtx_name, "@", first, "-", last);
  }
  return "whole";
}

StatusOr<CaptureRange> ParseCaptureRange(std::string_view spec) {
  CaptureRange r;
  if (spec.empty() || spec == "whole") return r;
  if (spec == "cudaProfilerApi") {
    r.kind = CaptureRange::Kind::kProfilerApi;
    return r;
  }
  auto bad = [&](std::string_view why) {
    return InvalidArgumentError(
        StrCat("capture range '", spec, "': ", why, " (want cudaProfilerApi, nvtx:NAME or nvtx:NAME@FIRST-LAST)"));
  };
  if (!spec.starts_with("nvtx:")) return bad("unknown kind");
  std::string_view rest = spec.substr(5);
  size_t at = rest.rfind('@');
  std::string_view name = at == std::string_view::npos ? rest : rest.substr(0, at);
  if (name.empty()) return bad("no range name");
  r.kind = CaptureRange::Kind::kNvtx;
  r.nvtx_name = std::string(name);
  if (at == std::string_view::npos) return r;
  std::string_view numbers = rest.substr(at + 1);
  size_t dash = numbers.find('-');
  std::string_view first = dash == std::string_view::npos ? numbers : numbers.substr(0, dash);
  std::string_view last = dash == std::string_view::npos ? numbers : numbers.substr(dash + 1);
  if (!ParseInt(first, &r.first) || !ParseInt(last, &r.last) || r.first == 0 || r.last < r.first) {
    return bad("instances must be N or FIRST-LAST with 1 <= FIRST <= LAST");
  }
  return r;
}

CaptureGate::CaptureGate(CaptureRange range, uint64_t start_ns) : range_(std::move(range)) {
  if (range_.kind == CaptureRange::Kind::kWhole && !range_.start_paused) {
    on_ = true;
    windows_.push_back({start_ns, std::numeric_limits<uint64_t>::max()});
  }
}

CaptureGate::Edge CaptureGate::Switch(bool on, uint64_t t) {
  if (on == on_.load(std::memory_order_relaxed)) return Edge::kNone;
  if (on) {
    windows_.push_back({t, std::numeric_limits<uint64_t>::max()});
  } else if (!windows_.empty()) {
    windows_.back().off_ns = std::max(t, windows_.back().on_ns);
  }
  ever_switched_.store(true, std::memory_order_release);
  on_.store(on, std::memory_order_release);
  return on ? Edge::kOn : Edge::kOff;
}

CaptureGate::Edge CaptureGate::ProfilerStart(uint64_t t) {
  if (!watches_profiler_api()) return Edge::kNone;
  std::lock_guard<std::mutex> lock(mu_);
  return Switch(true, t);
}

CaptureGate::Edge CaptureGate::ProfilerStop(uint64_t t) {
  if (!watches_profiler_api()) return Edge::kNone;
  std::lock_guard<std::mutex> lock(mu_);
  return Switch(false, t);
}

CaptureGate::Edge CaptureGate::InstanceBegins(uint64_t t) {
  ++instances_;
  if (range_.first == 0) return ++active_ == 1 ? Switch(true, t) : Edge::kNone;
  return instances_ == range_.first ? Switch(true, t) : Edge::kNone;
}

CaptureGate::Edge CaptureGate::InstanceEnds(uint64_t index, uint64_t t) {
  if (range_.first == 0) {
    if (active_ == 0) return Edge::kNone;
    return --active_ == 0 ? Switch(false, t) : Edge::kNone;
  }
  return index == range_.last ? Switch(false, t) : Edge::kNone;
}

CaptureGate::Edge CaptureGate::NvtxPush(uint32_t tid, std::string_view name, uint64_t t) {
  if (!watches_nvtx()) return Edge::kNone;
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<uint64_t>& stack = pushed_[tid];
  // An instance nested in another instance on the same thread is part of it.
  bool inside = std::any_of(stack.begin(), stack.end(), [](uint64_t i) { return i != 0; });
  if (name != range_.nvtx_name || inside) {
    stack.push_back(0);
    return Edge::kNone;
  }
  Edge e = InstanceBegins(t);
  stack.push_back(instances_);
  return e;
}

CaptureGate::Edge CaptureGate::NvtxPop(uint32_t tid, uint64_t t) {
  if (!watches_nvtx()) return Edge::kNone;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pushed_.find(tid);
  if (it == pushed_.end() || it->second.empty()) return Edge::kNone;  // pushed before recording
  uint64_t index = it->second.back();
  it->second.pop_back();
  return index == 0 ? Edge::kNone : InstanceEnds(index, t);
}

CaptureGate::Edge CaptureGate::NvtxStart(uint64_t id, std::string_view name, uint64_t t) {
  if (!watches_nvtx() || name != range_.nvtx_name) return Edge::kNone;
  std::lock_guard<std::mutex> lock(mu_);
  Edge e = InstanceBegins(t);
  started_[id] = instances_;
  return e;
}

CaptureGate::Edge CaptureGate::NvtxEnd(uint64_t id, uint64_t t) {
  if (!watches_nvtx()) return Edge::kNone;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = started_.find(id);
  if (it == started_.end()) return Edge::kNone;
  uint64_t index = it->second;
  started_.erase(it);
  return InstanceEnds(index, t);
}

CaptureGate::Edge CaptureGate::ExternalStart(uint64_t t) {
  std::lock_guard<std::mutex> lock(mu_);
  return Switch(true, t);
}

CaptureGate::Edge CaptureGate::ExternalStop(uint64_t t) {
  std::lock_guard<std::mutex> lock(mu_);
  return Switch(false, t);
}

bool CaptureGate::Keeps(uint64_t t) const {
  if (!ever_switched_.load(std::memory_order_acquire)) return on_.load(std::memory_order_acquire);
  std::lock_guard<std::mutex> lock(mu_);
  return InWindows(windows_, t);
}

bool CaptureGate::InWindows(const std::vector<CaptureWindow>& windows, uint64_t t) {
  // Disjoint and in time order: the last window starting at or before t.
  auto it = std::upper_bound(windows.begin(), windows.end(), t,
                             [](uint64_t v, const CaptureWindow& w) { return v < w.on_ns; });
  return it != windows.begin() && t < std::prev(it)->off_ns;
}

bool CaptureGate::WindowOpensIn(const std::vector<CaptureWindow>& windows, uint64_t lo, uint64_t hi) {
  auto it = std::lower_bound(windows.begin(), windows.end(), lo,
                             [](const CaptureWindow& w, uint64_t v) { return w.on_ns < v; });
  return it != windows.end() && it->on_ns <= hi;
}

bool CaptureGate::Overlaps(const std::vector<CaptureWindow>& windows, uint64_t lo, uint64_t hi) {
  return InWindows(windows, lo) || WindowOpensIn(windows, lo, hi);
}

std::vector<CaptureWindow> CaptureGate::Windows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return windows_;
}

uint64_t CaptureGate::instances() const {
  std::lock_guard<std::mutex> lock(mu_);
  return instances_;
}

std::string CaptureGate::WindowsJson(size_t max) const {
  std::vector<CaptureWindow> w = Windows();
  std::string out = "[";
  for (size_t i = 0; i < w.size() && i < max; ++i) {
    if (i > 0) out += ",";
    out += StrCat("[", w[i].on_ns, ",");
    out += w[i].off_ns == std::numeric_limits<uint64_t>::max() ? std::string("null") : StrCat(w[i].off_ns);
    out += "]";
  }
  if (w.size() > max) out += StrCat(",{\"more\":", w.size() - max, "}");
  return out + "]";
}

}  // namespace streamscope::collector
