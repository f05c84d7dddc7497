// The one Status / StatusOr / StrCat of the code that may not use Abseil
// (here, beside the DDL, because schema/ is the code collector, workloads
// and analyzer share):
// the collector (a shared library injected into other processes, which must
// not carry Abseil's symbols: Debian's Abseil archives are not
// position-independent, and its shared libraries would be exposed to the
// application) and the reference workloads (which run where Abseil is not
// installed and depend on the CUDA runtime and the C++ standard library
// only). Same names and meaning as absl::Status, absl::StatusOr and
// absl::StrCat, header-only. The analyzer uses Abseil itself.
// collector/status.h and workloads/harness/workload_status.h bring these
// names into their namespaces and add what only they need.
// Thread-safe (value types).
#ifndef STREAMSCOPE_SCHEMA_STATUS_H_
#define STREAMSCOPE_SCHEMA_STATUS_H_

#include <charconv>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace streamscope::common {

enum class StatusCode {
  kOk,
  kInvalidArgument,
  kNotFound,
  kAlreadyExists,
  kPermissionDenied,
  kFailedPrecondition,
  kResourceExhausted,
  kUnavailable,
  kUnimplemented,
  kInternal,
};

class [[nodiscard]] Status {
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
inline Status NotFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status AlreadyExistsError(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status PermissionDeniedError(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
inline Status FailedPreconditionError(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status ResourceExhaustedError(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status UnimplementedError(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

// A value or an error. Move-only values (buffers, streams) are fine.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(Status status) : v_(std::move(status)) {  // NOLINT: implicit like absl
    if (std::get<Status>(v_).ok())
      v_ = Status(StatusCode::kInternal, "StatusOr built from an OK status without a value");
  }
  StatusOr(T value) : v_(std::move(value)) {}  // NOLINT: implicit like absl
  template <typename U,
            typename = std::enable_if_t<std::is_convertible_v<U&&, T> && !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, T>>>
  StatusOr(U&& value) : v_(T(std::forward<U>(value))) {}  // NOLINT
  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<Status, T> v_;
};

namespace status_internal {
inline void Append(std::string& out, std::string_view s) { out.append(s); }
inline void Append(std::string& out, const char* s) { out.append(s ? s : "(null)"); }
inline void Append(std::string& out, const std::string& s) { out.append(s); }
inline void Append(std::string& out, char c) { out.push_back(c); }
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
void Append(std::string& out, T v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof(buf), v);
  out.append(buf, r.ptr);
}
}  // namespace status_internal

// Concatenates strings, characters and integers.
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::string out;
  (status_internal::Append(out, args), ...);
  return out;
}

}  // namespace streamscope::common

#endif  // STREAMSCOPE_SCHEMA_STATUS_H_
