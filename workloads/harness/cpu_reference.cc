#include "workloads/harness/cpu_reference.h"

#include "workloads/harness/validation.h"

namespace streamscope::workloads {

void FillChunkInput(std::uint32_t chunk, std::uint32_t* words, std::uint64_t count) {
  ParallelFor(count, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) words[i] = ChunkInputWord(chunk, i);
  });
}

std::uint32_t SpinComputeExpected(std::uint32_t launch, std::uint32_t thread, std::uint32_t kernel_iters) {
  const Affine f = AffinePower(Affine{kStepMul, kStepAdd}, kernel_iters);
  return Mix(Apply(f, SpinSeed(launch, thread)));
}

std::uint32_t PersistentExpected(std::uint32_t item, std::uint32_t thread, std::uint32_t item_iters) {
  const Affine f = AffinePower(Affine{kStepMul, kStepAdd}, item_iters);
  return Mix(Apply(f, Hash2(PersistentItemSeed(item), thread)));
}

std::array<std::uint32_t, kTinyLanes> TinySequenceReference(int kernels, int iterations) {
  std::array<std::uint32_t, kTinyLanes> lanes;
  for (int t = 0; t < kTinyLanes; ++t) lanes[t] = TinyInitial(t);
  for (int it = 0; it < iterations; ++it) {
    for (int k = 0; k < kernels; ++k) {
      for (int t = 0; t < kTinyLanes; ++t) lanes[t] = TinyStepValue(lanes[t], std::uint32_t(k), t);
    }
  }
  return lanes;
}

}  // namespace streamscope::workloads
