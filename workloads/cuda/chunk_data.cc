#include "workloads/cuda/chunk_data.h"

#include <utility>

#include "workloads/harness/cpu_reference.h"

namespace streamscope::workloads {

StatusOr<ChunkData> ChunkData::Create(const WorkloadOptions& options, HostMemoryKind kind) {
  ChunkData data;
  data.chunks_ = options.chunks;
  data.words_ = options.chunk_words();
  data.kernel_iters_ = std::uint32_t(options.kernel_iters);
  const std::uint64_t total = std::uint64_t(options.chunks) * data.words_;
  SS_ASSIGN_OR_RETURN(data.in_, HostWords::Allocate(total, kind));
  SS_ASSIGN_OR_RETURN(data.out_, HostWords::Allocate(total, kind));
  for (int c = 0; c < options.chunks; ++c) FillChunkInput(std::uint32_t(c), data.input(c), data.words_);
  return data;
}

ValidationResult ChunkData::Validate() const {
  const ChunkTransformReference reference(kernel_iters_);
  const std::uint64_t words = words_;
  return CompareWords("chunk outputs", out_.get(), std::uint64_t(chunks_) * words,
                      [&](std::uint64_t i) { return reference(ChunkInputWord(std::uint32_t(i / words), i % words)); });
}

}  // namespace streamscope::workloads
