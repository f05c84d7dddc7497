// streamscope_workloads: runs one reference workload variant (see
// workloads/README.md). Order of events: parse options, initialize CUDA,
// then annotate (workload, param and expect marks), run the variant (its
// measured region), validate, write the validation mark, print one summary
// line. Exit codes: 0 validation passed, 3 failed, 2 usage, 1 CUDA error.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/trace_annotations.h"
#include "workloads/cuda/variant_runner.h"
#include "workloads/harness/workload_options.h"

namespace streamscope::workloads {
namespace {

constexpr int kExitPassed = 0;
constexpr int kExitCudaError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitValidationFailed = 3;

constexpr char kProgram[] = "streamscope_workloads";

// Selects the device, creates its context, and reads what decides overlap.
StatusOr<DeviceFacts> InitializeDevice(int ordinal) {
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    return UnavailableError(StringPrintf("no usable CUDA GPU: cudaGetDeviceCount: %s (%s)", cudaGetErrorName(error),
                                         cudaGetErrorString(error)));
  }
  if (count == 0) return UnavailableError("no usable CUDA GPU: cudaGetDeviceCount found 0 devices");
  if (ordinal >= count) {
    return InvalidArgumentError(StringPrintf("--device %d: only %d CUDA device(s) present", ordinal, count));
  }
  SS_CUDA_RETURN_IF_ERROR(cudaSetDevice(ordinal));
  SS_CUDA_RETURN_IF_ERROR(cudaFree(nullptr));  // creates the context now
  cudaDeviceProp prop;
  SS_CUDA_RETURN_IF_ERROR(cudaGetDeviceProperties(&prop, ordinal));
  DeviceFacts facts;
  facts.ordinal = ordinal;
  facts.name = prop.name;
  facts.sm_count = prop.multiProcessorCount;
  facts.async_engine_count = prop.asyncEngineCount;
  facts.concurrent_kernels = prop.concurrentKernels;
  return facts;
}

// "a;b" -> {"a", "b"}.
std::vector<std::string> SplitExpectations(std::string_view text) {
  std::vector<std::string> parts;
  while (!text.empty()) {
    const size_t end = std::min(text.find(';'), text.size());
    if (end > 0) parts.emplace_back(text.substr(0, end));
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return parts;
}

int ExitCodeForError(const Status& status) {
  return status.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitCudaError;
}

int Main(int argc, char** argv) {
  StatusOr<WorkloadOptions> parsed = ParseWorkloadOptions(argc, argv);
  if (!parsed.ok()) {
    std::fprintf(stderr, "%s: %s\n(run with --help for usage)\n", kProgram,
                 std::string(parsed.status().message()).c_str());
    return kExitUsage;
  }
  const WorkloadOptions& options = *parsed;
  if (options.help) {
    std::fputs(UsageText().c_str(), stdout);
    return kExitPassed;
  }
  if (options.list) {
    std::fputs(VariantListText().c_str(), stdout);
    return kExitPassed;
  }
  StatusOr<DeviceFacts> device = InitializeDevice(options.device);
  if (!device.ok()) {
    std::fprintf(stderr, "%s: %s\n", kProgram, std::string(device.status().message()).c_str());
    return ExitCodeForError(device.status());
  }
  if (options.check_device) {
    std::printf("%s: CUDA device %d usable: %s, %d SMs, %d copy engines\n", kProgram, device->ordinal,
                device->name.c_str(), device->sm_count, device->async_engine_count);
    return kExitPassed;
  }

  const VariantInfo& info = options.info();
  TraceAnnotator annotator;
  annotator.Mark(StrCat("workload=", std::string(info.name)));
  std::string params_text;
  for (const auto& [key, value] : VariantParams(options)) {
    annotator.Mark(StrCat("param:", key, "=", value));
    params_text += StrCat(" ", key, "=", value);
  }
  for (const std::string& expectation : SplitExpectations(info.expectations)) {
    annotator.Mark(StrCat("expect:", expectation));
  }

  const VariantContext context{options, *device, annotator};
  StatusOr<VariantOutcome> outcome = RunVariant(context);
  if (!outcome.ok()) {
    // The trace still says the run did not validate.
    annotator.Mark(StrCat("validation=failed: error: ", outcome.status().message()));
    std::fprintf(stderr, "%s: variant %s: %s\n", kProgram, std::string(info.name).c_str(),
                 std::string(outcome.status().message()).c_str());
    return ExitCodeForError(outcome.status());
  }
  const ValidationResult& validation = outcome->validation;
  const std::string validation_text = validation.passed ? "passed" : StrCat("failed: ", validation.detail);
  annotator.Mark(StrCat("validation=", validation_text));
  const char* by_design = !validation.passed && info.validation_may_fail ? " (possible by design: a real race)" : "";
  std::printf("%s: variant=%s device=\"%s\"%s measured_ms=%.3f%s%s validation=%s%s\n", kProgram,
              std::string(info.name).c_str(), device->name.c_str(), params_text.c_str(), outcome->measured_ms,
              outcome->summary.empty() ? "" : " ", outcome->summary.c_str(), validation_text.c_str(), by_design);
  std::fflush(stdout);
  return validation.passed ? kExitPassed : kExitValidationFailed;
}

}  // namespace
}  // namespace streamscope::workloads

int main(int argc, char** argv) { return streamscope::workloads::Main(argc, argv); }
