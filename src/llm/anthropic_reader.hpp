// Reads the HTTP response of one Messages API attempt and decides what it means: a reply, or a
// failure with whether another attempt may help (the AttemptOutcome of reply_reader.hpp).
//
// With streaming requested, a 2xx text/event-stream body is parsed incrementally and its deltas
// reach the caller's callbacks as they arrive; any other body (an error, or a JSON message) is
// buffered and parsed at the end.
//
// Thread-safety: not thread-safe; one reader per attempt.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "keel/llm_client.hpp"
#include "llm/anthropic_stream.hpp"
#include "net/http_transport.hpp"
#include "llm/reply_reader.hpp"
#include "net/sse_parser.hpp"

namespace keel::detail {

class AnthropicReader {
 public:
  // `options` must outlive the reader; `url` names the endpoint in error messages.
  AnthropicReader(const CallOptions& options, bool streaming, std::string url);

  // The HttpRequest::on_body sink.
  bool on_body(const HttpHead& head, std::string_view bytes);

  // Interprets the finished transfer.
  AttemptOutcome finish(const HttpOutcome& outcome);

 private:
  AttemptOutcome fail(Status status, bool retryable) const;
  AttemptOutcome finish_stream();
  AttemptOutcome finish_buffered(const HttpOutcome& outcome);
  bool on_sse(const SseEvent& event);

  const CallOptions& options_;
  bool streaming_;
  std::string url_;
  bool decided_ = false;  // whether the body is SSE has been decided (at its first byte)
  bool sse_ = false;
  size_t received_ = 0;
  std::string body_;  // buffered (non-SSE) body
  SseParser parser_;
  AnthropicStreamAssembler assembler_;
  Status sink_error_;  // why on_body aborted the transfer
  bool sink_retryable_ = false;
};

}  // namespace keel::detail
