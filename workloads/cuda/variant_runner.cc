#include "workloads/cuda/variant_runner.h"

#include <string>
#include <string_view>

namespace streamscope::workloads {

StatusOr<VariantOutcome> RunVariant(const VariantContext& context) {
  const std::string_view v = context.options.variant;
  if (v == "sequential" || v == "overlapped" || v == "pageable" || v == "implicit_sync" || v == "legacy_default" ||
      v == "cpu_starved" || v == "misleading_timing") {
    return RunChunkVariant(context);
  }
  if (v == "event_pipeline" || v == "racy") return RunEventPipelineVariant(context);
  if (v == "launch_individual" || v == "launch_graph") return RunLaunchVariant(context);
  if (v == "concurrent_kernels") return RunConcurrentKernelsVariant(context);
  if (v == "persistent_kernel") return RunPersistentKernelVariant(context);
  if (v == "peer_overlap") return RunPeerOverlapVariant(context);
  if (v == "library_gemm" || v == "long_startup" || v == "tiny_sync" || v == "slow_first_launch" ||
      v == "convergence_loop" || v == "convergence_every16") {
    return RunConclusionVariant(context);
  }
  return InvalidArgumentError(StrCat("variant ", std::string(v), " has no runner"));
}

}  // namespace streamscope::workloads
