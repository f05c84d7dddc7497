// Facts derived from a whole finalized trace that several analyses need for
// every window (busy-time unions, the previous op of each stream, per-thread
// host activity, ...). With an NVTX range of thousands of instances, building
// them once per trace instead of once per window is what keeps each window's
// cost proportional to the ops inside it.
//
// Each fact is a type T constructible from `const TraceModel&`, built on first
// use and then shared read-only. Thread-safe: analyses on several threads may
// ask for the same fact; one builds it, the others wait for it; different
// facts build concurrently.
#ifndef STREAMSCOPE_ANALYZER_MODEL_DERIVED_CACHE_H_
#define STREAMSCOPE_ANALYZER_MODEL_DERIVED_CACHE_H_

#include <map>
#include <memory>
#include <mutex>
#include <typeindex>

namespace streamscope {

struct TraceModel;

class DerivedCache {
 public:
  template <typename T>
  const T& Get(const TraceModel& model) {
    Slot& slot = SlotFor(std::type_index(typeid(T)));
    std::call_once(slot.once, [&] { slot.value = std::make_shared<const T>(model); });
    return *static_cast<const T*>(slot.value.get());
  }
  // Drops fact T, if built: the next Get builds it again. For a fact that
  // nothing reads for the rest of a run (its memory back for later
  // analyses). Not while another thread may Get T or hold a reference to
  // it.
  template <typename T>
  void Forget() {
    std::lock_guard<std::mutex> lock(mu_);
    slots_.erase(std::type_index(typeid(T)));
  }

 private:
  struct Slot {
    std::once_flag once;
    std::shared_ptr<const void> value;
  };
  Slot& SlotFor(std::type_index type) {
    std::lock_guard<std::mutex> lock(mu_);
    std::unique_ptr<Slot>& slot = slots_[type];
    if (!slot) slot = std::make_unique<Slot>();
    return *slot;  // stable: only Forget erases a slot
  }
  std::mutex mu_;
  std::map<std::type_index, std::unique_ptr<Slot>> slots_;
};

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_MODEL_DERIVED_CACHE_H_
