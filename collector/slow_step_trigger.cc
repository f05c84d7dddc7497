#include "collector/slow_step_trigger.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace streamscope::collector {

StatusOr<TriggerSpec> TriggerSpec::Parse(std::string_view spec) {
  auto bad = [&] {
    return InvalidArgumentError(StrCat("trigger '", spec, "' is not nvtx:NAME>Kx (for example nvtx:step>2x)"));
  };
  if (!spec.starts_with("nvtx:") || !spec.ends_with("x")) return bad();
  std::string_view body = spec.substr(5, spec.size() - 6);
  size_t gt = body.rfind('>');
  if (gt == std::string_view::npos || gt == 0) return bad();
  TriggerSpec t;
  t.nvtx_name = std::string(body.substr(0, gt));
  std::string factor(body.substr(gt + 1));
  char* end = nullptr;
  t.factor = std::strtod(factor.c_str(), &end);
  if (factor.empty() || end != factor.c_str() + factor.size() || !(t.factor > 1.0) || t.factor > 1e6) return bad();
  return t;
}

std::string TriggerSpec::ToString() const {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%g", factor);
  return StrCat("nvtx:", nvtx_name, ">", buf, "x");
}

void SlowStepTrigger::NvtxPush(uint32_t tid, std::string_view name, uint64_t t) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Open>& stack = pushed_[tid];
  bool inside = std::any_of(stack.begin(), stack.end(), [](const Open& o) { return o.index != 0; });
  if (name != spec_.nvtx_name || inside) {
    stack.push_back({});
    return;
  }
  stack.push_back({++instances_, t});
}

std::optional<SlowInstance> SlowStepTrigger::NvtxPop(uint32_t tid, uint64_t t) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = pushed_.find(tid);
  if (it == pushed_.end() || it->second.empty()) return std::nullopt;
  Open o = it->second.back();
  it->second.pop_back();
  if (o.index == 0) return std::nullopt;
  return Ended(o, t);
}

void SlowStepTrigger::NvtxStart(uint64_t id, std::string_view name, uint64_t t) {
  if (name != spec_.nvtx_name) return;
  std::lock_guard<std::mutex> lock(mu_);
  started_[id] = {++instances_, t};
}

std::optional<SlowInstance> SlowStepTrigger::NvtxEnd(uint64_t id, uint64_t t) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = started_.find(id);
  if (it == started_.end()) return std::nullopt;
  Open o = it->second;
  started_.erase(it);
  return Ended(o, t);
}

std::optional<SlowInstance> SlowStepTrigger::Ended(const Open& o, uint64_t t) {
  uint64_t d = t > o.start_ns ? t - o.start_ns : 0;
  std::optional<SlowInstance> fired;
  if (completed_ >= kWarmUp && !recent_.empty()) {
    std::vector<uint64_t> sorted(recent_.begin(), recent_.end());
    auto mid = sorted.begin() + static_cast<std::ptrdiff_t>((sorted.size() - 1) / 2);
    std::nth_element(sorted.begin(), mid, sorted.end());  // lower median
    if (static_cast<double>(d) > spec_.factor * static_cast<double>(*mid)) {
      fired = SlowInstance{o.index, o.start_ns, t, *mid};
    }
  }
  ++completed_;
  recent_.push_back(d);
  if (recent_.size() > kMedianOf) recent_.pop_front();
  return fired;
}

}  // namespace streamscope::collector
