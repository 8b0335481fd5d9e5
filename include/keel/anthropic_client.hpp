// keel/anthropic_client.hpp — a backend for Anthropic's Messages API (POST {base}/v1/messages),
// spoken over libcurl.
//
//   keel::AnthropicOptions o;
//   o.api_key = std::getenv("ANTHROPIC_API_KEY");
//   o.model = "claude-sonnet-4-5";
//   std::unique_ptr<keel::LlmClient> llm = keel::make_anthropic_client(std::move(o));
//   keel::Result<keel::ModelReply> reply = llm->complete(request, call_options);
//
// keel's conversation is mapped onto the Messages format: system messages become the top-level
// `system` text, tool calls become `tool_use` blocks, tool results become `tool_result` blocks of a
// user message, and consecutive messages of one role are merged (the API requires alternation).
// Replies stream as Server-Sent Events when CallOptions::stream is set; transient failures (429,
// 5xx, 529 "overloaded", connection errors) are retried with jittered backoff and Retry-After, as
// the OpenAI-compatible client does (see keel/openai_client.hpp for RetryOptions).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "keel/llm_client.hpp"
#include "keel/openai_client.hpp"
#include "keel/result.hpp"

namespace keel {

struct AnthropicOptions {
  // API root, e.g. "https://api.anthropic.com" or a proxy. Trailing slashes are stripped;
  // "/v1/messages" is appended ("/messages" when the URL already ends with "/v1"), unless the URL
  // already ends with "/v1/messages".
  std::string base_url = "https://api.anthropic.com";
  // Sent as "x-api-key"; empty sends no key header (a proxy that adds its own).
  std::string api_key;
  // The "model" field of each request, e.g. "claude-sonnet-4-5"; must not be empty.
  std::string model;
  // The "max_tokens" field (the API requires one) unless the request's SamplingParams sets it; > 0.
  int max_tokens = 4096;
  // The "anthropic-version" header.
  std::string anthropic_version = "2023-06-01";
  // Time allowed to establish the TCP (and TLS) connection; 0 uses libcurl's default.
  int64_t connect_timeout_ms = 10000;
  // Time allowed for a whole attempt; 0 means no limit. Hitting it fails the call with
  // kDeadlineExceeded and is not retried. CallOptions::timeout_ms, when set, bounds the whole call.
  int64_t request_timeout_ms = 300000;
  // Streaming only: the longest silence tolerated (no byte received, the wait for the first byte
  // included); kDeadlineExceeded, not retried. The API sends `ping` events while it works. 0
  // disables it.
  int64_t stream_idle_timeout_ms = 60000;
  RetryOptions retry;
};

// Checks options without contacting the server: base_url must start with http:// or https://,
// model must be set, max_tokens > 0, timeouts and delays not negative, multiplier >= 1, no line
// breaks in header values. The messages name the wrong field.
Status validate_anthropic_options(const AnthropicOptions& options);

// Creates the client. It never fails here: invalid options are reported by every complete() call
// as kInvalidArgument.
//
// Errors of complete(): HTTP 400 kInvalidArgument, 401 kUnauthenticated, 403 kPermissionDenied,
// 404 kNotFound, each with Anthropic's error message; 429/5xx/529 and broken replies kUnavailable
// once retries are spent; an `error` event in a stream kUnavailable with its message; a stream that
// ends before `message_stop` kUnavailable (never a partial answer); kDeadlineExceeded; kCancelled.
//
// Thread-safety of the returned client: complete() may be called from any thread; concurrent calls
// are serialised by an internal mutex. describe() is safe to call concurrently with anything.
std::unique_ptr<LlmClient> make_anthropic_client(AnthropicOptions options);

}  // namespace keel
