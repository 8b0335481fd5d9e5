// Status phrases and JSON error bodies; see http_status.hpp.
#include "server/http_status.hpp"

#include <nlohmann/json.hpp>

namespace keel::server {

std::string_view reason_phrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 202: return "Accepted";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 411: return "Length Required";
    case 413: return "Content Too Large";
    case 415: return "Unsupported Media Type";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string_view error_code_for_status(int status) {
  switch (status) {
    case 400: return "bad_request";
    case 401: return "unauthorized";
    case 403: return "forbidden";
    case 404: return "not_found";
    case 405: return "method_not_allowed";
    case 406: return "not_acceptable";
    case 408: return "request_timeout";
    case 409: return "conflict";
    case 411: return "length_required";
    case 413: return "payload_too_large";
    case 415: return "unsupported_media_type";
    case 429: return "too_many_requests";
    case 431: return "header_too_large";
    case 500: return "internal";
    case 501: return "not_implemented";
    case 503: return "unavailable";
    case 505: return "http_version_not_supported";
    default: return "error";
  }
}

std::string_view error_type_for_code(std::string_view code) {
  if (code == "unauthorized") return "authentication_error";
  if (code == "forbidden" || code == "host_not_allowed" || code == "origin_not_allowed") return "permission_error";
  if (code == "not_found") return "not_found_error";
  if (code == "payload_too_large") return "request_too_large";
  if (code == "too_many_requests") return "rate_limit_error";
  if (code == "internal" || code == "unavailable" || code == "not_implemented") return "api_error";
  return "invalid_request_error";
}

std::string json_error_body(std::string_view code, std::string_view message) {
  nlohmann::json body;
  body["type"] = "error";
  body["error"]["type"] = error_type_for_code(code);
  body["error"]["code"] = code;
  body["error"]["message"] = message;
  body["error"]["param"] = nullptr;
  // replace: a message quoting client bytes must never make dump() throw on invalid UTF-8.
  return body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace keel::server
