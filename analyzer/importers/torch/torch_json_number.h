// Exact conversion of the numbers in a torch.profiler (Kineto) Chrome trace.
//
// Kineto writes times as microseconds with three decimals ("ts": 1234.567 is
// 1234567 ns). A double holds only 15-16 significant digits and its binary
// fraction rarely equals the decimal one, so times are converted from the
// number's text, digit by digit, never through floating point. Pure
// functions; thread-safe.
#ifndef STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_JSON_NUMBER_H_
#define STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_JSON_NUMBER_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace streamscope {

// The JSON number `text` times 10^shift, rounded to the nearest integer
// (halves away from zero). nullopt if `text` is not a JSON number or the
// result does not fit in an int64. "1234.567", shift 3 -> 1234567;
// "1.5e3", 3 -> 1500000; "0.0005", 3 -> 1 (0.5 rounds up).
std::optional<int64_t> ScaledDecimal(std::string_view text, int shift);

// Microseconds (a JSON number's text) to nanoseconds. Inline for what
// Kineto writes, "[-]DIGITS.DDD" (up to 15 integer digits): exact without
// rounding; anything else through ScaledDecimal.
inline std::optional<int64_t> MicrosTextToNanos(std::string_view text) {
  const size_t n = text.size();
  const char* p = text.data();
  const bool negative = n > 0 && p[0] == '-';
  const size_t first = negative ? 1 : 0;
  if (n >= first + 5 && n <= first + 19 && p[n - 4] == '.') {
    int64_t v = 0;
    bool digits = true;
    for (size_t i = first; i < n; ++i) {
      if (i == n - 4) continue;
      const unsigned d = static_cast<unsigned char>(p[i]) - '0';
      digits &= d <= 9;
      v = v * 10 + static_cast<int64_t>(d);
    }
    if (digits) return negative ? -v : v;
  }
  return ScaledDecimal(text, 3);
}

}  // namespace streamscope

#endif  // STREAMSCOPE_ANALYZER_IMPORTERS_TORCH_JSON_NUMBER_H_
