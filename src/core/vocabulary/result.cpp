#include "keel/result.hpp"

namespace keel {

std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kPermissionDenied: return "permission_denied";
    case ErrorCode::kUnauthenticated: return "unauthenticated";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kDeadlineExceeded: return "deadline_exceeded";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kFailedPrecondition: return "failed_precondition";
    case ErrorCode::kResourceExhausted: return "resource_exhausted";
    case ErrorCode::kInternal: return "internal";
    case ErrorCode::kAborted: return "aborted";
  }
  return "unknown";
}

std::string Status::to_string() const {
  if (ok()) return "ok";
  std::string out(error_code_name(code_));
  out += ": ";
  out += message_;
  return out;
}

}  // namespace keel
