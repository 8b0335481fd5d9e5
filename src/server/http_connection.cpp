// One client connection: the read / dispatch / write cycle; see http_connection.hpp.
//
// Phases: kHead (reading a request head) -> kBody (reading its Content-Length body) -> kHandling
// (the handler has it; the responder's bytes are written as they come) -> back to kHead when the
// response is complete and the connection is kept alive, or kLingering (send side shut, input
// drained briefly so the client reads the last response instead of a reset) -> kClosed.
// A read stays pending while a request is handled, so a client that goes away is noticed at once
// (and a streaming handler told through on_close).
#include "server/http_connection.hpp"

#include <chrono>
#include <exception>
#include <utility>

#include "server/http_responder.hpp"
#include "server/http_wire.hpp"

namespace keel::server::detail {
namespace {

constexpr size_t kReadChunk = 8 * 1024;  // per connection: kept small, idle streams are many
constexpr int64_t kLingerMs = 2000;
constexpr size_t kMaxWriteBatch = 64;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

std::string format_endpoint(const asio::ip::tcp::endpoint& ep) {
  std::string out;
  if (ep.address().is_v6()) {
    out.append("[").append(ep.address().to_string()).append("]");
  } else {
    out.append(ep.address().to_string());
  }
  out.append(":").append(std::to_string(ep.port()));
  return out;
}

}  // namespace

void ExchangeState::fire_close() {
  std::function<void()> callback;
  {
    std::lock_guard lock(mu_);
    if (finished_) return;
    finished_ = true;
    closed_.store(true);
    callback = std::move(on_close_);
  }
  if (callback) callback();
}

void ExchangeState::complete() {
  std::function<void()> released;  // destroyed outside the lock: it may own the responder
  std::lock_guard lock(mu_);
  if (finished_) return;
  finished_ = true;
  released = std::move(on_close_);
}

void ExchangeState::set_on_close(std::function<void()> callback) {
  std::function<void()> previous;
  {
    std::lock_guard lock(mu_);
    if (!closed_.load()) {
      if (!finished_) {
        previous = std::move(on_close_);
        on_close_ = std::move(callback);
      }
      return;
    }
  }
  if (callback) callback();
}

HttpConnection::HttpConnection(std::shared_ptr<ServerShared> shared, asio::ip::tcp::socket socket, Strand strand)
    : shared_(std::move(shared)) {
  asio::error_code ec;
  const auto remote = socket.remote_endpoint(ec);
  if (!ec) remote_ = format_endpoint(remote);
  io_.emplace(Io{strand, std::move(socket), asio::steady_timer(strand), asio::steady_timer(strand)});
  read_buffer_.resize(kReadChunk);
}

HttpConnection::~HttpConnection() {
  if (phase_ != Phase::kClosed) shared_->open_count.fetch_sub(1);
  std::lock_guard lock(shared_->registry_mu);
  io_.reset();
  shared_->connections.erase(this);
}

void HttpConnection::release_io_locked() {
  io_.reset();
}

void HttpConnection::start() {
  if (phase_ == Phase::kClosed) return;  // stop() got here first
  asio::error_code ec;
  io_->socket.set_option(asio::ip::tcp::no_delay(true), ec);  // stream events leave at once
  request_started_ = true;  // a new connection must send its first request within the head timeout
  arm_deadline(shared_->options.header_timeout_ms);
  read();
}

void HttpConnection::read() {
  if (reading_ || phase_ == Phase::kClosed) return;
  const HttpServerOptions& o = shared_->options;
  // While a request is handled, input is only buffered (a pipelined request); past the limit the
  // connection stops reading until the response is done.
  if (phase_ == Phase::kHandling && in_.size() > o.max_header_bytes + o.max_body_bytes) return;
  reading_ = true;
  io_->socket.async_read_some(
      asio::buffer(read_buffer_),
      [self = shared_from_this()](const asio::error_code& ec, size_t n) { self->on_read(ec, n); });
}

void HttpConnection::on_read(const asio::error_code& ec, size_t n) {
  reading_ = false;
  if (phase_ == Phase::kClosed) return;
  if (ec) {  // end of stream or a reset: the client is gone (a half-close counts as gone)
    close_now();
    return;
  }
  if (phase_ != Phase::kLingering) {
    in_.append(read_buffer_.data(), n);
    if (phase_ == Phase::kHead || phase_ == Phase::kBody) process_input();
  }
  read();
}

void HttpConnection::process_input() {
  const HttpServerOptions& o = shared_->options;
  if (phase_ == Phase::kHead) {
    size_t skip = 0;  // RFC 9112 2.2: ignore empty lines before a request line
    while (skip + 1 < in_.size() && in_[skip] == '\r' && in_[skip + 1] == '\n') skip += 2;
    in_.erase(0, skip);
    if (in_.empty()) return;
    if (!request_started_) {
      request_started_ = true;
      arm_deadline(o.header_timeout_ms);
    }
    const size_t end = find_head_end(in_);
    if ((end == 0 && in_.size() > o.max_header_bytes) || end > o.max_header_bytes) {
      std::string msg = "request head too large: the limit is ";
      msg.append(std::to_string(o.max_header_bytes)).append(" bytes for the request line and headers");
      reject(431, std::move(msg));
      return;
    }
    if (end == 0) return;
    ParsedHead head = parse_request_head(std::string_view(in_).substr(0, end), o.max_body_bytes);
    in_.erase(0, end);
    if (head.error_status != 0) {
      reject(head.error_status, std::move(head.error_message));
      return;
    }
    head_ = std::move(head);
    phase_ = Phase::kBody;
    if (head_.expect_continue && in_.size() < head_.content_length) {
      queued_bytes.fetch_add(kContinue.size());
      queue_.push_back(OutgoingBytes{std::string(kContinue), false});
      do_write();
    }
  }
  if (phase_ == Phase::kBody) {
    if (in_.size() < head_.content_length) return;
    head_.request.body = in_.substr(0, head_.content_length);
    in_.erase(0, head_.content_length);
    phase_ = Phase::kHandling;
    request_started_ = false;
    cancel_deadline();
    dispatch(std::move(head_));
  }
}

void HttpConnection::dispatch(ParsedHead head) {
  ++exchange_;
  exchange_state_ = std::make_shared<ExchangeState>();
  close_after_ = false;
  HttpRequest& request = head.request;
  request.remote_address = remote_;
  std::shared_ptr<HttpResponder> responder =
      make_connection_responder(shared_from_this(), exchange_, exchange_state_, head.keep_alive,
                                request.version_minor == 0, shared_->options.max_stream_queue_bytes);
  if (shared_->guard) {
    try {
      if (!shared_->guard(request, *responder)) return;
    } catch (const std::exception& e) {
      respond_error(*responder, 500, std::string("the request guard failed: ") + e.what());
      return;
    }
  }
  const HttpRouter::Match match = shared_->router.match(request.method, request.path);
  if (match.status == 404) {
    std::string msg = "no such path: '";
    msg.append(request.path).append("'");
    respond_error(*responder, 404, msg);
    return;
  }
  if (match.status == 405) {
    std::string msg = "method ";
    msg.append(request.method).append(" is not allowed on '").append(request.path).append("'; allowed: ");
    msg.append(match.allow);
    respond_error(*responder, 405, msg, {{"Allow", match.allow}});
    return;
  }
  try {
    (*match.handler)(request, responder);
  } catch (const std::exception& e) {
    std::string msg = "the request handler failed: ";
    msg.append(e.what());
    respond_error(*responder, 500, msg);  // ignored when it had answered already
  } catch (...) {
    respond_error(*responder, 500, "the request handler failed");
  }
}

void HttpConnection::reject(int status, std::string message) {
  phase_ = Phase::kHandling;
  request_started_ = false;
  cancel_deadline();
  ++exchange_;
  exchange_state_ = std::make_shared<ExchangeState>();
  close_after_ = true;  // the framing of what follows cannot be trusted
  auto responder = make_connection_responder(shared_from_this(), exchange_, exchange_state_, false, false,
                                             shared_->options.max_stream_queue_bytes);
  respond_error(*responder, status, message);
}

void HttpConnection::send(uint64_t exchange, OutgoingBytes out, bool close_after) {
  if (phase_ == Phase::kClosed || exchange != exchange_ || !exchange_state_) {
    queued_bytes.fetch_sub(out.bytes.size());
    return;
  }
  if (close_after) close_after_ = true;
  queue_.push_back(std::move(out));
  do_write();
}

void HttpConnection::do_write() {
  if (write_in_flight_ || phase_ == Phase::kClosed || queue_.empty()) return;
  while (!queue_.empty() && writing_.size() < kMaxWriteBatch) {
    writing_.push_back(std::move(queue_.front()));
    queue_.pop_front();
  }
  std::vector<asio::const_buffer> buffers;
  buffers.reserve(writing_.size());
  for (const OutgoingBytes& out : writing_) buffers.push_back(asio::buffer(out.bytes));
  write_in_flight_ = true;
  const uint64_t generation = ++write_generation_;
  io_->write_deadline.expires_after(std::chrono::milliseconds(shared_->options.write_timeout_ms));
  io_->write_deadline.async_wait([self = shared_from_this(), generation](const asio::error_code& ec) {
    // The client stopped reading: give up on it.
    if (!ec && generation == self->write_generation_ && self->write_in_flight_) self->close_now();
  });
  asio::async_write(io_->socket, buffers,
                    [self = shared_from_this()](const asio::error_code& ec, size_t) { self->on_written(ec); });
}

void HttpConnection::on_written(const asio::error_code& ec) {
  write_in_flight_ = false;
  size_t bytes = 0;
  bool completes = false;
  for (const OutgoingBytes& out : writing_) {
    bytes += out.bytes.size();
    completes = completes || out.completes_exchange;
  }
  writing_.clear();
  queued_bytes.fetch_sub(bytes);
  if (phase_ == Phase::kClosed) return;
  ++write_generation_;
  io_->write_deadline.cancel();
  if (ec) {
    close_now();
    return;
  }
  if (completes) finish_exchange();
  do_write();
}

void HttpConnection::finish_exchange() {
  if (exchange_state_) {
    exchange_state_->complete();
    exchange_state_.reset();
  }
  if (close_after_) {
    begin_linger();
    return;
  }
  phase_ = Phase::kHead;
  request_started_ = false;
  arm_deadline(shared_->options.keep_alive_idle_ms);
  process_input();  // a pipelined request may be waiting already
  read();
}

void HttpConnection::begin_linger() {
  phase_ = Phase::kLingering;
  in_.clear();
  asio::error_code ec;
  io_->socket.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  arm_deadline(kLingerMs);
  read();
}

void HttpConnection::arm_deadline(int64_t ms) {
  const uint64_t generation = ++deadline_generation_;
  io_->deadline.expires_after(std::chrono::milliseconds(ms));
  io_->deadline.async_wait([self = shared_from_this(), generation](const asio::error_code& ec) {
    if (ec || generation != self->deadline_generation_ || self->phase_ == Phase::kClosed) return;
    if (self->phase_ == Phase::kBody || (self->phase_ == Phase::kHead && !self->in_.empty())) {
      // Part of a request came and the rest did not (a slow or stalled client): say so, then close.
      self->reject(408, "the request did not arrive in time: its head and body must come within " +
                            std::to_string(self->shared_->options.header_timeout_ms) + " ms");
      return;
    }
    self->close_now();
  });
}

void HttpConnection::cancel_deadline() {
  ++deadline_generation_;
  io_->deadline.cancel();
}

void HttpConnection::close_now() {
  if (phase_ == Phase::kClosed) return;
  phase_ = Phase::kClosed;
  shared_->open_count.fetch_sub(1);
  ++deadline_generation_;
  asio::error_code ec;
  io_->deadline.cancel();
  io_->write_deadline.cancel();
  io_->socket.shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  io_->socket.close(ec);
  for (const OutgoingBytes& out : queue_) queued_bytes.fetch_sub(out.bytes.size());
  queue_.clear();
  in_.clear();
  if (exchange_state_) {
    std::shared_ptr<ExchangeState> state = std::move(exchange_state_);
    state->fire_close();
  }
}

}  // namespace keel::server::detail
