// Integer nanosecond arithmetic that clamps instead of overflowing: a trace
// may hold any int64 times (damaged or forged files), and signed overflow is
// undefined behaviour.
#ifndef STREAMSCOPE_ANALYZER_MODEL_SATURATING_H_
#define STREAMSCOPE_ANALYZER_MODEL_SATURATING_H_

#include <cstdint>
#include <limits>

namespace streamscope {

// Times an importer accepts: wide enough for any real clock (CUPTI's
// nanoseconds since 1970 are ~1.7e18, Nsight's are relative to the session)
// and narrow enough that the difference of any two fits in an int64.
inline constexpr int64_t kMinTraceTime = -(int64_t{1} << 60);
inline constexpr int64_t kMaxTraceTime = int64_t{1} << 62;
// Sentinels for "no time yet" in running minima and maxima (not trace
// times: the whole int64 range).
inline constexpr int64_t kMinTime = std::numeric_limits<int64_t>::min();
inline constexpr int64_t kMaxTime = std::numeric_limits<int64_t>::max();

inline bool IsTraceTime(int64_t t) { return t >= kMinTraceTime && t <= kMaxTraceTime; }

inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

inline int64_t SaturatingSub(int64_t a, int64_t b) {
  int64_t r;
  if (!__builtin_sub_overflow(a, b, &r)) return r;
  return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_MODEL_SATURATING_H_
