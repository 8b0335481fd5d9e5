// Reads the HTTP response of one chat-completion attempt and decides what it means: a reply, or a
// failure with whether another attempt may help.
//
// With streaming requested, a 2xx text/event-stream body is parsed incrementally (SSE) and its
// deltas reach the caller's callbacks as they arrive; any other body (an error, or a server that
// answered a streaming request with plain JSON) is buffered and parsed at the end.
//
// Thread-safety: not thread-safe; one reader per attempt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "keel/llm_client.hpp"
#include "keel/model_io.hpp"
#include "keel/result.hpp"
#include "net/http_transport.hpp"
#include "net/sse_parser.hpp"
#include "llm/stream_assembler.hpp"

namespace keel::detail {

// The result of one attempt.
struct AttemptOutcome {
  Result<ModelReply> reply = Status::Internal("attempt not run");
  bool retryable = false;                 // another attempt may succeed (and is safe)
  std::optional<int64_t> retry_after_ms;  // the server's Retry-After, when it sent one
};

class ReplyReader {
 public:
  // `options` must outlive the reader; `url` names the endpoint in error messages.
  ReplyReader(const CallOptions& options, bool streaming, std::string url);

  // The HttpRequest::on_body sink.
  bool on_body(const HttpHead& head, std::string_view bytes);

  // Interprets the finished transfer.
  AttemptOutcome finish(const HttpOutcome& outcome);

 private:
  AttemptOutcome fail(Status status, bool retryable) const;
  AttemptOutcome finish_stream(const HttpOutcome& outcome);
  AttemptOutcome finish_buffered(const HttpOutcome& outcome);
  bool feed_sse(std::string_view bytes);
  bool flush_sse();
  Status stream_error_status(const Status& from_assembler) const;

  const CallOptions& options_;
  bool streaming_;
  std::string url_;
  bool decided_ = false;  // whether the body is SSE has been decided (at its first byte)
  bool sse_ = false;
  size_t received_ = 0;
  std::string body_;         // buffered (non-SSE) body
  SseParser parser_;
  StreamAssembler assembler_;
  Status sink_error_;        // why on_body aborted the transfer
  bool sink_retryable_ = false;
};

}  // namespace keel::detail
