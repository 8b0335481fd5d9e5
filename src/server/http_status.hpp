// server/http_status.hpp — status lines and the JSON error body every keel HTTP error uses:
//
//   {"error": {"code": "bad_request", "message": "malformed Content-Length: 'x'"}}
//
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

namespace keel::server {

// "OK", "Not Found", ...; "Unknown" for a status this server never sends.
std::string_view reason_phrase(int status);

// The stable error code for an error status: 400 "bad_request", 401 "unauthorized", 403 "forbidden",
// 404 "not_found", 405 "method_not_allowed", 406 "not_acceptable", 408 "request_timeout",
// 411 "length_required", 413 "payload_too_large", 415 "unsupported_media_type",
// 431 "header_too_large", 500 "internal", 503 "unavailable", 505 "http_version_not_supported";
// "error" for others.
std::string_view error_code_for_status(int status);

// The class of error OpenAI's and Anthropic's clients read from "type": authentication_error,
// permission_error, not_found_error, request_too_large, rate_limit_error, api_error (5xx), else
// invalid_request_error.
std::string_view error_type_for_code(std::string_view code);

// The JSON error body (compact, one line), one shape every client reads:
// {"type":"error","error":{"type","code","message","param":null}} — keel's own {"error":{"code",
// "message"}}, OpenAI's {"error":{"message","type","param","code"}} and Anthropic's
// {"type":"error","error":{"type","message"}} at once.
std::string json_error_body(std::string_view code, std::string_view message);

}  // namespace keel::server
