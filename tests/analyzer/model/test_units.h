// Time and size units of the tests' hand-built traces (times in
// nanoseconds, sizes in bytes), shared so that test files compiled as one
// unity batch do not each define their own.
#ifndef STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_UNITS_H_
#define STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_UNITS_H_

#include <cstdint>

namespace streamscope::testing {

inline constexpr int64_t kUs = 1'000;
inline constexpr int64_t kMs = 1'000'000;
inline constexpr int64_t k16MiB = int64_t{16} << 20;

// Microseconds in nanoseconds.
constexpr int64_t us(int64_t v) { return v * kUs; }

}  // namespace streamscope::testing

#endif  // STREAMSCOPE_TESTS_ANALYZER_MODEL_TEST_UNITS_H_
