#include "workloads/harness/workload_options.h"

#include <charconv>
#include <cstdint>
#include <string_view>

namespace streamscope::workloads {
namespace {

struct ParamSpec {
  std::string_view key;  // flag name without "--", and NVTX mark key
  ParamBit bit;
  int WorkloadOptions::*member;
  int min;
  int max;
  std::string_view help;
};

// Fixed order: the order of "param:" marks and of usage text.
constexpr ParamSpec kParamSpecs[] = {
    {"chunks", kParamChunks, &WorkloadOptions::chunks, 1, 4096, "chunks per iteration"},
    {"chunk-mib", kParamChunkMib, &WorkloadOptions::chunk_mib, 1, 1024, "MiB per chunk, copied in each direction"},
    {"iterations", kParamIterations, &WorkloadOptions::iterations, 1, 100000, "repetitions of the whole work"},
    {"streams", kParamStreams, &WorkloadOptions::streams, 1, 64, "streams used"},
    {"kernel-iters", kParamKernelIters, &WorkloadOptions::kernel_iters, 1, 10000000,
     "dependent multiply-add steps per element (kernel length)"},
    {"host-prepare-us", kParamHostPrepareUs, &WorkloadOptions::host_prepare_us, 0, 1000000,
     "cpu_starved: host busy time before each chunk"},
    {"kernels", kParamKernels, &WorkloadOptions::kernels, 1, 1000000,
     "kernels per sequence (launch_*, tiny_sync, slow_first_launch) or per step (library_gemm)"},
    {"slots", kParamSlots, &WorkloadOptions::slots, 1, 4096,
     "ring-buffer slots (pipelines) or queue capacity (persistent)"},
    {"blocks", kParamBlocks, &WorkloadOptions::blocks, 1, 1024, "thread blocks per kernel"},
    {"items", kParamItems, &WorkloadOptions::items, 1, 10000000, "persistent_kernel: work items"},
    {"item-iters", kParamItemIters, &WorkloadOptions::item_iters, 1, 10000000,
     "persistent_kernel: steps per element of an item"},
    {"timeout-ms", kParamTimeoutMs, &WorkloadOptions::timeout_ms, 100, 600000,
     "persistent_kernel: give up after this long"},
    {"scratch-kib", kParamScratchKib, &WorkloadOptions::scratch_kib, 1, 1048576,
     "implicit_sync: KiB allocated, memset and freed per chunk"},
    {"startup-ms", kParamStartupMs, &WorkloadOptions::startup_ms, 0, 600000,
     "long_startup: host start-up before the first GPU op, ms"},
};

constexpr std::int64_t kMaxMibPerDirection = 8192;

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

bool IsChunkFamily(const VariantInfo& info) { return (info.params & kParamChunkMib) != 0; }

StatusOr<int> ParseInt(std::string_view flag, std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return InvalidArgumentError(
        StringPrintf("--%s needs an integer, got '%s'", std::string(flag).c_str(), std::string(text).c_str()));
  }
  return value;
}

// Per-variant constraints beyond the per-parameter ranges.
Status CheckVariantConstraints(const WorkloadOptions& o) {
  const VariantInfo& info = o.info();
  const std::string_view v = info.name;
  if (IsChunkFamily(info) && std::int64_t(o.chunks) * o.chunk_mib > kMaxMibPerDirection) {
    return InvalidArgumentError(StringPrintf("chunks x chunk-mib = %lld MiB exceeds %lld MiB per direction",
                                             static_cast<long long>(o.chunks) * o.chunk_mib,
                                             static_cast<long long>(kMaxMibPerDirection)));
  }
  const bool needs_two_streams = v == "overlapped" || v == "pageable" || v == "implicit_sync" ||
                                 v == "legacy_default" || v == "misleading_timing" || v == "concurrent_kernels";
  if (needs_two_streams && o.streams < 2) {
    return InvalidArgumentError(StrCat("variant ", std::string(v), " needs --streams >= 2 to show its property"));
  }
  if ((v == "misleading_timing" || v == "overlapped" || v == "pageable" || v == "event_pipeline" || v == "racy") &&
      o.chunks < 2) {
    return InvalidArgumentError(StrCat("variant ", std::string(v), " needs --chunks >= 2"));
  }
  return OkStatus();
}

}  // namespace

