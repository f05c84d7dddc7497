// CPU references of every workload kernel and the inputs they read. The
// kernels iterate their step one by one; these use the closed form, so a
// GPU result that matches is evidence, not a tautology.
#ifndef STREAMSCOPE_WORKLOADS_HARNESS_CPU_REFERENCE_H_
#define STREAMSCOPE_WORKLOADS_HARNESS_CPU_REFERENCE_H_

#include <array>
#include <cstdint>

#include "workloads/harness/workload_math.h"

namespace streamscope::workloads {

// Word `index` of the input of chunk `chunk` (chunk variants).
inline std::uint32_t ChunkInputWord(std::uint32_t chunk, std::uint64_t index) {
  return Hash2(chunk, std::uint32_t(index));
}

// Fills words [0, count) of chunk `chunk`'s input (multi-threaded).
void FillChunkInput(std::uint32_t chunk, std::uint32_t* words, std::uint64_t count);

// What ChunkTransform writes for input word `in` after `kernel_iters` steps.
class ChunkTransformReference {
 public:
  explicit ChunkTransformReference(std::uint32_t kernel_iters)
      : f_(AffinePower(Affine{kStepMul, kStepAdd}, kernel_iters)) {}
  std::uint32_t operator()(std::uint32_t in) const { return Mix(Apply(f_, in)); }

 private:
  Affine f_;
};

// SpinCompute (concurrent_kernels): launch `launch` of the run, thread
// `thread` of the grid. The kernel derives its seed the same way.
inline std::uint32_t SpinSeed(std::uint32_t launch, std::uint32_t thread) {
  return Hash2(kConcurrentSalt + launch, thread);
}
std::uint32_t SpinComputeExpected(std::uint32_t launch, std::uint32_t thread, std::uint32_t kernel_iters);

// PersistentWorker: the host publishes item k with seed PersistentItemSeed(k);
// thread t of the block that takes it writes PersistentExpected(...).
inline std::uint32_t PersistentItemSeed(std::uint32_t item) { return Hash2(kPersistentSalt, item); }
std::uint32_t PersistentExpected(std::uint32_t item, std::uint32_t thread, std::uint32_t item_iters);

// Lane states after `iterations` repetitions of the `kernels`-long tiny
// kernel sequence, starting from TinyInitial.
std::array<std::uint32_t, kTinyLanes> TinySequenceReference(int kernels, int iterations);

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_HARNESS_CPU_REFERENCE_H_
