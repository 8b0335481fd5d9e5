// api/openai_error.hpp — an error as the OpenAI-compatible endpoints answer it.
//
// Thread-safety: plain value.
#pragma once

#include <string>

namespace keel::api {

// An OpenAI-style error: {"error":{"message","type","param","code"}} with an HTTP status.
struct OpenAiError {
  int status = 400;
  std::string message;                         // what was wrong, with the value, and what to do
  std::string type = "invalid_request_error";  // invalid_request_error | server_error | ...
  std::string param;                           // the offending field ("messages[2].content"); empty: null
  std::string code;                            // a stable code ("model_not_found"); empty: null
  bool retryable = true;                       // false: sent with "x-should-retry: false"
};

}  // namespace keel::api
