// Interpretation of one Messages API HTTP response; see anthropic_reader.hpp.
#include "llm/anthropic_reader.hpp"

#include <chrono>
#include <utility>

#include "llm/anthropic_wire.hpp"
#include "llm/openai_wire.hpp"
#include "llm/retry_policy.hpp"
#include "llm/stream_assembler.hpp"

namespace keel::detail {
namespace {

// No sane message is this large; a runaway server must not exhaust memory.
constexpr size_t kMaxAnthropicBodyBytes = size_t{64} << 20;

bool anthropic_is_2xx(long status) { return status >= 200 && status <= 299; }

bool is_event_stream(std::string_view content_type) {
  for (size_t i = 0; i + 12 <= content_type.size(); ++i) {
    std::string_view part = content_type.substr(i, 12);
    bool same = true;
    for (size_t j = 0; j < part.size() && same; ++j) {
      const char c = part[j] >= 'A' && part[j] <= 'Z' ? static_cast<char>(part[j] - 'A' + 'a') : part[j];
      same = c == "event-stream"[j];
    }
    if (same) return true;
  }
  return false;
}

}  // namespace

AnthropicReader::AnthropicReader(const CallOptions& options, bool streaming, std::string url)
    : options_(options), streaming_(streaming), url_(std::move(url)), assembler_(options) {}

bool AnthropicReader::on_body(const HttpHead& head, std::string_view bytes) {
  received_ += bytes.size();
  if (received_ > kMaxAnthropicBodyBytes) {
    sink_error_ = Status::ResourceExhausted("reply from " + url_ + " is larger than 64 MiB; giving up");
    sink_retryable_ = false;
    return false;
  }
  if (!decided_) {
    decided_ = true;
    sse_ = streaming_ && anthropic_is_2xx(head.status) && is_event_stream(head.content_type);
  }
  if (!sse_) {
    body_.append(bytes);
    return true;
  }
  return parser_.feed(bytes, [this](const SseEvent& event) { return on_sse(event); });
}

bool AnthropicReader::on_sse(const SseEvent& event) {
  if (assembler_.stopped()) return true;  // nothing after message_stop matters
  Status status = assembler_.on_event(event.event, event.data);
  if (status.ok()) return true;
  sink_error_ = std::move(status);
  // An error event (e.g. overloaded_error) is transient; so is a garbled event. A throwing
  // callback (kInternal) is not.
  sink_retryable_ = sink_error_.code() == ErrorCode::kUnavailable;
  return false;
}

AttemptOutcome AnthropicReader::fail(Status status, bool retryable) const {
  AttemptOutcome out;
  out.reply = std::move(status);
  // A streamed attempt whose text already reached the caller must not be repeated.
  out.retryable = retryable && !assembler_.delivered();
  return out;
}

AttemptOutcome AnthropicReader::finish(const HttpOutcome& outcome) {
  switch (outcome.end) {
    case HttpEnd::kCancelled:
    case HttpEnd::kIdleTimeout:
      return fail(outcome.error, false);
    case HttpEnd::kAbortedByBody:
      return fail(sink_error_, sink_retryable_);
    case HttpEnd::kFailed:
      if (sse_ && assembler_.stopped()) return finish_stream();  // complete; only the close failed
      if (sse_ && outcome.error.code() == ErrorCode::kUnavailable) {
        return fail(Status::Unavailable("stream ended before message_stop: " + outcome.error.message()),
                    outcome.retryable);
      }
      return fail(outcome.error, outcome.retryable);
    case HttpEnd::kCompleted:
      break;
  }
  return sse_ ? finish_stream() : finish_buffered(outcome);
}

AttemptOutcome AnthropicReader::finish_stream() {
  if (!assembler_.stopped()) {
    const bool ok = parser_.finish([this](const SseEvent& event) { return on_sse(event); });
    if (!ok) return fail(sink_error_, sink_retryable_);
  }
  if (!assembler_.stopped()) {
    std::string message = "stream ended before message_stop: ";
    message += url_;
    message += " closed it after ";
    message += std::to_string(received_);
    message += " bytes; the partial answer was discarded";
    return fail(Status::Unavailable(std::move(message)), true);
  }
  AttemptOutcome out;
  out.reply = assembler_.take_reply();
  return out;
}

AttemptOutcome AnthropicReader::finish_buffered(const HttpOutcome& outcome) {
  const long status = outcome.head.status;
  if (!anthropic_is_2xx(status)) {
    AttemptOutcome out = fail(http_error_status(status, anthropic_server_message(body_), url_),
                              is_retryable_http_status(status));
    if (!outcome.head.retry_after.empty()) {
      out.retry_after_ms = parse_retry_after_ms(outcome.head.retry_after, std::chrono::system_clock::now());
    }
    return out;
  }
  if (streaming_ && body_.find("event:") != std::string::npos && body_.find("message_start") != std::string::npos) {
    // An event stream under the wrong Content-Type (some proxies relabel it).
    sse_ = true;
    const std::string body = std::move(body_);
    if (!parser_.feed(body, [this](const SseEvent& event) { return on_sse(event); })) {
      return fail(sink_error_, sink_retryable_);
    }
    return finish_stream();
  }
  Result<ModelReply> reply = parse_messages_reply(body_);
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
