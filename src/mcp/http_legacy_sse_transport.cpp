// The legacy HTTP+SSE client transport (protocol 2024-11-05); see http_client_transport.hpp.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>

#include "net/http_transport.hpp"
#include "net/sse_parser.hpp"
#include "mcp/http_client_transport.hpp"
#include "mcp/http_endpoint_url.hpp"
#include "mcp/http_exchange.hpp"

namespace keel::mcp {
namespace {

using detail::cat;
using detail::Clock;
using keel::detail::HttpEnd;
using keel::detail::HttpOutcome;
using keel::detail::HttpRequest;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

class LegacySseTransport final : public Transport {
 public:
  explicit LegacySseTransport(HttpServerSpec spec) : spec_(std::move(spec)) {}
  ~LegacySseTransport() override { stop_stream(); }

  Status start(TransportCallbacks callbacks, std::chrono::milliseconds timeout) override;
  Status send(const nlohmann::json& message, const SendOptions& options) override;
  void close(std::chrono::milliseconds grace) override {
    (void)grace;  // nothing to flush: the stream is simply ended
    closed_.store(true);
    stop_stream();
  }
  std::string describe() const override { return cat("http+sse: ", spec_.url); }

 private:
  void stream_loop(const std::stop_token& stop);
  bool challenged(const keel::detail::HttpOutcome& out, int challenges) const;
  Status stream_end(const keel::detail::HttpOutcome& out, const detail::ResponseReader& reader);
  bool on_event(const keel::detail::SseEvent& event);
  void stop_stream();

  const HttpServerSpec spec_;
  TransportCallbacks callbacks_;
  detail::HttpSessionPool pool_;
  std::stop_source closing_;  // ends the event stream and sends in flight
  std::atomic<bool> closed_{false};
  std::thread stream_thread_;

