#include "analyzer/importers/torch/torch_json_number.h"

#include <cstddef>
#include <limits>
#include <string>

namespace streamscope {

namespace {

constexpr uint64_t kPow10[19] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull,
                                 1000000000000000000ull};

// The common "[-]123.456" with at most 18 digits, in integer arithmetic;
// false (result untouched) for anything else, which the general path takes.
bool ScaledDecimalFast(std::string_view text, int shift, std::optional<int64_t>& result) {
  const char* p = text.data();
  const char* end = p + text.size();
  const bool negative = p < end && *p == '-';
  if (negative) ++p;
  uint64_t m = 0;
  int digits = 0, fraction = 0;
  const char* int_start = p;
  for (; p < end && *p >= '0' && *p <= '9'; ++p, ++digits) m = m * 10 + static_cast<uint64_t>(*p - '0');
  if (p == int_start || digits > 18) return false;
  if (p < end && *p == '.') {
    ++p;
    const char* frac_start = p;
    for (; p < end && *p >= '0' && *p <= '9' && digits < 19; ++p, ++digits)
      m = m * 10 + static_cast<uint64_t>(*p - '0');
    fraction = static_cast<int>(p - frac_start);
    if (fraction == 0 || digits > 18) return false;
  }
  if (p != end || shift < 0 || shift > 18) return false;
  uint64_t magnitude;
  if (shift >= fraction) {
    if (__builtin_mul_overflow(m, kPow10[shift - fraction], &magnitude)) return false;
  } else {
    const int k = fraction - shift;
    magnitude = m / kPow10[k];
    if (m % kPow10[k] >= 5 * kPow10[k - 1]) ++magnitude;
  }
  if (magnitude > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
  result = negative ? -static_cast<int64_t>(magnitude) : static_cast<int64_t>(magnitude);
  return true;
}

}  // namespace

std::optional<int64_t> ScaledDecimal(std::string_view text, int shift) {
  if (std::optional<int64_t> fast; ScaledDecimalFast(text, shift, fast)) return fast;
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  // Significant digits (integer and fraction part) and where the point is.
  std::string digits;
  int64_t point = 0;  // digits before the decimal point
  bool any_digit = false, seen_point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      if (digits.empty() && c == '0') {  // leading zeros carry no value
        if (seen_point) --point;
        continue;
      }
      digits.push_back(c);
      if (!seen_point) ++point;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return std::nullopt;
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    bool exp_digit = false;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      exp_digit = true;
      if (exponent < 100'000) exponent = exponent * 10 + (text[i] - '0');
    }
    if (!exp_digit) return std::nullopt;
    if (exp_negative) exponent = -exponent;
  }
  if (i != text.size()) return std::nullopt;
  if (digits.empty()) return 0;  // zero, whatever the exponent
  // value = 0.DIGITS * 10^(point + exponent + shift): the first `whole`
  // digits are the integer part, the next one decides the rounding.
  const int64_t whole = point + exponent + shift;
  if (whole > 19) return std::nullopt;  // at least 10^19: beyond int64
  uint64_t magnitude = 0;
  for (int64_t k = 0; k < whole; ++k) {
    const uint64_t d = k < static_cast<int64_t>(digits.size()) ? static_cast<uint64_t>(digits[k] - '0') : 0;
    if (magnitude > (std::numeric_limits<uint64_t>::max() - d) / 10) return std::nullopt;
    magnitude = magnitude * 10 + d;
  }
  if (whole >= 0 && whole < static_cast<int64_t>(digits.size()) && digits[whole] >= '5') ++magnitude;
  const uint64_t limit = negative ? uint64_t{1} << 63 : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (magnitude > limit) return std::nullopt;
  if (negative)
    return magnitude == (uint64_t{1} << 63) ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(magnitude);
  return static_cast<int64_t>(magnitude);
}

}  // namespace streamscope