WorkloadOptions DefaultOptions(const std::string& variant, SizePreset size) {
  WorkloadOptions o;
  o.variant = variant;
  o.size = size;
  const bool large = size == SizePreset::kLarge;
  const std::string_view v = variant;
  // Chunk family: 8 x 16 MiB per direction (an H200 copies 16 MiB of pinned
  // memory in about 0.3 ms); the chunk kernel's 1024 steps per element take
  // about as long (4 Mi elements x 1024 IMAD at roughly 16 T IMAD/s).
  o.chunks = large ? 32 : 8;
  o.chunk_mib = large ? 32 : 16;
  o.iterations = large ? 4 : 1;
  o.kernel_iters = 1024;
  o.streams = 4;
  o.host_prepare_us = 3000;
  o.scratch_kib = 1024;
  o.slots = 2;
  o.timeout_ms = 10000;
  if (v == "legacy_default" || v == "misleading_timing") o.streams = 2;
  // racy: kernels 4x longer than a copy, so the unguarded refill of an input
  // slot lands while the kernel that reads it is still running.
  if (v == "racy") o.kernel_iters = 4096;
  if (v == "launch_individual" || v == "launch_graph") {
    o.kernels = large ? 10000 : 2000;
    o.iterations = large ? 10 : 1;
  }
  if (v == "concurrent_kernels") {
    // Each kernel: 2 blocks x 128 threads, 100k dependent steps (~0.2 ms).
    o.streams = large ? 8 : 4;
    o.iterations = large ? 32 : 4;
    o.kernel_iters = 100000;
    o.blocks = 2;
  }
  if (v == "peer_overlap") {
    // Per device: 16 (64 large) kernels of 256 blocks x 128 threads,
    // 20k dependent steps each (~40 us), each followed by a 128 KiB peer copy.
    o.chunks = large ? 64 : 16;
    o.kernel_iters = 20000;
    o.blocks = 256;
  }
  if (v == "library_gemm") {
    // 3 SGEMMs of 512^3 (~20 us each on an H200) after 2 ms of host work.
    o.iterations = large ? 200 : 20;
    o.kernels = 3;
    o.host_prepare_us = 2000;
  }
  if (v == "long_startup") {
    o.iterations = large ? 200 : 20;
    o.startup_ms = 300;
  }
  if (v == "tiny_sync" || v == "convergence_loop" || v == "convergence_every16") {
    o.iterations = large ? 2000 : 200;
    o.kernels = 8;
  }
  if (v == "slow_first_launch") o.kernels = large ? 500 : 50;
  if (v == "persistent_kernel") {
    o.items = large ? 8192 : 256;
    o.item_iters = 20000;
    o.blocks = large ? 32 : 8;
    o.slots = large ? 64 : 16;
  }
  return o;
}

