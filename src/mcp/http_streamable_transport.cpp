// The Streamable HTTP client transport; see http_client_transport.hpp.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>

#include "core/text/text_util.hpp"
#include "net/http_transport.hpp"
#include "net/sse_parser.hpp"
#include "mcp/http_client_transport.hpp"
#include "mcp/mcp_param_headers.hpp"
#include "mcp/http_exchange.hpp"

namespace keel::mcp {
namespace {

using detail::cat;
using detail::Clock;
using keel::detail::HttpEnd;
using keel::detail::HttpOutcome;
using keel::detail::HttpRequest;
using std::chrono::milliseconds;

constexpr int kMaxQuietReconnects = 5;     // resumptions in a row that bring no new event
constexpr int64_t kDefaultRetryMs = 1000;  // reconnection delay when the server sent no `retry`
constexpr int kMaxListenFailures = 5;      // failed listen-stream attempts in a row before giving up
constexpr int64_t kMaxListenBackoffMs = 30000;
constexpr int64_t kListenOpenWaitMs = 2000;  // open_listen_stream() waits this long for the first answer
constexpr std::string_view kPostAccept = "application/json, text/event-stream";

// One send(): what it is, for messages, and its limits.
struct Exchange {
  std::string what;  // "the 'tools/call' request" or "a message"
  milliseconds timeout{0};
  Clock::time_point deadline;
  std::stop_token stop;                // the caller's stop request or close()
  std::function<bool()> keep_reading;  // false once the awaited response was delivered
  std::string session;                 // the session id the current request carried
};

class StreamableHttpTransport final : public Transport {
 public:
  explicit StreamableHttpTransport(HttpServerSpec spec) : spec_(std::move(spec)) {}
  // Stops the listen stream and any send in flight; the session is ended only by close().
  ~StreamableHttpTransport() override {
    shutdown();
    if (listen_thread_.joinable()) listen_thread_.detach();  // only when destroyed from its own callback
  }

  Status start(TransportCallbacks callbacks, std::chrono::milliseconds timeout) override {
    (void)timeout;  // nothing to connect before the first POST
    KEEL_TRY(detail::check_spec(spec_));
    callbacks_ = std::move(callbacks);
    return Status::Ok();
  }

  Status send(const nlohmann::json& message, const SendOptions& options) override;

  // True from 2026-07-28 on: requests mirror Mcp-Method and Mcp-Name from their bodies.
  bool mirrors_headers() const {
    std::lock_guard lock(mutex_);
    return !protocol_version_.empty() && protocol_version_ >= "2026-07-28";
  }

  void set_protocol_version(std::string version) override {
    if (version.find_first_of("\r\n") != std::string::npos) return;  // never a header injection
    std::lock_guard lock(mutex_);
    protocol_version_ = std::move(version);
  }

  // Returns once the server answered the first GET (or after kListenOpenWaitMs), so that a server
  // request sent on that stream right after (an elicitation during the next call) is not missed.
  void open_listen_stream() override {
    {
      std::lock_guard lock(mutex_);
      if (closed_.load() || listen_thread_.joinable()) return;
      listen_thread_ = std::thread([this, stop = closing_.get_token()] { listen_loop(stop); });
    }
    std::unique_lock lock(listen_mu_);
    listen_cv_.wait_for(lock, milliseconds(kListenOpenWaitMs), [this] { return listen_answered_; });
  }

  void close(std::chrono::milliseconds grace) override;

  std::string describe() const override { return cat("http: ", spec_.url); }

