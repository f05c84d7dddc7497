#include "collector/kernel_args.h"

#include <mutex>

namespace streamscope::collector {
namespace {
// cuda.h's CU_LAUNCH_PARAM_* markers (kept here: this file is CUDA-free).
const void* const kParamEnd = reinterpret_cast<const void*>(0x00);
const void* const kParamBufferPointer = reinterpret_cast<const void*>(0x01);
const void* const kParamBufferSize = reinterpret_cast<const void*>(0x02);
constexpr int kMaxExtraItems = 64;  // a malformed list cannot make us scan forever
}  // namespace

bool ReadArgWord(const ParamLayout& layout, size_t index, size_t word, void* const* kernel_params, void* const* extra,
                 uint64_t* value) {
  if (index >= layout.size()) return false;
  const ParamSlot& slot = layout[index];
  size_t at = word * sizeof(uint64_t);
  if (slot.offset % sizeof(uint64_t) != 0 || at + sizeof(uint64_t) > slot.size) return false;
  if (kernel_params != nullptr) {
    const char* arg = static_cast<const char*>(kernel_params[index]);
    if (arg == nullptr) return false;
    std::memcpy(value, arg + at, sizeof(uint64_t));
    return true;
  }
  if (extra == nullptr) return false;
  const char* buffer = nullptr;
  size_t buffer_size = 0;
  for (int i = 0; i < kMaxExtraItems && extra[i] != kParamEnd; i += 2) {
    if (extra[i] == kParamBufferPointer) {
      buffer = static_cast<const char*>(extra[i + 1]);
    } else if (extra[i] == kParamBufferSize && extra[i + 1] != nullptr) {
      buffer_size = *static_cast<const size_t*>(extra[i + 1]);
    }
  }
  size_t start = static_cast<size_t>(slot.offset) + at;
  if (buffer == nullptr || start + sizeof(uint64_t) > buffer_size) return false;
  std::memcpy(value, buffer + start, sizeof(uint64_t));
  return true;
}

const ParamLayout* ParamLayoutCache::Get(const void* function) {
  {
    std::shared_lock lock(mu_);
    auto it = entries_.find(function);
    if (it != entries_.end()) return it->second->known ? &it->second->layout : nullptr;
  }
  // First launch of this function: compute outside the lock.
  auto entry = std::make_unique<Entry>();
  entry->known = load_ && load_(function, &entry->layout);
  std::unique_lock lock(mu_);
  auto [it, inserted] = entries_.emplace(function, std::move(entry));
  return it->second->known ? &it->second->layout : nullptr;
}

}  // namespace streamscope::collector
