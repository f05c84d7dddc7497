#include "analyzer/importers/torch/torch_json_reader.h"

#include <cstdlib>
#include <string>

namespace streamscope::torch_json_internal {

int Utf8Sequence(const unsigned char* p, const unsigned char* end) {
  // Allowed ranges of the second byte by lead byte (RFC 3629, table 3-7
  // of Unicode); later bytes are always 80..BF.
  const unsigned char c = p[0];
  int n;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c == 0xE0) {
    n = 3;
    lo = 0xA0;
  } else if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) {
    n = 3;
  } else if (c == 0xED) {
    n = 3;
    hi = 0x9F;
  } else if (c == 0xF0) {
    n = 4;
    lo = 0x90;
  } else if (c >= 0xF1 && c <= 0xF3) {
    n = 4;
  } else if (c == 0xF4) {
    n = 4;
    hi = 0x8F;
  } else {
    return -1;
  }
  for (int k = 1; k < n; ++k) {
    if (p + k >= end) return 0;
    const unsigned char b = p[k];
    if (k == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF)) return -1;
  }
  return n;
}

bool FiniteDouble(std::string_view text) {
  const std::string copy(text);
  return std::isfinite(std::strtod(copy.c_str(), nullptr));
}

}  // namespace streamscope::torch_json_internal
