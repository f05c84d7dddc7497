// Output validation helpers: a multi-threaded ParallelFor and a word-by-word
// comparison that reports how many words differ and where the first is.
#ifndef STREAMSCOPE_WORKLOADS_HARNESS_VALIDATION_H_
#define STREAMSCOPE_WORKLOADS_HARNESS_VALIDATION_H_

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace streamscope::workloads {

struct ValidationResult {
  bool passed = true;
  std::string detail;  // empty when passed; "<what>: N of M words differ; first at ..." otherwise

  // Keeps the first failure's detail.
  void Merge(const ValidationResult& other) {
    if (!other.passed && passed) {
      passed = false;
      detail = other.detail;
    }
  }
};

// Calls fn(begin, end) over [0, count) split among up to 16 threads.
template <typename Fn>
void ParallelFor(std::uint64_t count, Fn fn) {
  constexpr std::uint64_t kMinPerThread = 1 << 16;
  const std::uint64_t hw = std::max(1u, std::thread::hardware_concurrency());
  const std::uint64_t threads = std::max<std::uint64_t>(1, std::min<std::uint64_t>({hw, 16, count / kMinPerThread}));
  if (threads == 1) {
    fn(std::uint64_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  const std::uint64_t per = (count + threads - 1) / threads;
  for (std::uint64_t t = 0; t < threads; ++t) {
    const std::uint64_t begin = std::min(count, t * per);
    const std::uint64_t end = std::min(count, begin + per);
    pool.emplace_back([=] { fn(begin, end); });
  }
  for (std::thread& th : pool) th.join();
}

// Formats the failure detail of a comparison.
std::string MismatchDetail(std::string_view what, std::uint64_t mismatches, std::uint64_t count,
                           std::uint64_t first_index, std::uint32_t got, std::uint32_t want);

// Compares actual[i] with expected(i) for i in [0, count).
template <typename Expected>
ValidationResult CompareWords(std::string_view what, const std::uint32_t* actual, std::uint64_t count,
                              Expected expected) {
  std::atomic<std::uint64_t> mismatches{0};
  std::atomic<std::uint64_t> first{count};
  ParallelFor(count, [&](std::uint64_t begin, std::uint64_t end) {
    std::uint64_t local = 0;
    std::uint64_t local_first = count;
    for (std::uint64_t i = begin; i < end; ++i) {
      if (actual[i] != expected(i)) {
        if (local == 0) local_first = i;
        ++local;
      }
    }
    mismatches += local;
    std::uint64_t seen = first.load();
    while (local_first < seen && !first.compare_exchange_weak(seen, local_first)) {}
  });
  ValidationResult result;
  if (mismatches.load() != 0) {
    const std::uint64_t i = first.load();
    result.passed = false;
    result.detail = MismatchDetail(what, mismatches.load(), count, i, actual[i], expected(i));
  }
  return result;
}

}  // namespace streamscope::workloads

#endif  // STREAMSCOPE_WORKLOADS_HARNESS_VALIDATION_H_
