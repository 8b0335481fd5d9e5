// tools/a2a/a2a_http.hpp — the HTTP exchanges of an A2A client, as a function the client is given:
// the real one goes through the net layer's HttpSession (no redirects followed, prompt
// cancellation, the environment's proxy settings as for the model clients); tests give their own.
//
// Thread-safety: the function make_a2a_http() returns may be called from any thread; calls are
// served one at a time (they share one kept-alive connection).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <vector>

#include "keel/result.hpp"

namespace keel::detail {

// One request.
struct A2aHttpCall {
  std::string method = "POST";  // "GET" or "POST"
  std::string url;
  std::vector<std::string> headers;  // "Name: value" lines
  std::string body;                  // POST only
  int64_t timeout_ms = 0;            // the whole exchange; >= 1
  int64_t connect_timeout_ms = 0;    // TCP/TLS connect; >= 1
  std::stop_token stop;              // a stop request aborts the exchange (kCancelled)
};

// Its answer: any HTTP status (the caller decides what a non-2xx means).
struct A2aHttpAnswer {
  long status = 0;
  std::string content_type;
  std::string body;
};

// Errors: kDeadlineExceeded (timeout_ms passed), kCancelled (stop), kUnavailable (connection),
// kResourceExhausted (a body over the limit), kInvalidArgument (a bad URL).
using A2aHttp = std::function<Result<A2aHttpAnswer>(const A2aHttpCall&)>;

// The real exchange. Bodies longer than `max_response_bytes` fail the request; `target` names the
// server in messages (the agent's configured URL).
A2aHttp make_a2a_http(size_t max_response_bytes, std::string target);

}  // namespace keel::detail
