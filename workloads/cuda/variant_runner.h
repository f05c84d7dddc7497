// Running one variant: what a variant gets (options, device facts, the
// annotator) and what it returns (host time of the measured region and the
// validation result). The program (workloads_main.cc) writes the workload,
// param, expect and validation marks; a variant writes only its own
// "result:" marks and the ranges inside its measured region.
#ifndef STREAMSCOPE_WORKLOADS_CUDA_VARIANT_RUNNER_H_
#define STREAMSCOPE_WORKLOADS_CUDA_VARIANT_RUNNER_H_

#include <string>

#include "workloads/cuda/trace_annotations.h"
#include "workloads/harness/validation.h"
#include "workloads/harness/workload_options.h"

namespace streamscope::workloads {

struct DeviceFacts {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  int async_engine_count = 0;
  int concurrent_kernels = 0;
};

struct VariantContext {
  const WorkloadOptions& options;
  const DeviceFacts& device;
  TraceAnnotator& annotator;
};

struct VariantOutcome {
  double measured_ms = 0;
  ValidationResult validation;
  std::string summary;  // extra "key=value ..." for the summary line, may be empty
};

// Status codes: INVALID_ARGUMENT for parameters the device cannot honour
// (exit 2), anything else is a CUDA or resource failure (exit 1).
StatusOr<VariantOutcome> RunChunkVariant(const VariantContext& context);
StatusOr<VariantOutcome> RunEventPipelineVariant(const VariantContext& context);
StatusOr<VariantOutcome> RunLaunchVariant(const VariantContext& context);
StatusOr<VariantOutcome> RunConcurrentKernelsVariant(const VariantContext& context);
StatusOr<VariantOutcome> RunPersistentKernelVariant(const VariantContext& context);
StatusOr<VariantOutcome> RunPeerOverlapVariant(const VariantContext& context);
StatusOr<VariantOutcome> RunConclusionVariant(const VariantContext& context);

// Dispatches on options.variant.
StatusOr<VariantOutcome> RunVariant(const VariantContext& context);

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_CUDA_VARIANT_RUNNER_H_
