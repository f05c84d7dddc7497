// Live allocations as an interval map, to attribute pointers (kernel
// arguments, copy and memset ranges) to the allocation they fall into.
//
// Application threads call Find on every tracked launch and copy, so
// lookups take a shared lock and do no allocation; Insert/Remove (at
// allocation and free calls) take it exclusively, ahead of new lookups. Ranges are [address,
// address + bytes); a new allocation replaces any stale entry it overlaps
// (the driver reused the address after a free the collector missed).
// Thread-safe.
#ifndef STREAMSCOPE_COLLECTOR_ALLOCATION_MAP_H_
#define STREAMSCOPE_COLLECTOR_ALLOCATION_MAP_H_

#include <cstdint>
#include <map>
#include <optional>

#include "collector/writer_preferring_rw_lock.h"

namespace streamscope::collector {

struct LiveAllocation {
  uint64_t id = 0;
  uint64_t address = 0;
  uint64_t bytes = 0;
  uint64_t end() const { return address + bytes; }
};

class AllocationMap {
 public:
  // Adds [address, address + bytes). Zero-byte allocations are ignored.
  void Insert(uint64_t id, uint64_t address, uint64_t bytes);
  // Removes the allocation that starts at `address`; nullopt if none does.
  std::optional<LiveAllocation> Remove(uint64_t address);
  // The live allocation containing `pointer`, if any.
  std::optional<LiveAllocation> Find(uint64_t pointer) const;
  size_t size() const;

 private:
  mutable WriterPreferringRwLock mu_;  // writers are not starved by lookups
  std::map<uint64_t, LiveAllocation> by_start_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_ALLOCATION_MAP_H_
