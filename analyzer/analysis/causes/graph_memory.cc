#include "analyzer/analysis/causes/graph_memory.h"

#include <algorithm>

#include "analyzer/analysis/windows/trace_facts.h"

namespace streamscope {

namespace {
constexpr int64_t kBytesPerItem = 64;
constexpr int64_t kFixedBytes = int64_t{16} << 20;
}  // namespace

GraphMemoryNeed EstimateGraphMemory(const TraceModel& model, const Window& window) {
  const size_t o0 = FirstOpStartingAt(model, window.start_ns), o1 = FirstOpStartingAt(model, window.end_ns);
  const auto [a0, a1] = ApiStartingIn(model, window.start_ns, window.end_ns);
  GraphMemoryNeed need;
  need.items = static_cast<int64_t>(std::max(o0, o1) - o0 + (a1 - a0));
  need.bytes = need.items * kBytesPerItem + kFixedBytes;
  return need;
}

int64_t EarliestStartThatFits(const TraceModel& model, const Window& window, int64_t room_bytes) {
  // The need only falls as the start moves later: search the start.
  auto fits = [&](int64_t start) {
    Window rest = window;
    rest.start_ns = start;
    return EstimateGraphMemory(model, rest).bytes <= room_bytes;
  };
  if (!fits(window.end_ns)) return window.end_ns;
  int64_t lo = window.start_ns, hi = window.end_ns;  // fits(hi); the answer is in (lo, hi]
  if (fits(lo)) return lo;
  while (hi - lo > 1) {
    const int64_t mid = lo + (hi - lo) / 2;
    (fits(mid) ? hi : lo) = mid;
  }
  return hi;
}

}  // namespace streamscope
