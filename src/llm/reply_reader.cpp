// Interpretation of one chat-completion HTTP response; see reply_reader.hpp.
#include "llm/reply_reader.hpp"

#include <chrono>
#include <utility>

#include "llm/openai_wire.hpp"
#include "llm/retry_policy.hpp"

namespace keel::detail {
namespace {

// No sane completion is this large; a runaway server must not exhaust memory.
constexpr size_t kMaxBodyBytes = size_t{64} << 20;

bool is_2xx(long status) { return status >= 200 && status <= 299; }

bool contains_ignoring_case(std::string_view haystack, std::string_view needle) {
  auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  for (size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    size_t j = 0;
    while (j < needle.size() && lower(haystack[i + j]) == needle[j]) ++j;
    if (j == needle.size()) return true;
  }
  return false;
}

// An event stream sent with the wrong Content-Type (some proxies relabel it).
bool looks_like_sse(std::string_view body) {
  while (!body.empty() && (body.front() == ' ' || body.front() == '\r' || body.front() == '\n')) {
    body.remove_prefix(1);
  }
  return body.starts_with("data:") || body.starts_with(":") || body.starts_with("event:");
}

}  // namespace

ReplyReader::ReplyReader(const CallOptions& options, bool streaming, std::string url)
    : options_(options), streaming_(streaming), url_(std::move(url)), assembler_(options) {}

bool ReplyReader::on_body(const HttpHead& head, std::string_view bytes) {
  received_ += bytes.size();
  if (received_ > kMaxBodyBytes) {
    sink_error_ = Status::ResourceExhausted("reply from " + url_ + " is larger than 64 MiB; giving up");
    sink_retryable_ = false;
    return false;
  }
  if (!decided_) {
    decided_ = true;
    sse_ = streaming_ && is_2xx(head.status) && contains_ignoring_case(head.content_type, "event-stream");
  }
  if (sse_) return feed_sse(bytes);
  body_.append(bytes);
  return true;
}

bool ReplyReader::feed_sse(std::string_view bytes) {
  return parser_.feed(bytes, [this](const SseEvent& event) {
    if (assembler_.done()) return true;  // nothing after [DONE] matters
    Status status = assembler_.on_data(event.data);
    if (status.ok()) return true;
    sink_error_ = stream_error_status(status);
    sink_retryable_ = sink_error_.code() == ErrorCode::kUnavailable;
    return false;
  });
}

bool ReplyReader::flush_sse() {
  return parser_.finish([this](const SseEvent& event) {
    if (assembler_.done()) return true;
    Status status = assembler_.on_data(event.data);
    if (status.ok()) return true;
    sink_error_ = stream_error_status(status);
    sink_retryable_ = sink_error_.code() == ErrorCode::kUnavailable;
    return false;
  });
}

Status ReplyReader::stream_error_status(const Status& from_assembler) const {
  const long http = assembler_.error_http_status();
  if (http == 0) return from_assembler;
  // An error event naming an HTTP status is classified like that status (400 is not transient).
  ErrorCode code = http_error_status(http, "", url_).code();
  if (is_retryable_http_status(http)) code = ErrorCode::kUnavailable;
  return Status(code, from_assembler.message());
}

AttemptOutcome ReplyReader::fail(Status status, bool retryable) const {
  AttemptOutcome out;
  out.reply = std::move(status);
  // A streamed attempt whose text already reached the caller must not be repeated.
  out.retryable = retryable && !assembler_.delivered();
  return out;
}

AttemptOutcome ReplyReader::finish(const HttpOutcome& outcome) {
  switch (outcome.end) {
    case HttpEnd::kCancelled:
    case HttpEnd::kIdleTimeout:
      return fail(outcome.error, false);
    case HttpEnd::kAbortedByBody:
      return fail(sink_error_, sink_retryable_);
    case HttpEnd::kFailed:
      if (!sse_) return fail(outcome.error, outcome.retryable);
      if (outcome.connection_lost && assembler_.finished()) {
        break;  // the answer was complete; only the trailing [DONE] or usage went missing
      }
      if (outcome.error.code() == ErrorCode::kUnavailable) {
        return fail(Status::Unavailable("stream ended before completion: " + outcome.error.message()),
                    outcome.retryable);
      }
      return fail(outcome.error, outcome.retryable);
    case HttpEnd::kCompleted:
      return sse_ ? finish_stream(outcome) : finish_buffered(outcome);
  }
  AttemptOutcome out;
  out.reply = assembler_.take_reply();
  return out;
}

AttemptOutcome ReplyReader::finish_stream(const HttpOutcome&) {
  if (!flush_sse()) return fail(sink_error_, sink_retryable_);
  if (!assembler_.done() && !assembler_.finished()) {
    return fail(Status::Unavailable("stream ended before completion: " + url_ + " closed it after " +
                                    std::to_string(received_) +
                                    " bytes without a finish_reason or [DONE]"),
                true);
  }
  AttemptOutcome out;
  out.reply = assembler_.take_reply();
  return out;
}

AttemptOutcome ReplyReader::finish_buffered(const HttpOutcome& outcome) {
  const long status = outcome.head.status;
  if (!is_2xx(status)) {
    AttemptOutcome out = fail(http_error_status(status, server_error_message(body_), url_),
                              is_retryable_http_status(status));
    if (!outcome.head.retry_after.empty()) {
      out.retry_after_ms = parse_retry_after_ms(outcome.head.retry_after, std::chrono::system_clock::now());
    }
    return out;
  }
  if (streaming_ && looks_like_sse(body_)) {
    sse_ = true;
    const std::string body = std::move(body_);
    if (!feed_sse(body)) return fail(sink_error_, sink_retryable_);
    return finish_stream(outcome);
  }
  Result<ModelReply> reply = parse_chat_completion(body_);
  if (!reply.ok()) return fail(reply.status(), true);  // invalid JSON or an error object: transient
  if (streaming_) {
    // A server that ignored "stream": the caller still sees the text through its callbacks.
    Status s = Status::Ok();
    if (!reply->reasoning.empty()) s = invoke_text_callback(options_.on_reasoning, reply->reasoning, "on_reasoning");
    if (s.ok() && !reply->text.empty()) s = invoke_text_callback(options_.on_text, reply->text, "on_text");
    if (!s.ok()) return fail(std::move(s), false);
  }
  AttemptOutcome out;
  out.reply = std::move(reply);
  return out;
}

}  // namespace keel::detail