StatusOr<WorkloadOptions> ParseWorkloadOptions(int argc, const char* const* argv) {
  // Split "--key=value" and "--key value" into (key, value) pairs first.
  struct Flag {
    std::string key;
    std::string value;
    bool has_value;
  };
  std::vector<Flag> flags;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, 2) != "--" || arg.size() == 2) {
      return InvalidArgumentError(StrCat("unexpected argument '", std::string(arg), "'"));
    }
    arg.remove_prefix(2);
    const size_t eq = arg.find('=');
    if (eq != std::string_view::npos) {
      flags.push_back({std::string(arg.substr(0, eq)), std::string(arg.substr(eq + 1)), true});
      continue;
    }
    const std::string key(arg);
    if (key == "list" || key == "help" || key == "check-device") {
      flags.push_back({key, "", false});
      continue;
    }
    if (i + 1 >= argc) return InvalidArgumentError(StrCat("--", key, " needs a value"));
    flags.push_back({key, argv[++i], true});
  }

  std::string variant;
  SizePreset size = SizePreset::kSmall;
  int device = 0;
  WorkloadOptions modes;
  for (const Flag& f : flags) {
    if (f.key == "list" || f.key == "help" || f.key == "check-device") {
      if (f.has_value) return InvalidArgumentError(StrCat("--", f.key, " takes no value"));
      if (f.key == "list") modes.list = true;
      if (f.key == "help") modes.help = true;
      if (f.key == "check-device") modes.check_device = true;
    } else if (f.key == "variant") {
      variant = f.value;
    } else if (f.key == "size") {
      if (f.value == "small") {
        size = SizePreset::kSmall;
      } else if (f.value == "large") {
        size = SizePreset::kLarge;
      } else {
        return InvalidArgumentError(StrCat("--size must be 'small' or 'large', got '", f.value, "'"));
      }
    } else if (f.key == "device") {
      StatusOr<int> d = ParseInt(f.key, f.value);
      if (!d.ok()) return d.status();
      if (*d < 0 || *d > 1023) return InvalidArgumentError("--device out of range");
      device = *d;
    }
  }
  if (modes.help || modes.list || (modes.check_device && variant.empty())) {
    modes.device = device;
    return modes;
  }
  if (variant.empty()) return InvalidArgumentError("--variant NAME is required (see --list)");
  const VariantInfo* info = FindVariant(variant);
  if (info == nullptr) {
    std::vector<std::string> names;
    for (const VariantInfo& v : kVariants) names.emplace_back(v.name);
    return InvalidArgumentError(StrCat("unknown variant '", variant, "'; variants: ", JoinNames(names)));
  }

  WorkloadOptions o = DefaultOptions(variant, size);
  o.device = device;
  o.check_device = modes.check_device;
  for (const Flag& f : flags) {
    if (f.key == "variant" || f.key == "size" || f.key == "device" || f.key == "list" || f.key == "help" ||
        f.key == "check-device") {
      continue;
    }
    const ParamSpec* spec = nullptr;
    for (const ParamSpec& s : kParamSpecs) {
      if (s.key == f.key) spec = &s;
    }
    if (spec == nullptr) return InvalidArgumentError(StrCat("unknown flag --", f.key));
    if ((info->params & spec->bit) == 0) {
      return InvalidArgumentError(StrCat("--", f.key, " does not apply to variant ", variant));
    }
    StatusOr<int> value = ParseInt(f.key, f.value);
    if (!value.ok()) return value.status();
    if (*value < spec->min || *value > spec->max) {
      return InvalidArgumentError(
          StringPrintf("--%s must be in [%d, %d], got %d", f.key.c_str(), spec->min, spec->max, *value));
    }
    o.*(spec->member) = *value;
  }
  if (Status s = CheckVariantConstraints(o); !s.ok()) return s;
  return o;
}

std::vector<std::pair<std::string, std::string>> VariantParams(const WorkloadOptions& options) {
  std::vector<std::pair<std::string, std::string>> params;
  const unsigned bits = options.info().params;
  for (const ParamSpec& s : kParamSpecs) {
    if ((bits & s.bit) == 0) continue;
    // Mark keys use underscores: "param:chunk_mib=16".
    std::string key(s.key);
    for (char& c : key) {
      if (c == '-') c = '_';
    }
    params.emplace_back(key, StrCat(options.*(s.member)));
  }
  return params;
}

std::string VariantListText() {
  std::string text;
  for (const VariantInfo& v : kVariants) {
    text += StringPrintf("%-19s %s\n", std::string(v.name).c_str(), std::string(v.property).c_str());
  }
  return text;
}

std::string UsageText() {
  std::string text =
      "usage: streamscope_workloads --variant NAME [--size small|large] [--PARAM N ...]\n"
      "       streamscope_workloads --list | --help | --check-device\n\n"
      "Runs one reference workload: a fixed amount of GPU work, validated against a CPU\n"
      "reference and annotated with NVTX (domain 'streamscope' marks, default-domain\n"
      "range 'measured'). Exit codes: 0 validation passed, 3 validation failed,\n"
      "2 usage error, 1 CUDA error or no usable GPU.\n\n"
      "general flags:\n"
      "  --variant NAME      variant to run (see below)\n"
      "  --size small|large  parameter preset (default small: tests; large: benchmarks)\n"
      "  --device N          CUDA device ordinal (default 0)\n"
      "  --check-device      exit 0 if a CUDA GPU is usable, else print why and exit 1\n\n"
      "parameters (each variant takes a subset; see workloads/README.md):\n";
  for (const ParamSpec& s : kParamSpecs) {
    text += StringPrintf("  --%-17s %s [%d..%d]\n", (std::string(s.key) + " N").c_str(), std::string(s.help).c_str(),
                         s.min, s.max);
  }
  text += "\nvariants:\n";
  text += VariantListText();
  return text;
}

}  // namespace streamscope::workloads
