// keel/openai_client.hpp — a backend for any OpenAI-compatible POST {base}/chat/completions
// endpoint (OpenAI, llama.cpp server, Ollama, vLLM, LM Studio, ...), spoken over libcurl.
//
//   keel::OpenAiOptions o;
//   o.base_url = "http://127.0.0.1:11434/v1";
//   o.model = "qwen2.5:7b";
//   std::unique_ptr<keel::LlmClient> llm = keel::make_openai_client(std::move(o));
//   keel::Result<keel::ModelReply> reply = llm->complete(request, call_options);
//
// The client keeps one HTTP connection alive between calls, streams replies as Server-Sent Events
// when CallOptions::stream is set, retries transient failures with jittered exponential backoff,
// and reports every failure as a Status (see llm_client.hpp for the codes).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "keel/llm_client.hpp"
#include "keel/result.hpp"

namespace keel {

// How failed attempts are retried. Retried: HTTP 408, 409, 429 and 5xx, connection-level failures
// (refused, reset, closed without a reply, timed out while connecting) and unusable 200 replies
// (invalid JSON, a truncated stream). A streamed attempt is retried only while none of its text
// has reached CallOptions::on_text / on_reasoning, so a caller never sees text twice.
struct RetryOptions {
  // Attempts in total, the first included; values below 1 act as 1 (no retry).
  int max_attempts = 4;
  // Upper bound of the wait before the first retry. Waits use "full jitter": a uniform random
  // value in [0, min(max_delay_ms, initial_delay_ms * multiplier^(attempt-1))].
  int64_t initial_delay_ms = 500;
  // Upper bound of any single wait. A server's Retry-After header (seconds or an HTTP date)
  // replaces the jittered wait but is capped at this value too: keel never sleeps longer than
  // this between attempts, and simply tries again (and waits again) if the server still refuses.
  int64_t max_delay_ms = 20000;
  // Growth factor of the wait bound per attempt; must be >= 1.
  double multiplier = 2.0;
};

struct OpenAiOptions {
  // Endpoint root, e.g. "https://api.openai.com/v1" or "http://127.0.0.1:11434/v1". Trailing
  // slashes are stripped; "/chat/completions" is appended unless the URL already ends with it.
  std::string base_url;
  // Sent as "Authorization: Bearer <api_key>"; empty sends no Authorization header.
  std::string api_key;
  // The "model" field of each request; empty omits the field (llama.cpp's server accepts that).
  std::string model;
  // Time allowed to establish the TCP (and TLS) connection; 0 uses libcurl's default.
  int64_t connect_timeout_ms = 10000;
  // Time allowed for a whole attempt, connecting and receiving included; 0 means no limit.
  // Hitting it fails the call with kDeadlineExceeded and is not retried. A call's own
  // CallOptions::timeout_ms, when set, bounds the whole call (retries and waits included) and
  // shortens this limit for the attempts that would outlive it.
  int64_t request_timeout_ms = 300000;
  // Streaming only: the longest silence tolerated (no byte received, measured from the start of
  // the attempt, so it also bounds the wait for the first byte). Hitting it fails the call with
  // kDeadlineExceeded and is not retried. Raise it for slow local models with long prompts;
  // 0 disables it.
  int64_t stream_idle_timeout_ms = 60000;
  // Ask for a final usage chunk when streaming (stream_options.include_usage). Turn off for
  // servers that reject unknown request fields.
  bool stream_usage = true;
  RetryOptions retry;
  // Extra request headers (name -> value), e.g. {"OpenAI-Organization", "org-..."}; they may
  // override the defaults keel sends (Content-Type, Accept, User-Agent, Authorization).
  std::map<std::string, std::string> extra_headers;
};

// Checks options without contacting the server: base_url must start with http:// or https://,
// timeouts and delays must not be negative, multiplier >= 1, header names and values must not
// contain line breaks. The messages say which field is wrong.
Status validate_openai_options(const OpenAiOptions& options);

// Creates the client. It never fails here: invalid options (see validate_openai_options) are
// reported by every complete() call as kInvalidArgument.
//
// Thread-safety of the returned client: complete() may be called from any thread; concurrent calls
// are serialised by an internal mutex (one HTTP connection, one request at a time). describe() is
// safe to call concurrently with anything.
std::unique_ptr<LlmClient> make_openai_client(OpenAiOptions options);

}  // namespace keel
