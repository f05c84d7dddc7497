#include "collector/allocation_map.h"

#include <mutex>
#include <shared_mutex>

namespace streamscope::collector {

void AllocationMap::Insert(uint64_t id, uint64_t address, uint64_t bytes) {
  if (bytes == 0) return;
  std::unique_lock lock(mu_);
  // Drop stale entries overlapping the new range.
  auto it = by_start_.lower_bound(address);
  if (it != by_start_.begin()) {
    auto prev = std::prev(it);
    if (prev->second.end() > address) it = prev;
  }
  while (it != by_start_.end() && it->first < address + bytes) it = by_start_.erase(it);
  by_start_.emplace(address, LiveAllocation{id, address, bytes});
}

std::optional<LiveAllocation> AllocationMap::Remove(uint64_t address) {
  std::unique_lock lock(mu_);
  auto it = by_start_.find(address);
  if (it == by_start_.end()) return std::nullopt;
  LiveAllocation a = it->second;
  by_start_.erase(it);
  return a;
}

std::optional<LiveAllocation> AllocationMap::Find(uint64_t pointer) const {
  std::shared_lock lock(mu_);
  auto it = by_start_.upper_bound(pointer);
  if (it == by_start_.begin()) return std::nullopt;
  --it;
  if (pointer < it->second.end()) return it->second;
  return std::nullopt;
}

size_t AllocationMap::size() const {
  std::shared_lock lock(mu_);
  return by_start_.size();
}

}  // namespace streamscope::collector
