// Command-line options of the streamscope_workloads program: which variant,
// its sizes, and the per-variant defaults of the "small" (tests) and
// "large" (benchmarks) presets. Pure C++ (no CUDA) so it is unit-tested on
// any machine.
#ifndef STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_OPTIONS_H_
#define STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_OPTIONS_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "workloads/harness/variant_catalog.h"
#include "workloads/harness/workload_status.h"

namespace streamscope::workloads {

enum class SizePreset { kSmall, kLarge };

struct WorkloadOptions {
  std::string variant;
  SizePreset size = SizePreset::kSmall;
  int device = 0;

  // Work parameters; which ones a variant uses is in its VariantInfo.params.
  int chunks = 0;           // chunks per iteration
  int chunk_mib = 0;        // MiB per chunk (each direction)
  int iterations = 0;       // repetitions of the whole work
  int streams = 0;          // streams the variant spreads work over
  int kernel_iters = 0;     // dependent multiply-add steps per element
  int host_prepare_us = 0;  // cpu_starved: host busy time per chunk
  int kernels = 0;          // launch_*: tiny kernels per sequence
  int slots = 0;            // ring-buffer slots (pipelines, persistent queue)
  int blocks = 0;           // blocks per kernel (concurrent, persistent)
  int items = 0;            // persistent_kernel: work items
  int item_iters = 0;       // persistent_kernel: steps per item element
  int timeout_ms = 0;       // persistent_kernel: device and host timeout
  int scratch_kib = 0;      // implicit_sync: bytes malloc'd/memset/freed per chunk
  int startup_ms = 0;       // long_startup: host start-up before the first GPU op

  // Modes that run no variant.
  bool list = false;          // --list
  bool help = false;          // --help
  bool check_device = false;  // --check-device: exit 0 iff a CUDA GPU is usable

  const VariantInfo& info() const { return *FindVariant(variant); }
  std::uint64_t chunk_bytes() const { return std::uint64_t(chunk_mib) << 20; }
  std::uint64_t chunk_words() const { return chunk_bytes() / 4; }
};

// Defaults of `variant` at `size`. The variant must exist.
WorkloadOptions DefaultOptions(const std::string& variant, SizePreset size);

// Parses argv (argv[0] is the program). Flags: --variant NAME, --size
// small|large, --device N, --list, --help, --check-device and one --<param>
// N per parameter (also --key=value). Explicit parameters override the
// preset; a parameter the variant does not take is an error, as are
// unknown flags, missing or malformed values and values out of range.
StatusOr<WorkloadOptions> ParseWorkloadOptions(int argc, const char* const* argv);

// ("chunks","8"), ... for the parameters the variant takes, in a fixed order.
std::vector<std::pair<std::string, std::string>> VariantParams(const WorkloadOptions& options);

// Usage text, including the variant list.
std::string UsageText();

// One line per variant: "name  property".
std::string VariantListText();

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_OPTIONS_H_
