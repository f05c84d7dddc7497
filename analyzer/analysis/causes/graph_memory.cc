#include "analyzer/analysis/causes/graph_memory.h"

#include <algorithm>

#include "analyzer/analysis/windows/trace_facts.h"

namespace streamscope {

GraphMemoryNeed EstimateGraphMemory(const TraceModel& model, const Window& window) {
  constexpr int64_t kBytesPerItem = 64;
  constexpr int64_t kFixedBytes = int64_t{16} << 20;
  const size_t o0 = FirstOpStartingAt(model, window.start_ns), o1 = FirstOpStartingAt(model, window.end_ns);
  const auto [a0, a1] = ApiStartingIn(model, window.start_ns, window.end_ns);
  GraphMemoryNeed need;
  need.items = static_cast<int64_t>(std::max(o0, o1) - o0 + (a1 - a0));
  need.bytes = need.items * kBytesPerItem + kFixedBytes;
  return need;
}

}  // namespace streamscope
