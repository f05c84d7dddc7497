#include "analyzer/pipeline/memory_budget.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>

#include "absl/strings/numbers.h"
#include "analyzer/base/memory_info.h"
#include "analyzer/base/spill_memory.h"

namespace streamscope {
namespace {

constexpr int64_t kUnset = -1;
std::atomic<int64_t> limit_bytes{kUnset};  // kUnset: not set by SetMemoryLimit

// -1 for "what is available", 0 for none, else bytes.
int64_t Limit() {
  const int64_t set = limit_bytes.load(std::memory_order_relaxed);
  if (set != kUnset) return set;
  int64_t mib = 0;
  const char* env = std::getenv("STREAMSCOPE_MEMORY_LIMIT_MIB");
  if (env != nullptr && absl::SimpleAtoi(env, &mib) && mib >= 0) return MemoryLimitFromMib(mib);
  return kUnset;
}

}  // namespace

int64_t MemoryLimitFromMib(int64_t mib) { return mib > (int64_t{1} << 40) ? 0 : std::max<int64_t>(0, mib) << 20; }

void SetMemoryLimit(std::optional<int64_t> bytes) {
  limit_bytes.store(bytes ? std::max<int64_t>(0, *bytes) : kUnset, std::memory_order_relaxed);
  SetSpillHeapBudget(bytes);
}

void ConfigureMemoryFromEnvironment() {
  ConfigureSpill(SpillSettingsFromEnvironment());
  const int64_t limit = Limit();
  SetSpillHeapBudget(limit == kUnset ? std::nullopt : std::optional<int64_t>(limit));
}

std::optional<GraphOverMemory> GraphDoesNotFit(const GraphMemoryNeed& need) {
  const int64_t limit = Limit();
  if (limit == 0) return std::nullopt;
  const int64_t in_use = HeapInUseBytes();
  int64_t room = 0;
  if (limit > 0) {
    room = std::max<int64_t>(0, limit - in_use);
  } else {
    std::optional<int64_t> available = AvailableMemoryBytes();
    if (!available) return std::nullopt;  // nothing to go by: build, as without a budget
    // Memory the process freed and kept serves the graph first.
    room = *available + std::max<int64_t>(0, AnonymousResidentBytes() - in_use);
  }
  room += SpillRoomBytes() / 10 * 9;
  if (need.bytes <= room) return std::nullopt;
  return GraphOverMemory{need.items, need.bytes, room, limit > 0};
}

}  // namespace streamscope
