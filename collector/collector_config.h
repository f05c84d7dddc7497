// Collector configuration, read once from environment variables (documented
// in collector/README.md). Pure: parsing takes a lookup function so tests
// need no real environment. Thread-safe after construction (immutable).
#ifndef STREAMSCOPE_COLLECTOR_COLLECTOR_CONFIG_H_
#define STREAMSCOPE_COLLECTOR_COLLECTOR_CONFIG_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include "collector/status.h"

#include "collector/capture_gate.h"
#include "collector/output_path.h"
#include "collector/record_ring.h"
#include "collector/slow_step_trigger.h"

namespace streamscope::collector {

// Record groups the user can widen or narrow (STREAMSCOPE_KINDS).
enum RecordKind : uint32_t {
  kKindKernel = 1u << 0,       // CONCURRENT_KERNEL
  kKindMemcpy = 1u << 1,       // MEMCPY + MEMCPY2 (peer)
  kKindMemset = 1u << 2,       // MEMSET
  kKindSync = 1u << 3,         // SYNCHRONIZATION
  kKindRuntime = 1u << 4,      // RUNTIME API
  kKindDriver = 1u << 5,       // DRIVER API
  kKindNvtx = 1u << 6,         // MARKER + MARKER_DATA
  kKindStream = 1u << 7,       // STREAM
  kKindContext = 1u << 8,      // CONTEXT
  kKindOverhead = 1u << 9,     // OVERHEAD
  kKindGraph = 1u << 10,       // GRAPH_TRACE (one record per graph launch)
  kKindMemory = 1u << 11,      // callback API: allocations, memory accesses, event ops
  kKindSubmit = 1u << 12,      // DRIVER API records of the calls that submit GPU work only,
                               // and INTERNAL_LAUNCH_API (launches outside any API)
  kKindRuntimeAll = 1u << 13,  // with `runtime`: also the calls that only read host-side
                               // state (runtime_query_cbids.cc), left out by default
};

// `memory` is opt-in (+memory): on the launch-bound worst case it costs
// 1.11-1.13x the no-op CUPTI consumer with the same callbacks, over the 10%
// budget (bench/results/collector.md). The commands that verify (compare
// --run, workloads run) turn it on themselves.
// `submit` gives every op launched through the driver (cuBLAS, cuDNN, Triton)
// its submitting call; a runtime call does not record its nested driver call.
// `runtime` leaves out calls that never submit, wait or allocate
// (cudaGetDevice, cudaGetLastError, ...: most API records of framework code);
// `runtime-all` keeps them.
inline constexpr uint32_t kDefaultKinds = kKindKernel | kKindMemcpy | kKindMemset | kKindSync | kKindRuntime |
                                          kKindNvtx | kKindStream | kKindContext | kKindOverhead | kKindSubmit;
inline constexpr uint32_t kAllKinds = kDefaultKinds | kKindDriver | kKindGraph | kKindMemory | kKindRuntimeAll;

// Parses a kinds list: "default", "all", or a comma list of names (kernel,
// memcpy, memset, sync, runtime, driver, nvtx, stream, context, overhead,
// graph, memory, submit, runtime-all). A list whose items all start with '+' or '-' edits the default
// set ("+driver,-overhead"); otherwise it replaces it.
StatusOr<uint32_t> ParseKinds(std::string_view spec);

// Comma list of the names in `kinds`, in a fixed order.
std::string KindsToString(uint32_t kinds);

struct CollectorConfig {
  std::string output_template = "streamscope-%p.sqlite";  // STREAMSCOPE_OUTPUT
  bool overwrite = false;                                 // STREAMSCOPE_OVERWRITE=1
  uint32_t flush_ms = 500;                                // STREAMSCOPE_FLUSH_MS (CUPTI flush period; 0 = CUPTI's own)
  uint32_t buffer_kb = 4096;                              // STREAMSCOPE_BUFFER_KB (one CUPTI buffer)
  uint32_t max_buffer_mb = 512;                           // STREAMSCOPE_MAX_BUFFER_MB (all buffers in flight)
  uint32_t device_buffer_kb = 0;                          // STREAMSCOPE_DEVICE_BUFFER_KB (0 = CUPTI default)
  uint32_t kinds = kDefaultKinds;                         // STREAMSCOPE_KINDS
  std::string clock = "monotonic-raw";                    // STREAMSCOPE_CLOCK: monotonic-raw | cupti-default
  std::string manifest;                                   // STREAMSCOPE_MANIFEST: append "pid\tpath\n" per trace
  bool verbose = false;                                   // STREAMSCOPE_VERBOSE=1
  // STREAMSCOPE_CAPTURE_RANGE (whole, cudaProfilerApi, nvtx:NAME[@FIRST-LAST]) and
  // STREAMSCOPE_START_PAUSED=1 (capture.start_paused).
  CaptureRange capture;
  // STREAMSCOPE_FLIGHT_RECORDER ('30s', '1000000'): keep the most recent
  // records in a ring and write a trace only on a trigger.
  std::optional<RingBound> flight_recorder;
  // STREAMSCOPE_TRIGGER ('nvtx:step>2x'): also dump on a slow instance.
  std::optional<TriggerSpec> trigger;

  // The options as a JSON object (metadata.capture_options).
  std::string ToJson() const;
};

// Reads STREAMSCOPE_* through `env`. Errors name the variable.
StatusOr<CollectorConfig> ConfigFromEnv(const EnvLookup& env);

// The options string of streamscope_record_start: KEY=VALUE items separated
// by ';' or newlines, KEY a STREAMSCOPE_* variable with or without its
// prefix, in any case ("kinds=+memory; flush_ms=100"), VALUE as in the
// variable. Empty: the defaults. The environment is not read. The output
// path is an argument of its own, so OUTPUT and MANIFEST are refused, as are
// unknown keys.
StatusOr<CollectorConfig> ConfigFromOptions(std::string_view options);

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_COLLECTOR_CONFIG_H_
