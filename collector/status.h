// Status, StatusOr and string helpers for the collector: the shared
// schema/status.h (why not Abseil: there), plus the string helpers only the
// collector needs. Thread-safe (value types).
#ifndef STREAMSCOPE_COLLECTOR_STATUS_H_
#define STREAMSCOPE_COLLECTOR_STATUS_H_

#include <charconv>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "schema/status.h"

namespace streamscope::collector {

using common::AlreadyExistsError;
using common::FailedPreconditionError;
using common::InternalError;
using common::InvalidArgumentError;
using common::NotFoundError;
using common::OkStatus;
using common::PermissionDeniedError;
using common::Status;
using common::StatusCode;
using common::StatusOr;
using common::StrCat;
using common::UnavailableError;
using common::UnimplementedError;

template <typename Range>
std::string StrJoin(const Range& parts, std::string_view sep) {
  std::string out;
  bool first = true;
  for (const auto& p : parts) {
    if (!first) out.append(sep);
    first = false;
    common::status_internal::Append(out, p);
  }
  return out;
}

// Splits on any of `delims`, dropping empty pieces.
inline std::vector<std::string_view> SplitNonEmpty(std::string_view s, std::string_view delims) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find_first_of(delims, start);
    if (end == std::string_view::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

template <typename T>
bool ParseInt(std::string_view s, T* out) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), *out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace streamscope::collector

#endif  // STREAMSCOPE_COLLECTOR_STATUS_H_
