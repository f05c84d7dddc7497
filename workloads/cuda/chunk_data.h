// Host buffers of the chunk variants: `chunks` input chunks filled with
// ChunkInputWord, `chunks` output chunks, and their validation against
// ChunkTransformReference. Inputs are written and every page of both is
// touched before any measured region.
#ifndef STREAMSCOPE_WORKLOADS_CUDA_CHUNK_DATA_H_
#define STREAMSCOPE_WORKLOADS_CUDA_CHUNK_DATA_H_

#include <cstdint>

#include "workloads/cuda/cuda_resources.h"
#include "workloads/harness/validation.h"
#include "workloads/harness/workload_options.h"

namespace streamscope::workloads {

class ChunkData {
 public:
  static StatusOr<ChunkData> Create(const WorkloadOptions& options, HostMemoryKind kind);

  std::uint32_t* input(int chunk) const { return in_.get() + std::uint64_t(chunk) * words_; }
  std::uint32_t* output(int chunk) const { return out_.get() + std::uint64_t(chunk) * words_; }
  std::uint64_t words() const { return words_; }
  std::uint64_t bytes() const { return words_ * sizeof(std::uint32_t); }

  // Every output chunk equals the reference transform of its input.
  ValidationResult Validate() const;

 private:
  HostWords in_;
  HostWords out_;
  int chunks_ = 0;
  std::uint64_t words_ = 0;
  std::uint32_t kernel_iters_ = 0;
};

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_CUDA_CHUNK_DATA_H_
