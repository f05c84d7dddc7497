// Variants that plant the cases where a profiler's *conclusion* goes wrong
// even though its figures are exact (each has one known right answer):
//
//  library_gemm      cuBLAS SGEMMs and one kernel launched through the CUDA
//                    driver API (cuLaunchKernelEx, as Triton launches) after
//                    host work in the NVTX range host_prepare, every step:
//                    the GPU waits for the CPU inside host_prepare, and every
//                    kernel has a submitter only if driver-API launches are
//                    recorded. (cuBLAS 13.0 launches through the runtime's
//                    cudaLaunchKernelExC, seen on the H200; other versions
//                    and libraries use the driver API.)
//  long_startup      a long host start-up (startup_ms) after CUDA is up and
//                    before the first GPU op, then a short steady state of
//                    `iterations` NVTX "step" ranges: the steady state is the
//                    window; the start-up is reported apart, never as idle.
//  tiny_sync         an iterative loop: graph launch, an 8-byte device-to-host
//                    copy into pageable memory and cudaStreamSynchronize per
//                    iteration: the per-iteration round trip costs most; the
//                    tiny copy is latency-bound (never judged per byte).
//  convergence_loop  tiny_sync as a convergence loop is written (jacobiCudaGraphs):
//                    the residual goes to pinned memory; each iteration is a
//                    round trip (launch, read back, sync, host test).
//  convergence_every16  the same work, the residual read back and tested
//                    every 16 iterations: the remedy, for `compare`.
//  slow_first_launch `kernels` SpinCompute kernels (~0.1 ms each) launched with
//                    no warm-up: the first launch loads the module and is far
//                    slower than the rest; the loop is not launch-bound.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include "workloads/cuda/cuda_resources.h"
#include "workloads/cuda/cuda_status.h"
#include "workloads/cuda/trace_annotations.h"
#include "workloads/cuda/variant_runner.h"
#include "workloads/cuda/workload_kernels.h"
#include "workloads/harness/cpu_reference.h"

