// A minimal Status / StatusOr and printf-style formatting for the workloads.
// Why not Abseil: streamscope_workloads must run on the GPU machine, which
// has no Abseil, and Debian's Abseil CMake targets link its shared
// libraries; so the workloads program depends on the CUDA runtime and the
// C++ standard library only. Same spirit and names as absl::Status.
#ifndef STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_STATUS_H_
#define STREAMSCOPE_WORKLOADS_HARNESS_WORKLOAD_STATUS_H_

#include <cstdarg>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace streamscope::workloads {

enum class StatusCode { kOk, kInvalidArgument, kUnavailable, kResourceExhausted, kInternal };

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status InvalidArgumentError(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status ResourceExhaustedError(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// A value or an error. Move-only values (buffers, streams) are fine.
template <typename T>
class StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit like absl
    if (status_.ok()) status_ = InternalError("StatusOr built from an OK status without a value");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit like absl

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

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

namespace status_internal {
inline void Append(std::string& out, std::string_view piece) { out.append(piece); }
inline void Append(std::string& out, const char* piece) { out.append(piece); }
template <typename T>
requires std::is_integral_v<T>
void Append(std::string& out, T value) { out.append(std::to_string(value)); }
}  // namespace status_internal

// Concatenates strings and integers.
template <typename... Pieces>
std::string StrCat(const Pieces&... pieces) {
  std::string out;
  (status_internal::Append(out, pieces), ...);
  return out;
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
