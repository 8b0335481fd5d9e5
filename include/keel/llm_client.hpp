// keel/llm_client.hpp — the interface every model backend implements (OpenAI-compatible HTTP, the
// deterministic rules model, and later Anthropic and in-process llama.cpp).
//
// A backend turns a ModelRequest into a ModelReply. Streaming is a callback; cancellation is a
// stop token. Errors are values: a backend never throws.
//
// Error codes a backend returns (the CLI maps all of them to exit code 4):
//   kInvalidArgument (HTTP 400), kUnauthenticated (401), kPermissionDenied (403), kNotFound (404),
//   kUnavailable (connection errors, 408/409/429/5xx once retries are spent, a broken or truncated
//   reply), kDeadlineExceeded (request or stream-idle timeout), kCancelled (stop requested).
//
// Thread-safety: an LlmClient may be called from one thread at a time unless it says otherwise.
#pragma once

#include <cstdint>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>

#include "keel/model_io.hpp"
#include "keel/result.hpp"

namespace keel {

struct CallOptions {
  bool stream = true;  // ask for a streamed reply when the backend supports it
  std::function<void(std::string_view)> on_text;       // visible text as it arrives
  std::function<void(std::string_view)> on_reasoning;  // reasoning text as it arrives
  // Called before each retry: attempt (1-based, the one that failed), why, and the wait chosen.
  std::function<void(int attempt, const Status& why, int64_t delay_ms)> on_retry;
  std::stop_token stop;  // request_stop() cancels the call promptly with kCancelled
  // Overall deadline for this call in milliseconds (kDeadlineExceeded when it passes); 0 uses the
  // backend's configured request timeout. The preflight planner uses a short one.
  int64_t timeout_ms = 0;
};

class LlmClient {
 public:
  virtual ~LlmClient() = default;
  // Sends the request and returns the complete, normalized reply.
  virtual Result<ModelReply> complete(const ModelRequest& request, const CallOptions& options) = 0;
  // A short human description, e.g. "openai-compatible http://127.0.0.1:11434/v1 (qwen2.5:7b)".
  virtual std::string describe() const = 0;
};

}  // namespace keel
