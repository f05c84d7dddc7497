// Kernel pointer arguments -> memory accesses.
//
// A launch passes its arguments as `kernelParams` (one pointer to each
// argument's value) or as one packed buffer in `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE). With the function's parameter
// layout (offset and size of each parameter, from cuFuncGetParamInfo /
// cuKernelGetParamInfo), every pointer-sized argument whose value falls
// inside a live allocation becomes one access: address = the pointer,
// bytes = allocation end - pointer, access 'unknown' (a kernel may read or
// write), arg_index = its position. Larger 8-byte-aligned arguments
// (structs, std::array: how PyTorch and cuBLAS pass their pointers) are
// scanned word by word (first kMaxWordsPerArg words); each word inside a
// live allocation is a row with that argument's index. A launch reports an
// address at most once.
#ifndef STREAMSCOPE_COLLECTOR_KERNEL_ARGS_H_
#define STREAMSCOPE_COLLECTOR_KERNEL_ARGS_H_

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

#include "collector/allocation_map.h"
#include "collector/trace_records.h"

namespace streamscope::collector {

struct ParamSlot {
  uint32_t offset = 0;
  uint32_t size = 0;
};
using ParamLayout = std::vector<ParamSlot>;

inline constexpr size_t kMaxWordsPerArg = 64;

// Reads the `word`-th 8-byte word of argument `index` of a launch: from
// kernel_params[index], else from the packed `extra` buffer at its offset.
// False if the argument has no such aligned word or cannot be read.
bool ReadArgWord(const ParamLayout& layout, size_t index, size_t word, void* const* kernel_params, void* const* extra,
                 uint64_t* value);

// Calls emit(record) for each pointer in an argument inside a live
// allocation.
template <typename Emit>
void AttributeKernelArgs(const ParamLayout& layout, void* const* kernel_params, void* const* extra,
                         const AllocationMap& live, uint32_t correlation_id, Emit&& emit) {
  constexpr size_t kMaxSeen = 32;
  uint64_t seen[kMaxSeen];
  size_t nseen = 0;
  for (size_t i = 0; i < layout.size(); ++i) {
    const ParamSlot& slot = layout[i];
    if (slot.size < sizeof(uint64_t) || slot.offset % sizeof(uint64_t) != 0) continue;
    size_t words = slot.size / sizeof(uint64_t);
    if (words > kMaxWordsPerArg) words = kMaxWordsPerArg;
    for (size_t w = 0; w < words; ++w) {
      uint64_t p = 0;
      if (!ReadArgWord(layout, i, w, kernel_params, extra, &p)) break;
      if (p == 0) continue;
      bool repeated = false;
      for (size_t k = 0; k < nseen; ++k) repeated |= seen[k] == p;
      if (repeated) continue;
      std::optional<LiveAllocation> a = live.Find(p);
      if (!a.has_value()) continue;
      if (nseen < kMaxSeen) seen[nseen++] = p;
      MemoryAccessRecord r;
      r.correlation_id = correlation_id;
      r.address = p;
      r.bytes = a->end() - p;
      r.access = Access::kUnknown;
      r.allocation_id = a->id;
      r.arg_index = static_cast<uint32_t>(i);
      emit(std::move(r));
    }
  }
}

// Parameter layouts by function handle, computed once per function by
// `load` (false: layout unknown, cached as such). Lookups take a shared
// lock. Thread-safe.
class ParamLayoutCache {
 public:
  using Loader = std::function<bool(const void* function, ParamLayout* layout)>;
  explicit ParamLayoutCache(Loader load) : load_(std::move(load)) {}
  // nullptr when the layout is unknown. The pointer stays valid.
  const ParamLayout* Get(const void* function);

 private:
  struct Entry {
    bool known = false;
    ParamLayout layout;
  };
  Loader load_;
  std::shared_mutex mu_;
  std::unordered_map<const void*, std::unique_ptr<Entry>> entries_;
};

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_KERNEL_ARGS_H_
