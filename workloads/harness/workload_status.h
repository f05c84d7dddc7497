// Status, StatusOr and StrCat for the workloads: the shared
// schema/status.h (why not Abseil: there; the workloads program depends on
// the CUDA runtime and the C++ standard library only), plus printf-style
// formatting and the return macros.
#ifndef STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_STATUS_H_
#define STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_STATUS_H_

#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>

#include "schema/status.h"

namespace streamscope::workloads {

using common::InternalError;
using common::InvalidArgumentError;
using common::OkStatus;
using common::ResourceExhaustedError;
using common::Status;
using common::StatusCode;
using common::StatusOr;
using common::StrCat;
using common::UnavailableError;

// printf into a std::string.
[[gnu::format(printf, 1, 2)]] inline std::string StringPrintf(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int size = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string text(size > 0 ? size_t(size) : 0, '\0');
  if (size > 0) std::vsnprintf(text.data(), text.size() + 1, format, args);
  va_end(args);
  return text;
}

}  // namespace streamscope::workloads

#define SS_RETURN_IF_ERROR(expr)                                \
  do {                                                          \
    const ::streamscope::workloads::Status ss_status_ = (expr); \
    if (!ss_status_.ok()) return ss_status_;                    \
  } while (0)

#define SS_STATUS_CONCAT_INNER_(a, b) a##b
#define SS_STATUS_CONCAT_(a, b) SS_STATUS_CONCAT_INNER_(a, b)
// Several statements: inside an if/for body, use braces.
#define SS_ASSIGN_OR_RETURN(lhs, expr)                                                                            \
  auto SS_STATUS_CONCAT_(ss_statusor_, __LINE__) = (expr);                                                        \
  if (!SS_STATUS_CONCAT_(ss_statusor_, __LINE__).ok()) return SS_STATUS_CONCAT_(ss_statusor_, __LINE__).status(); \
  lhs = std::move(*SS_STATUS_CONCAT_(ss_statusor_, __LINE__))

#endif  // STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_STATUS_H_
