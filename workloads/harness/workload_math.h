// Integer arithmetic shared by the GPU kernels and the CPU references:
// input hashing, the affine step the kernels iterate, and the output mix.
// Everything is exact 32-bit unsigned arithmetic, so GPU results must equal
// the CPU reference bit for bit. The kernels iterate the step one by one; the
// CPU reference uses the closed form (AffinePower), an independent path.
#ifndef STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_MATH_H_
#define STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_MATH_H_

#include <cstdint>

#if defined(__CUDACC__)
#define SS_HOST_DEVICE __host__ __device__
#else
#define SS_HOST_DEVICE
#endif

namespace streamscope::workloads {

// The step x -> x * kStepMul + kStepAdd (Numerical Recipes LCG). Kernels
// receive both as runtime arguments so the compiler cannot fold steps.
inline constexpr std::uint32_t kStepMul = 1664525u;
inline constexpr std::uint32_t kStepAdd = 1013904223u;

// x -> mul * x + add (mod 2^32).
struct Affine {
  std::uint32_t mul = 1;
  std::uint32_t add = 0;
};

// g after f.
SS_HOST_DEVICE inline Affine Compose(Affine f, Affine g) { return Affine{g.mul * f.mul, g.mul * f.add + g.add}; }

// The step applied n times, by repeated squaring.
SS_HOST_DEVICE inline Affine AffinePower(Affine step, std::uint64_t n) {
  Affine result;
  while (n > 0) {
    if (n & 1) result = Compose(result, step);
    step = Compose(step, step);
    n >>= 1;
  }
  return result;
}

SS_HOST_DEVICE inline std::uint32_t Apply(Affine f, std::uint32_t x) { return f.mul * x + f.add; }

// Output finalizer (so that outputs do not expose the affine structure).
SS_HOST_DEVICE inline std::uint32_t Mix(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

// A well-spread 32-bit value for (a, b): inputs and seeds.
SS_HOST_DEVICE inline std::uint32_t Hash2(std::uint32_t a, std::uint32_t b) {
  std::uint64_t z = (std::uint64_t(a) << 32 | b) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return std::uint32_t(z) ^ std::uint32_t(z >> 32);
}

// Salts separate the seed spaces of different variants.
inline constexpr std::uint32_t kConcurrentSalt = 0x00c0ffeeu;
inline constexpr std::uint32_t kPersistentSalt = 0x00beef00u;

// Tiny-kernel sequence (launch_*): 32 lanes; kernel `step` updates lane t as
// s = s * kStepMul + (step + t). Order-sensitive, so reordering, a lost
// kernel or a duplicated one changes the result.
inline constexpr int kTinyLanes = 32;
SS_HOST_DEVICE inline std::uint32_t TinyInitial(int lane) { return std::uint32_t(lane) + 1u; }
SS_HOST_DEVICE inline std::uint32_t TinyStepValue(std::uint32_t s, std::uint32_t step, int lane) {
  return s * kStepMul + (step + std::uint32_t(lane));
}

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_MATH_H_