  std::mutex mutex_;  // guards the fields below
  std::condition_variable changed_;
  std::string endpoint_;  // the resolved POST URL; empty until the endpoint event
  bool stream_ended_ = false;
  Status stream_error_;  // why the stream ended
};

Status LegacySseTransport::start(TransportCallbacks callbacks, std::chrono::milliseconds timeout) {
  KEEL_TRY(detail::check_spec(spec_));
  if (stream_thread_.joinable() || closed_.load()) {
    return Status::FailedPrecondition(cat(describe(), ": start() may be called only once"));
  }
  callbacks_ = std::move(callbacks);
  stream_thread_ = std::thread([this, stop = closing_.get_token()] { stream_loop(stop); });
  std::unique_lock lock(mutex_);
  const bool settled = changed_.wait_for(lock, timeout, [this] { return !endpoint_.empty() || stream_ended_; });
  if (!endpoint_.empty()) return Status::Ok();
  Status why =
      settled
          ? stream_error_
          : Status::DeadlineExceeded(cat(spec_.url, " sent no endpoint event within ", std::to_string(timeout.count()),
                                         " ms; is it a legacy HTTP+SSE MCP server? (a Streamable "
                                         "HTTP server needs the http transport)"));
  lock.unlock();
  closed_.store(true);
  stop_stream();
  return why;
}

bool LegacySseTransport::on_event(const keel::detail::SseEvent& event) {
  if (event.event != "endpoint") return true;  // other event types are not part of the protocol
  std::lock_guard lock(mutex_);
  if (!endpoint_.empty()) return true;  // announced once; a repeat changes nothing
  Result<std::string> url = detail::resolve_endpoint_url(spec_.url, trim(event.data));
  if (!url.ok()) {
    stream_error_ = url.status();
    return false;
  }
  endpoint_ = std::move(url).value();
  changed_.notify_all();
  return true;
}

// Whether `out` is a 401/403 the authorizer may answer (at most kMaxChallenges times per message).
bool LegacySseTransport::challenged(const HttpOutcome& out, int challenges) const {
  return (out.head.status == 401 || out.head.status == 403) && out.end == HttpEnd::kCompleted &&
         detail::uses_authorizer(spec_) && challenges < detail::kMaxChallenges;
}

// Why the event stream `out` (read by `reader`) ended: an event that stopped it, a failed
// request, an error status, a body that is no event stream, an oversized event, or the end.
Status LegacySseTransport::stream_end(const HttpOutcome& out, const detail::ResponseReader& reader) {
  const long status = out.head.status;
  if (reader.stopped_by_event()) {
    std::lock_guard lock(mutex_);
    return stream_error_;
  }
  if (out.end == HttpEnd::kFailed && !(reader.is_stream() && out.connection_lost)) return out.error;
  if (status < 200 || status >= 300) return detail::http_error(status, out.head, reader.body(), spec_.url);
  if (!reader.is_stream() && out.end == HttpEnd::kCompleted && !out.head.content_type.empty() &&
      !detail::has_media_type(out.head.content_type, "text/event-stream")) {
    return Status::Unavailable(cat(spec_.url, " answered with ", out.head.content_type,
                                   ", not an event stream; is it a legacy HTTP+SSE MCP server?"));
  }
  if (reader.oversized()) {
    return Status::ResourceExhausted(cat(spec_.url, " sent an event over 64 MiB on its event stream"));
  }
  return Status::Unavailable(cat("the event stream of ", spec_.url,
                                 out.connection_lost ? " broke (" : " ended (the MCP server closed it",
                                 out.connection_lost ? out.error.message() : "", ")"));
}

void LegacySseTransport::stream_loop(const std::stop_token& stop) {
  keel::detail::HttpSession http;
  keel::detail::SseParser stream(detail::kMaxEventBytes);
  HttpRequest get;
  get.method = "GET";
  get.url = spec_.url;
  get.target = spec_.url;
  get.capture_headers = {"www-authenticate", "location"};
  get.connect_timeout_ms = spec_.connect_timeout_ms;
  get.stop = stop;
  std::optional<detail::ResponseReader> attempt;  // one per request: it settles on the answer's kind
  HttpOutcome out;
  Status why;
  for (int challenges = 0;; ++challenges) {
    get.headers = detail::header_lines_with_token(spec_);
    get.headers.push_back("Accept: text/event-stream");
    attempt.emplace(stream, callbacks_, describe(), nullptr);
    attempt->on_other_event = [this](const keel::detail::SseEvent& event) { return on_event(event); };
    attempt->attach(get);
    out = http.perform(get);
    if (!challenged(out, challenges)) break;
    // The server wants a (better) token: get one (OAuth), then open the stream again.
    why = spec_.authorizer->answer_challenge(out.head.status, out.head.header("www-authenticate"), stop);
    if (!why.ok()) break;
    stream.reset_connection();
  }
  if (why.ok()) why = stream_end(out, *attempt);  // else no token could be had: the authorizer said why
  bool had_endpoint;
  {
    std::lock_guard lock(mutex_);
    had_endpoint = !endpoint_.empty();
    stream_ended_ = true;
    stream_error_ = why;
  }
  changed_.notify_all();
  if (stop.stop_requested() || closed_.load() || !had_endpoint) return;  // a close() or a failed start()
  if (callbacks_.on_closed) callbacks_.on_closed(std::move(why));
}

Status LegacySseTransport::send(const nlohmann::json& message, const SendOptions& options) {
  std::string endpoint;
  {
    std::lock_guard lock(mutex_);
    endpoint = endpoint_;
  }
  if (closed_.load()) return Status::Unavailable(cat(describe(), " is closed; open a new connection"));
  if (endpoint.empty()) {
    return Status::FailedPrecondition(cat(describe(), " has no message endpoint; start() must succeed first"));
  }
  std::string body;
  try {
    body = message.dump();
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(cat("cannot encode the MCP message: ", e.what()));
  }
  std::stop_source stop;
  const std::stop_callback on_caller_stop(options.stop, [&stop] { stop.request_stop(); });
  const std::stop_callback on_close(closing_.get_token(), [&stop] { stop.request_stop(); });
  const Clock::time_point deadline = Clock::now() + options.timeout;

  HttpRequest post;
  post.url = endpoint;
  post.target = endpoint;
  post.body = std::move(body);
  post.capture_headers = {"www-authenticate", "location"};
  post.stop = stop.get_token();
  // The answer is a bare acknowledgement; messages come on the stream.
  keel::detail::SseParser unused(detail::kMaxEventBytes);
  std::optional<detail::ResponseReader> attempt;  // one per request: it settles on the answer's kind
  HttpOutcome out;
  for (int challenges = 0;; ++challenges) {
    // The token goes to the message endpoint too: resolve_endpoint_url kept it on the server's origin.
    post.headers = detail::header_lines_with_token(spec_);
    post.headers.push_back("Content-Type: application/json");
    post.headers.push_back("Accept: application/json, text/event-stream");
    post.headers.push_back("Expect:");  // no 100-continue round trip for larger bodies
    post.total_timeout_ms = detail::ms_until(deadline);
    post.connect_timeout_ms = std::min(spec_.connect_timeout_ms, post.total_timeout_ms);
    attempt.emplace(unused, callbacks_, describe(), nullptr);
    attempt->attach(post);
    out = pool_.acquire()->perform(post);
    if (!challenged(out, challenges)) break;
    KEEL_TRY(spec_.authorizer->answer_challenge(out.head.status, out.head.header("www-authenticate"), post.stop));
  }
  switch (out.end) {
    case HttpEnd::kCancelled:
      return Status::Cancelled(cat("sending a message to ", endpoint,
                                   closed_.load() ? " stopped: the connection was closed" : " was cancelled"));
    case HttpEnd::kFailed:
      if (out.error.code() == ErrorCode::kDeadlineExceeded || Clock::now() >= deadline) {
        return Status::DeadlineExceeded(cat("sending a message to ", endpoint, " took longer than ",
                                            std::to_string(options.timeout.count()), " ms"));
      }
      return out.error;
    default:
      break;
  }
  if (out.head.status >= 200 && out.head.status < 300) return Status::Ok();
  return detail::http_error(out.head.status, out.head, attempt->body(), endpoint);
}

void LegacySseTransport::stop_stream() {
  closing_.request_stop();
  if (!stream_thread_.joinable()) return;
  if (stream_thread_.get_id() == std::this_thread::get_id()) {
    stream_thread_.detach();  // closed from a callback on the stream thread: it ends by itself
    return;
  }
  stream_thread_.join();
}

}  // namespace

std::unique_ptr<Transport> make_legacy_sse_transport(HttpServerSpec spec) {
  return std::make_unique<LegacySseTransport>(std::move(spec));
}

}  // namespace keel::mcp