namespace streamscope::workloads {
namespace {

inline constexpr char kStepRange[] = "step";
// convergence_every16: the residual is read back and tested every this many iterations.
inline constexpr int kTestEvery = 16;
// library_gemm: n x n matrices whose entries are small integers, so every
// product is exact in fp32 (and TF32): at most 3 * 3 * n = 4608 for n = 512.
inline constexpr int kGemmN = 512;
inline constexpr int kGemmMaxEntry = 4;
// slow_first_launch: each SpinCompute ~0.1 ms on an H200 (2 blocks).
inline constexpr std::uint32_t kFirstLaunchKernelIters = 50000;
inline constexpr int kFirstLaunchBlocks = 2;
// long_startup: each step one SpinCompute of ~0.4 ms.
inline constexpr std::uint32_t kStartupStepKernelIters = 200000;
inline constexpr int kStartupStepBlocks = 2;

const char* CublasError(cublasStatus_t s) { return cublasGetStatusString(s); }

#define SS_CUBLAS_RETURN_IF_ERROR(expr)                                          \
  do {                                                                           \
    const cublasStatus_t ss_cublas_status_ = (expr);                             \
    if (ss_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                            \
      return InternalError(StrCat(#expr, ": ", CublasError(ss_cublas_status_))); \
    }                                                                            \
  } while (0)

class CublasHandle {
 public:
  CublasHandle() = default;
  ~CublasHandle() {
    if (handle_ != nullptr) cublasDestroy(handle_);
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  cublasHandle_t* out() { return &handle_; }
  cublasHandle_t get() const { return handle_; }

 private:
  cublasHandle_t handle_ = nullptr;
};

float GemmEntry(std::uint32_t matrix, std::uint32_t index) { return float(Hash2(matrix, index) % kGemmMaxEntry); }

// C[k] = A * B[k] (column-major, n x n), k < gemms, on the CPU.
std::vector<float> GemmReference(const std::vector<float>& a, const std::vector<float>& b) {
  const int n = kGemmN;
  std::vector<float> c(std::size_t(n) * n, 0.0f);
  for (int j = 0; j < n; ++j) {
    for (int p = 0; p < n; ++p) {
      const float bpj = b[std::size_t(j) * n + p];
      if (bpj == 0.0f) continue;
      for (int i = 0; i < n; ++i) c[std::size_t(j) * n + i] += a[std::size_t(p) * n + i] * bpj;
    }
  }
  return c;
}

StatusOr<VariantOutcome> RunLibraryGemm(const VariantContext& context) {
  const WorkloadOptions& o = context.options;
  const int n = kGemmN;
  const std::uint64_t words = std::uint64_t(n) * n;
  SS_ASSIGN_OR_RETURN(Stream stream, Stream::Create(cudaStreamNonBlocking));
  CublasHandle handle;
  SS_CUBLAS_RETURN_IF_ERROR(cublasCreate(handle.out()));
  SS_CUBLAS_RETURN_IF_ERROR(cublasSetStream(handle.get(), stream.get()));
  // Exact fp32 products (no reduced-precision tensor-core paths).
  SS_CUBLAS_RETURN_IF_ERROR(cublasSetMathMode(handle.get(), CUBLAS_PEDANTIC_MATH));

  std::vector<float> a(words);
  std::vector<std::vector<float>> b(o.kernels, std::vector<float>(words));
  for (std::uint64_t i = 0; i < words; ++i) a[i] = GemmEntry(0, std::uint32_t(i));
  for (int k = 0; k < o.kernels; ++k) {
    for (std::uint64_t i = 0; i < words; ++i) b[k][i] = GemmEntry(1 + k, std::uint32_t(i));
  }
  SS_ASSIGN_OR_RETURN(DeviceWords d_a, DeviceWords::Allocate(words));
  std::vector<DeviceWords> d_b, d_c;
  for (int k = 0; k < o.kernels; ++k) {
    SS_ASSIGN_OR_RETURN(DeviceWords bk, DeviceWords::Allocate(words));
    SS_ASSIGN_OR_RETURN(DeviceWords ck, DeviceWords::Allocate(words));
    SS_CUDA_RETURN_IF_ERROR(cudaMemcpy(bk.get(), b[k].data(), bk.bytes(), cudaMemcpyHostToDevice));
    d_b.push_back(std::move(bk));
    d_c.push_back(std::move(ck));
  }
  SS_CUDA_RETURN_IF_ERROR(cudaMemcpy(d_a.get(), a.data(), d_a.bytes(), cudaMemcpyHostToDevice));
  // One TinyStep per step launched through the driver API, as Triton does.
  SS_ASSIGN_OR_RETURN(void* tiny_function, TinyStepDriverFunction());
  SS_ASSIGN_OR_RETURN(DeviceWords lanes, DeviceWords::Allocate(kTinyLanes));
  SS_ASSIGN_OR_RETURN(DeviceWords warm_lanes, DeviceWords::Allocate(kTinyLanes));
  std::array<std::uint32_t, kTinyLanes> initial;
  for (int t = 0; t < kTinyLanes; ++t) initial[t] = TinyInitial(t);
  SS_CUDA_RETURN_IF_ERROR(cudaMemcpy(lanes.get(), initial.data(), lanes.bytes(), cudaMemcpyHostToDevice));
  const float one = 1.0f, zero = 0.0f;
  auto gemm = [&](int k) {
    return cublasSgemm(handle.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, reinterpret_cast<const float*>(d_a.get()),
                       n, reinterpret_cast<const float*>(d_b[k].get()), n, &zero,
                       reinterpret_cast<float*>(d_c[k].get()), n);
  };
  // Warm-up: loads cuBLAS's kernels and workspace outside the window.
  for (int k = 0; k < o.kernels; ++k) SS_CUBLAS_RETURN_IF_ERROR(gemm(k));
  SS_RETURN_IF_ERROR(LaunchTinyStepThroughDriver(tiny_function, warm_lanes.get(), 0, stream.get()));
  SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());

  VariantOutcome outcome;
  MeasuredRegion measured;
  measured.Start();
  for (int it = 0; it < o.iterations; ++it) {
    ScopedNvtxRange step(kStepRange);
    {
      ScopedNvtxRange prepare(kHostPrepareRange);
      BusyWaitMicroseconds(o.host_prepare_us);
    }
    for (int k = 0; k < o.kernels; ++k) SS_CUBLAS_RETURN_IF_ERROR(gemm(k));
    SS_RETURN_IF_ERROR(LaunchTinyStepThroughDriver(tiny_function, lanes.get(), 0, stream.get()));
  }
  std::array<std::uint32_t, kTinyLanes> got_lanes;
  SS_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(got_lanes.data(), lanes.get(), lanes.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();

  const std::array<std::uint32_t, kTinyLanes> want_lanes = TinySequenceReference(1, o.iterations);
  outcome.validation = CompareWords("driver-launched TinyStep lanes", got_lanes.data(), kTinyLanes,
                                    [&](std::uint64_t t) { return want_lanes[t]; });
  for (int k = 0; k < o.kernels && outcome.validation.passed; ++k) {
    std::vector<float> got(words);
    SS_CUDA_RETURN_IF_ERROR(cudaMemcpy(got.data(), d_c[k].get(), d_c[k].bytes(), cudaMemcpyDeviceToHost));
    const std::vector<float> want = GemmReference(a, b[k]);
    outcome.validation = CompareWords(StrCat("gemm ", k, " product"),
                                      reinterpret_cast<const std::uint32_t*>(got.data()), words, [&](std::uint64_t i) {
                                        std::uint32_t w;
                                        std::memcpy(&w, &want[i], sizeof w);
                                        return w;
                                      });
  }
  outcome.summary = StringPrintf("gemms=%lld n=%d", static_cast<long long>(o.kernels) * o.iterations, n);
  return outcome;
}

// SpinCompute launches on one stream into consecutive slices of `out`,
// launch numbers first_launch, first_launch + 1, ...
Status LaunchSpins(std::uint32_t* out, int count, std::uint32_t first_launch, std::uint32_t kernel_iters, int blocks,
                   cudaStream_t stream) {
  const std::uint64_t per_launch = std::uint64_t(blocks) * kSpinBlockThreads;
  for (int k = 0; k < count; ++k) {
    SS_RETURN_IF_ERROR(LaunchSpinCompute(out + std::uint64_t(k) * per_launch, first_launch + std::uint32_t(k),
                                         kernel_iters, blocks, stream));
  }
  return OkStatus();
}

ValidationResult CompareSpins(const std::uint32_t* got, int count, std::uint32_t first_launch,
                              std::uint32_t kernel_iters, int blocks) {
  const std::uint64_t per_launch = std::uint64_t(blocks) * kSpinBlockThreads;
  return CompareWords("SpinCompute outputs", got, per_launch * count, [&](std::uint64_t i) {
    return SpinComputeExpected(first_launch + std::uint32_t(i / per_launch), std::uint32_t(i % per_launch),
                               kernel_iters);
  });
}

StatusOr<VariantOutcome> RunSpinVariant(const VariantContext& context, bool long_startup) {
  const WorkloadOptions& o = context.options;
  const int count = long_startup ? o.iterations : o.kernels;
  const std::uint32_t iters = long_startup ? kStartupStepKernelIters : kFirstLaunchKernelIters;
  const int blocks = long_startup ? kStartupStepBlocks : kFirstLaunchBlocks;
  const std::uint64_t words = std::uint64_t(count) * blocks * kSpinBlockThreads;
  SS_ASSIGN_OR_RETURN(Stream stream, Stream::Create(cudaStreamNonBlocking));
  SS_ASSIGN_OR_RETURN(DeviceWords out, DeviceWords::Allocate(words));
  SS_ASSIGN_OR_RETURN(HostWords result, HostWords::Allocate(words, HostMemoryKind::kPinned));
  SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());
  // long_startup: the host works (loading data, building a model...) before
  // the first GPU op. No warm-up launch in either variant: slow_first_launch
  // needs its first launch to load the module inside the window.
  if (long_startup) BusyWaitMicroseconds(o.startup_ms * 1000);

  VariantOutcome outcome;
  MeasuredRegion measured;
  measured.Start();
  if (long_startup) {
    for (int it = 0; it < count; ++it) {
      ScopedNvtxRange step(kStepRange);
      SS_RETURN_IF_ERROR(LaunchSpins(out.get() + std::uint64_t(it) * blocks * kSpinBlockThreads, 1, std::uint32_t(it),
                                     iters, blocks, stream.get()));
      SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
    }
  } else {
    SS_RETURN_IF_ERROR(LaunchSpins(out.get(), count, 0, iters, blocks, stream.get()));
  }
  SS_CUDA_RETURN_IF_ERROR(cudaMemcpyAsync(result.get(), out.get(), out.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();
  outcome.validation = CompareSpins(result.get(), count, 0, iters, blocks);
  outcome.summary = StringPrintf("kernel_launches=%d", count);
  return outcome;
}

// tiny_sync, convergence_loop and convergence_every16: graph launches, each
// `test_every` iterations an 8-byte read-back of the residual into
// `residual_kind` memory, a stream sync and a host test.
StatusOr<VariantOutcome> RunReadbackLoop(const VariantContext& context, HostMemoryKind residual_kind, int test_every) {
  const WorkloadOptions& o = context.options;
  SS_ASSIGN_OR_RETURN(Stream stream, Stream::Create(cudaStreamNonBlocking));
  SS_ASSIGN_OR_RETURN(DeviceWords lanes, DeviceWords::Allocate(kTinyLanes));
  // The per-iteration result: 8 bytes (two lanes), into pageable memory, as
  // an iterative solver copies its residual back to decide whether to stop.
  SS_ASSIGN_OR_RETURN(HostWords residual, HostWords::Allocate(2, residual_kind));
  SS_ASSIGN_OR_RETURN(HostWords final_lanes, HostWords::Allocate(kTinyLanes, HostMemoryKind::kPinned));
  std::array<std::uint32_t, kTinyLanes> initial;
  for (int t = 0; t < kTinyLanes; ++t) initial[t] = TinyInitial(t);
  SS_CUDA_RETURN_IF_ERROR(cudaMemcpy(lanes.get(), initial.data(), lanes.bytes(), cudaMemcpyHostToDevice));
  GraphExec exec;
  {
    ScopedNvtxRange range(kGraphBuildRange);
    SS_CUDA_RETURN_IF_ERROR(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal));
    Status launched = OkStatus();
    for (int k = 0; k < o.kernels && launched.ok(); ++k) {
      launched = LaunchTinyStep(lanes.get(), std::uint32_t(k), stream.get());
    }
    Graph graph;
    const cudaError_t end_error = cudaStreamEndCapture(stream.get(), graph.out());
    SS_RETURN_IF_ERROR(launched);
    SS_CUDA_RETURN_IF_ERROR(end_error);
    SS_CUDA_RETURN_IF_ERROR(cudaGraphInstantiate(exec.out(), graph.get(), 0));
    SS_CUDA_RETURN_IF_ERROR(cudaGraphUpload(exec.get(), stream.get()));
  }
  SS_CUDA_RETURN_IF_ERROR(cudaDeviceSynchronize());

  VariantOutcome outcome;
  MeasuredRegion measured;
  measured.Start();
  std::uint64_t residual_sum = 0;  // uses each copied result, as a solver would
  int tests = 0;
  for (int it = 0; it < o.iterations; ++it) {
    SS_CUDA_RETURN_IF_ERROR(cudaGraphLaunch(exec.get(), stream.get()));
    if ((it + 1) % test_every != 0 && it + 1 != o.iterations) continue;
    SS_CUDA_RETURN_IF_ERROR(
        cudaMemcpyAsync(residual.get(), lanes.get(), residual.bytes(), cudaMemcpyDeviceToHost, stream.get()));
    SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
    residual_sum += residual.get()[0];  // the host test: a solver compares it with its tolerance here
    tests += 1;
  }
  SS_CUDA_RETURN_IF_ERROR(
      cudaMemcpyAsync(final_lanes.get(), lanes.get(), lanes.bytes(), cudaMemcpyDeviceToHost, stream.get()));
  SS_CUDA_RETURN_IF_ERROR(cudaStreamSynchronize(stream.get()));
  measured.Stop();
  outcome.measured_ms = measured.milliseconds();
  const std::array<std::uint32_t, kTinyLanes> want = TinySequenceReference(o.kernels, o.iterations);
  outcome.validation =
      CompareWords("tiny-kernel lane states", final_lanes.get(), kTinyLanes, [&](std::uint64_t t) { return want[t]; });
  if (outcome.validation.passed && residual.get()[0] != want[0]) {
    outcome.validation =
        CompareWords("last residual copy", residual.get(), 2, [&](std::uint64_t t) { return want[t]; });
  }
  outcome.summary = StringPrintf("graph_launches=%d tests=%d residual_checksum=%llu", o.iterations, tests,
                                 static_cast<unsigned long long>(residual_sum & 0xffff));
  return outcome;
}

}  // namespace

StatusOr<VariantOutcome> RunConclusionVariant(const VariantContext& context) {
  const std::string_view v = context.options.variant;
  if (v == "library_gemm") return RunLibraryGemm(context);
  if (v == "long_startup") return RunSpinVariant(context, /*long_startup=*/true);
  if (v == "slow_first_launch") return RunSpinVariant(context, /*long_startup=*/false);
  if (v == "tiny_sync") return RunReadbackLoop(context, HostMemoryKind::kPageable, 1);
  if (v == "convergence_loop") return RunReadbackLoop(context, HostMemoryKind::kPinned, 1);
  if (v == "convergence_every16") return RunReadbackLoop(context, HostMemoryKind::kPinned, kTestEvery);
  return InvalidArgumentError(StrCat("variant ", std::string(v), " has no runner"));
}

}  // namespace streamscope::workloads
