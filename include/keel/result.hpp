// keel/result.hpp — the one error channel of keel's public API.
//
// Every fallible call returns a Status or a Result<T>. A Status carries a canonical code and a
// message written for the person who will read it ("cannot read 'x.txt': no such file"), never a
// bare errno. Exceptions never cross the public API.
//
//   keel::Result<int> parse_port(std::string_view s);
//   KEEL_ASSIGN_OR_RETURN(int port, parse_port(arg));   // early return on error
//   KEEL_TRY(registry.add(std::move(tool)));             // early return on error
//
// Thread-safety: values; safe to copy between threads.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace keel {

// Canonical error codes (the abseil/gRPC set keel needs).
enum class ErrorCode {
  kOk = 0,
  kInvalidArgument,     // the caller's input is wrong; retrying will not help
  kNotFound,            // a named thing does not exist
  kPermissionDenied,    // refused by policy (workspace confinement, approval)
  kUnauthenticated,     // credentials missing or rejected (HTTP 401)
  kUnavailable,         // transient: connection refused, 5xx, 429 after retries
  kDeadlineExceeded,    // a timeout fired
  kCancelled,           // the caller asked to stop
  kFailedPrecondition,  // the system is not in a state to do this
  kResourceExhausted,   // a limit was hit (size, rounds, memory)
  kInternal,            // a bug in keel
  kAborted,             // a run ended early by a guard or the model's broken output
};

// Stable lowercase name of a code, e.g. "invalid_argument". Used in JSON events.
std::string_view error_code_name(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return {}; }
  static Status InvalidArgument(std::string m) { return {ErrorCode::kInvalidArgument, std::move(m)}; }
  static Status NotFound(std::string m) { return {ErrorCode::kNotFound, std::move(m)}; }
  static Status PermissionDenied(std::string m) { return {ErrorCode::kPermissionDenied, std::move(m)}; }
  static Status Unauthenticated(std::string m) { return {ErrorCode::kUnauthenticated, std::move(m)}; }
  static Status Unavailable(std::string m) { return {ErrorCode::kUnavailable, std::move(m)}; }
  static Status DeadlineExceeded(std::string m) { return {ErrorCode::kDeadlineExceeded, std::move(m)}; }
  static Status Cancelled(std::string m) { return {ErrorCode::kCancelled, std::move(m)}; }
  static Status FailedPrecondition(std::string m) { return {ErrorCode::kFailedPrecondition, std::move(m)}; }
  static Status ResourceExhausted(std::string m) { return {ErrorCode::kResourceExhausted, std::move(m)}; }
  static Status Internal(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }
  static Status Aborted(std::string m) { return {ErrorCode::kAborted, std::move(m)}; }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "invalid_argument: <message>", or "ok".
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

// A value or a non-ok Status. Accessing value() of an error is a precondition violation.
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}                    // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {}             // NOLINT: implicit by design
  Result(ErrorCode code, std::string msg) : v_(Status(code, std::move(msg))) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // The error; Status::Ok() when a value is held.
  Status status() const { return ok() ? Status::Ok() : std::get<1>(v_); }
  T value_or(T fallback) const& { return ok() ? value() : std::move(fallback); }

 private:
  std::variant<T, Status> v_;
};

namespace detail {
inline Status to_status(Status s) { return s; }
template <class T>
Status to_status(const Result<T>& r) { return r.status(); }
}  // namespace detail

}  // namespace keel

#define KEEL_CONCAT_INNER_(a, b) a##b
#define KEEL_CONCAT_(a, b) KEEL_CONCAT_INNER_(a, b)

// Evaluates a Status- or Result-returning expression and returns its error from the caller.
#define KEEL_TRY(expr)                                            \
  do {                                                            \
    ::keel::Status keel_try_status_ = ::keel::detail::to_status(expr); \
    if (!keel_try_status_.ok()) return keel_try_status_;          \
  } while (0)

// `KEEL_ASSIGN_OR_RETURN(auto x, f());` binds the value or returns the error.
#define KEEL_ASSIGN_OR_RETURN(lhs, expr) \
  KEEL_ASSIGN_OR_RETURN_IMPL_(KEEL_CONCAT_(keel_result_, __LINE__), lhs, expr)
#define KEEL_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