 private:
  HttpRequest make_request(std::string method, std::string_view accept, std::string* session) const;
  // Hands the client `body` when it is the JSON-RPC error response to the request with `id`.
  bool deliver_rpc_error(const std::string& body, const nlohmann::json& id) const;
  void listen_answered();  // the first listen GET got its head or ended
  Status outcome_status(const HttpOutcome& out, const detail::ResponseReader& reader, const Exchange& x);
  Status cancelled(const Exchange& x) const;
  Status deadline_exceeded(const Exchange& x) const;
  Status resume(keel::detail::SseParser& stream, Clock::time_point ended, Exchange& x);
  void remember_session(const HttpOutcome& out, bool initialize);
  void forget_session(const std::string& id);
  void listen_loop(const std::stop_token& stop);
  void notify_closed(Status why);
  void log(std::string line) const {
    if (callbacks_.on_log) callbacks_.on_log(std::move(line));
  }
  void shutdown();

  const HttpServerSpec spec_;
  TransportCallbacks callbacks_;
  detail::HttpSessionPool pool_;
  std::mutex listen_mu_;
  std::condition_variable listen_cv_;
  bool listen_answered_ = false;  // the first listen GET was answered (or failed)
  std::stop_source closing_;  // requested by close() and the destructor
  std::atomic<bool> closed_{false};
  std::atomic<bool> closed_notified_{false};

