// mcp/http_exchange.hpp — what the two HTTP transports share: a pool of kept-alive sessions, the
// request headers of a server spec, reading a response body (event stream or JSON) into messages,
// and turning an HTTP error answer into a Status.
//
// Thread-safety: HttpSessionPool is thread-safe; a ResponseReader belongs to one transfer.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "keel/result.hpp"
#include "net/http_transport.hpp"
#include "net/sse_parser.hpp"
#include "mcp/http_client_transport.hpp"
#include "mcp/transport.hpp"

namespace keel::mcp::detail {

using Clock = std::chrono::steady_clock;

// The longest event (line or data) or JSON body accepted from a server, in bytes: a server that
// never ends a line or a body cannot make the client grow without bound.
inline constexpr size_t kMaxEventBytes = size_t{64} << 20;

// HTTP sessions (a libcurl handle each, with its kept-alive connection) lent to one request at a
// time, so that parallel sends each get one and sequential sends reuse the same connection.
class HttpSessionPool {
 public:
  // Returns its session to the pool when destroyed.
  class Lease {
   public:
    Lease(HttpSessionPool* pool, std::unique_ptr<keel::detail::HttpSession> session)
        : pool_(pool), session_(std::move(session)) {}
    Lease(Lease&&) = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    keel::detail::HttpSession& operator*() const { return *session_; }
    keel::detail::HttpSession* operator->() const { return session_.get(); }

   private:
    HttpSessionPool* pool_;
    std::unique_ptr<keel::detail::HttpSession> session_;
  };

  // An idle session, or a new one when all are busy (the pool never makes a caller wait).
  Lease acquire();

 private:
  static constexpr size_t kMaxIdle = 4;  // sessions kept between requests (more are closed)
  std::mutex mutex_;
  std::vector<std::unique_ptr<keel::detail::HttpSession>> idle_;
};

// Checks that spec.url is an http(s) URL and that no header name or value could break the request
// (empty name, line breaks); the message names what is wrong.
Status check_spec(const HttpServerSpec& spec);
// The spec's extra headers as "Name: value" lines, without those the transports set themselves
// (Accept, Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID), which would clash.
std::vector<std::string> header_lines(const HttpServerSpec& spec);

// Whether the spec's authorizer answers the server's 401/403: it is set and no Authorization
// header of the operator's overrides it.
bool uses_authorizer(const HttpServerSpec& spec);
// header_lines() plus "Authorization: Bearer <token>" when the authorizer applies and has a token.
std::vector<std::string> header_lines_with_token(const HttpServerSpec& spec);
// The most tokens one message may obtain before its 401/403 is taken as the answer.
inline constexpr int kMaxChallenges = 3;

// Whether `content_type` ("Text/Event-Stream; charset=utf-8") is `media_type` ("text/event-stream").
bool has_media_type(std::string_view content_type, std::string_view media_type);

// The concatenation of strings, literals and string_views (built by appending: GCC 12 warns
// falsely on chains of std::string operator+ with short literals).
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string out;
  (out.append(std::string_view(parts)), ...);
  return out;
}

// At most `max` bytes of `text` on one line, for messages ("..." marks a cut).
std::string excerpt(std::string_view text, size_t max = 200);

// Delivers a JSON text: an object through on_message, an array element by element; anything else
// (not JSON, a scalar) goes to on_garbage with an excerpt. `source` names the sender in messages.
void deliver_json_text(std::string_view text, const TransportCallbacks& callbacks, std::string_view source);

// The Status of an HTTP answer that is not 2xx, for a request to `url`: 401/403 kUnauthenticated
// (quoting WWW-Authenticate from head.captured), 3xx and other 4xx kInvalidArgument with the server's
// message, 5xx and anything else kUnavailable. `body` is (the start of) the answer's body.
Status http_error(long status, const keel::detail::HttpHead& head, std::string_view body, std::string_view url);

// Sleeps until `until`; false when `stop` fired first.
bool sleep_until(Clock::time_point until, const std::stop_token& stop);

// Milliseconds left before `deadline` as a libcurl timeout: rounded up with a hair of slack, and at
// least 1 (0 would mean "no limit").
int64_t ms_until(Clock::time_point deadline);

// Consumes the body of one HTTP response. A 2xx event stream is parsed as it arrives: each event's
// data is delivered as messages (empty data is a priming event: only its id counts), other event
// types go to on_other_event; once keep_reading() turns false the stream may linger briefly. Any other 2xx body is kept
// whole for deliver_body() (a JSON answer); an error body is kept in part, for http_error().
class ResponseReader {
 public:
  // `stream` (built with kMaxEventBytes) carries the event id and retry delay across
  // reconnections and must outlive the reader. `keep_reading` is asked after each delivered
  // message; false ends the transfer.
  ResponseReader(keel::detail::SseParser& stream, const TransportCallbacks& callbacks, std::string source,
                 std::function<bool()> keep_reading);

  // Events of another type than "message" (the legacy `endpoint` event); returning false ends
  // the transfer. Unset: such events are ignored.
  std::function<bool(const keel::detail::SseEvent&)> on_other_event;

  // For HttpRequest::on_body.
  bool on_body(const keel::detail::HttpHead& head, std::string_view bytes);
  // For HttpRequest::still_wanted: once keep_reading() turned false, the stream gets kLinger to
  // end by itself (a cleanly ended response leaves its connection reusable) before it is dropped.
  bool still_wanted() const { return !satisfied_ || Clock::now() < satisfied_at_ + kLinger; }
  // Both hooks of `request` pointed at this reader.
  void attach(keel::detail::HttpRequest& request);
  // Delivers a kept 2xx body (after the transfer); an empty body delivers nothing.
  void deliver_body();

  bool is_stream() const { return mode_ == Mode::kStream; }
  // keep_reading() turned false after a delivered message: the awaited response is in.
  bool satisfied() const { return satisfied_; }
  // A body or event over kMaxEventBytes ended the transfer.
  bool oversized() const { return oversized_; }
  // on_other_event asked to end the transfer.
  bool stopped_by_event() const { return stopped_by_event_; }
  const std::string& body() const { return body_; }

 private:
  static constexpr std::chrono::milliseconds kLinger{250};
  enum class Mode { kUndecided, kStream, kBody, kError };
  bool on_event(const keel::detail::SseEvent& event);

  keel::detail::SseParser& stream_;
  const TransportCallbacks& callbacks_;
  std::string source_;
  std::function<bool()> keep_reading_;
  Mode mode_ = Mode::kUndecided;
  std::string body_;
  bool satisfied_ = false;
  Clock::time_point satisfied_at_;
  bool oversized_ = false;
  bool stopped_by_event_ = false;
};

}  // namespace keel::mcp::detail