  mutable std::mutex mutex_;  // guards the fields below
  std::string session_id_;
  std::string protocol_version_;
  std::thread listen_thread_;
};

HttpRequest StreamableHttpTransport::make_request(std::string method, std::string_view accept,
                                                  std::string* session) const {
  HttpRequest r;
  r.method = std::move(method);
  r.url = spec_.url;
  r.target = spec_.url;
  r.headers = detail::header_lines_with_token(spec_);
  r.headers.push_back(std::string("Accept: ").append(accept));
  {
    std::lock_guard lock(mutex_);
    if (!session_id_.empty()) r.headers.push_back(cat("Mcp-Session-Id: ", session_id_));
    if (!protocol_version_.empty()) r.headers.push_back(cat("MCP-Protocol-Version: ", protocol_version_));
    if (session != nullptr) *session = session_id_;
  }
  r.capture_headers = {"mcp-session-id", "www-authenticate", "location"};
  r.connect_timeout_ms = spec_.connect_timeout_ms;
  return r;
}

void StreamableHttpTransport::remember_session(const HttpOutcome& out, bool initialize) {
  const std::string_view id = out.head.header("mcp-session-id");
  if (id.empty() || out.head.status < 200 || out.head.status >= 300) return;
  std::lock_guard lock(mutex_);
  if (initialize || session_id_.empty()) session_id_ = std::string(id);
}

void StreamableHttpTransport::forget_session(const std::string& id) {
  std::lock_guard lock(mutex_);
  if (session_id_ == id) session_id_.clear();
}

Status StreamableHttpTransport::cancelled(const Exchange& x) const {
  if (closed_.load())
    return Status::Cancelled(cat(x.what, " was abandoned: the connection to ", spec_.url, " was closed"));
  return Status::Cancelled(cat(x.what, " was cancelled before ", spec_.url, " answered"));
}

Status StreamableHttpTransport::deadline_exceeded(const Exchange& x) const {
  return Status::DeadlineExceeded(
      cat("no answer from ", spec_.url, " to ", x.what, " within ", std::to_string(x.timeout.count()), " ms"));
}

// The verdict on one finished request: ok for a 2xx answer (or a stream that broke: the caller
// decides whether to resume it), else the error to report.
Status StreamableHttpTransport::outcome_status(const HttpOutcome& out, const detail::ResponseReader& reader,
                                               const Exchange& x) {
  if (reader.satisfied()) return Status::Ok();  // the response is in, however the transfer ended
  switch (out.end) {
    case HttpEnd::kCancelled:
      return cancelled(x);
    case HttpEnd::kAbortedByBody:
      if (reader.oversized()) {
        return Status::ResourceExhausted(cat(spec_.url, " sent a message or event over ",
                                             std::to_string(detail::kMaxEventBytes >> 20),
                                             " MiB while answering ", x.what));
      }
      break;  // an error body, cut short: judged by its status below
    case HttpEnd::kCompleted:
      break;
    default:
      if (reader.is_stream() && out.connection_lost) return Status::Ok();  // resumable like a close
      if (out.error.code() == ErrorCode::kDeadlineExceeded || Clock::now() >= x.deadline) {
        return deadline_exceeded(x);
      }
      return out.error;
  }
  const long status = out.head.status;
  if (status >= 200 && status < 300) return Status::Ok();
  if (status == 404 && !x.session.empty()) {
    forget_session(x.session);
    return Status::Unavailable(cat("MCP session expired: ", spec_.url, " no longer knows session ", x.session,
                                   " (HTTP 404); start a new session with initialize"));
  }
  return detail::http_error(status, out.head, reader.body(), spec_.url);
}

Status StreamableHttpTransport::send(const nlohmann::json& message, const SendOptions& options) {
  if (closed_.load()) return Status::Unavailable(cat(describe(), " is closed; open a new connection"));
  std::string body;
  try {
    body = message.dump();
  } catch (const nlohmann::json::exception& e) {
    return Status::InvalidArgument(std::string("cannot encode the MCP message: ") + e.what());
  }
  const bool is_request = message.is_object() && message.contains("id") && message.contains("method");
  const std::string method = is_request && message["method"].is_string() ? message["method"].get<std::string>() : "";
  std::stop_source stop;
  const std::stop_callback on_caller_stop(options.stop, [&stop] { stop.request_stop(); });
  const std::stop_callback on_close(closing_.get_token(), [&stop] { stop.request_stop(); });

  Exchange x;
  x.what = is_request ? cat("the '", method, "' request") : std::string("a message");
  x.timeout = options.timeout;
  x.deadline = Clock::now() + options.timeout;
  x.stop = stop.get_token();
  x.keep_reading = [&options] { return !options.awaiting_response || options.awaiting_response(); };

  keel::detail::SseParser stream(detail::kMaxEventBytes);
  for (int challenges = 0;; ++challenges) {
    HttpRequest post = make_request("POST", kPostAccept, &x.session);
    post.body = body;
    post.headers.push_back("Content-Type: application/json");
    post.headers.push_back("Expect:");  // no 100-continue round trip for larger bodies
    if (mirrors_headers()) {
      for (std::string& line : standard_header_lines(message)) post.headers.push_back(std::move(line));
    }
    for (const std::string& line : options.headers) {
      if (line.find_first_of("\r\n") == std::string::npos) post.headers.push_back(line);  // never a header injection
    }
    post.total_timeout_ms = detail::ms_until(x.deadline);
    post.connect_timeout_ms = std::min(post.connect_timeout_ms, post.total_timeout_ms);
    post.stop = x.stop;
    detail::ResponseReader reader(stream, callbacks_, describe(), x.keep_reading);
    reader.attach(post);
    const HttpOutcome out = pool_.acquire()->perform(post);
    const Clock::time_point ended = Clock::now();
    remember_session(out, method == "initialize");
    const long status = out.head.status;
    if ((status == 401 || status == 403) && detail::uses_authorizer(spec_) && challenges < detail::kMaxChallenges &&
        out.end == HttpEnd::kCompleted) {
      // The server wants a (better) token: get one, then send the message again.
      KEEL_TRY(spec_.authorizer->answer_challenge(status, out.head.header("www-authenticate"), x.stop));
      stream.reset_connection();
      continue;
    }
    if (Status verdict = outcome_status(out, reader, x); !verdict.ok()) {
      // A 4xx whose body is the JSON-RPC error of this very request (MCP 2026-07-28 answers its
      // own refusals so: an unsupported version with the supported ones, an unknown method) goes
      // to the client as that response, which can act on it.
      if (is_request && status >= 400 && status < 500 && deliver_rpc_error(reader.body(), message["id"])) {
        return Status::Ok();
      }
      return verdict;
    }
    reader.deliver_body();
    if (!is_request || !options.awaiting_response || !options.awaiting_response()) return Status::Ok();
    if (!detail::has_media_type(out.head.content_type, "text/event-stream")) {
      return Status::Unavailable(
          cat(spec_.url, " answered ", x.what, " (HTTP ", std::to_string(out.head.status), ") without its response"));
    }
    return resume(stream, ended, x);
  }
}

bool StreamableHttpTransport::deliver_rpc_error(const std::string& body, const nlohmann::json& id) const {
  nlohmann::json answer = nlohmann::json::parse(body, nullptr, false);
  if (!answer.is_object() || !answer.contains("error") || !answer["error"].is_object() || answer.value("id", nlohmann::json()) != id) {
    return false;
  }
  if (callbacks_.on_message) callbacks_.on_message(std::move(answer));
  return true;
}

// The POST's event stream ended before the response: GET it again from the last event id, after
// the server's retry delay counted from the moment the stream ended.
Status StreamableHttpTransport::resume(keel::detail::SseParser& stream, Clock::time_point ended, Exchange& x) {
  int quiet = 0;  // reconnects in a row that brought no new event
  while (true) {
    if (stream.last_event_id().empty()) {
      return Status::Unavailable(cat("the server closed the stream before answering: ", spec_.url,
                                     " ended the event stream of ", x.what, " without an event id to resume from"));
    }
    if (quiet >= kMaxQuietReconnects) {
      return Status::Unavailable(cat(spec_.url, " ended the event stream of ", x.what, " ", std::to_string(quiet + 1),
                                     " times in a row without sending anything; gave up"));
    }
    ++quiet;
    const int64_t delay = stream.retry_ms().value_or(kDefaultRetryMs);
    const Clock::time_point at = ended + milliseconds(delay);
    if (!detail::sleep_until(std::min(at, x.deadline), x.stop)) return cancelled(x);
    if (at >= x.deadline) return deadline_exceeded(x);
    const std::string from = stream.last_event_id();
    log(cat(describe(), ": the stream of ", x.what, " ended; resuming from event ", from, " after ",
            std::to_string(delay), " ms"));
    stream.reset_connection();
    HttpRequest get = make_request("GET", "text/event-stream", &x.session);
    get.headers.push_back(cat("Last-Event-ID: ", from));
    get.total_timeout_ms = detail::ms_until(x.deadline);
    get.connect_timeout_ms = std::min(get.connect_timeout_ms, get.total_timeout_ms);
    get.stop = x.stop;
    detail::ResponseReader reader(stream, callbacks_, describe(), x.keep_reading);
    reader.attach(get);
    const HttpOutcome out = pool_.acquire()->perform(get);
    ended = Clock::now();
    if (Status s = outcome_status(out, reader, x); !s.ok()) {
      if (out.end == HttpEnd::kFailed && out.retryable && Clock::now() < x.deadline) {
        log(cat(describe(), ": resuming failed (", s.message(), "); trying again"));
        continue;
      }
      if (out.head.status == 405) {
        return Status::Unavailable(cat("the server closed the stream before answering: ", spec_.url,
                                       " ended the event stream of ", x.what,
                                       " and does not allow resuming it (GET answered HTTP 405)"));
      }
      return s;
    }
    reader.deliver_body();
    if (!x.keep_reading()) return Status::Ok();
    if (stream.last_event_id() != from) quiet = 0;
  }
}

void StreamableHttpTransport::listen_loop(const std::stop_token& stop) {
  keel::detail::HttpSession http;
  keel::detail::SseParser stream(detail::kMaxEventBytes);
  int failures = 0;
  while (!stop.stop_requested()) {
    std::string session;
    HttpRequest get = make_request("GET", "text/event-stream", &session);
    if (!stream.last_event_id().empty()) get.headers.push_back(cat("Last-Event-ID: ", stream.last_event_id()));
    get.stop = stop;
    stream.reset_connection();
    detail::ResponseReader reader(stream, callbacks_, describe(), nullptr);
    reader.attach(get);
    get.on_head = [this](const keel::detail::HttpHead&) { listen_answered(); };
    const HttpOutcome out = http.perform(get);
    listen_answered();
    const Clock::time_point ended = Clock::now();
    if (stop.stop_requested()) return;
    const long status = out.head.status;
    const bool streamed = status >= 200 && status < 300 &&
                          detail::has_media_type(out.head.content_type, "text/event-stream") &&
                          (out.end == HttpEnd::kCompleted || out.connection_lost);
    if (streamed) {
      failures = 0;
    } else {
      if (status == 405) return;  // the server offers no stream of its own messages
      if (status == 404 && !session.empty()) {
        forget_session(session);
        notify_closed(Status::Unavailable(cat("MCP session expired: ", spec_.url, " no longer knows session ", session,
                                              " (HTTP 404 on the listen stream); start a new session")));
        return;
      }
      Status why = out.error;
      if (reader.oversized()) {
        why = Status::ResourceExhausted("an event over 64 MiB");
      } else if (out.end != HttpEnd::kFailed) {
        why = status >= 200 && status < 300
                  ? Status::Unavailable(cat("HTTP ", std::to_string(status), " without an event stream"))
                  : detail::http_error(status, out.head, reader.body(), spec_.url);
      }
      if (why.code() == ErrorCode::kUnauthenticated || ++failures >= kMaxListenFailures) {
        log(cat(describe(), ": gave up the stream of server messages: ", why.message()));
        return;
      }
      log(cat(describe(), ": the stream of server messages failed (", why.message(), "); retrying"));
    }
    int64_t delay = stream.retry_ms().value_or(kDefaultRetryMs);
    if (failures > 0) delay = std::min<int64_t>(delay << (failures - 1), kMaxListenBackoffMs);
    if (!detail::sleep_until(ended + milliseconds(delay), stop)) return;
  }
}

void StreamableHttpTransport::listen_answered() {
  std::lock_guard lock(listen_mu_);
  if (listen_answered_) return;
  listen_answered_ = true;
  listen_cv_.notify_all();
}

void StreamableHttpTransport::notify_closed(Status why) {
  if (closed_.load() || closed_notified_.exchange(true)) return;
  if (callbacks_.on_closed) callbacks_.on_closed(std::move(why));
}

void StreamableHttpTransport::shutdown() {
  closing_.request_stop();
  std::thread listener;
  {
    std::lock_guard lock(mutex_);
    if (listen_thread_.joinable() && listen_thread_.get_id() == std::this_thread::get_id()) return;
    listener = std::move(listen_thread_);
  }
  if (listener.joinable()) listener.join();
}

void StreamableHttpTransport::close(std::chrono::milliseconds grace) {
  if (closed_.exchange(true)) return;
  shutdown();
  std::string session;
  HttpRequest del = make_request("DELETE", kPostAccept, &session);
  {
    std::lock_guard lock(mutex_);
    session_id_.clear();
  }
  if (session.empty()) return;
  // Ending the session is a courtesy to the server: a short, bounded wait.
  del.total_timeout_ms = std::clamp<int64_t>(grace.count(), 250, 5000);
  del.connect_timeout_ms = std::min(del.connect_timeout_ms, del.total_timeout_ms);
  const HttpOutcome out = pool_.acquire()->perform(del);
  const long status = out.head.status;
  if (out.end != HttpEnd::kCompleted) {
    log(cat(describe(), ": could not end session ", session, ": ", out.error.message()));
  } else if ((status < 200 || status >= 300) && status != 404 && status != 405) {
    log(cat(describe(), ": ending session ", session, " answered HTTP ", std::to_string(status)));
  }
}

}  // namespace

std::unique_ptr<Transport> make_streamable_http_transport(HttpServerSpec spec) {
  return std::make_unique<StreamableHttpTransport>(std::move(spec));
}

}  // namespace keel::mcp
