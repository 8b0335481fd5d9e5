// The HttpResponder of a request on an HttpConnection, and the JSON helpers of http_responder.hpp.
//
// The responder serializes on the caller's thread and posts finished bytes to the connection's
// strand. A stage flag (none -> streaming -> done) makes every call after the answer a no-op.
#include <atomic>
#include <memory>
#include <string>
#include <utility>

#include "server/http_connection.hpp"
#include "server/http_responder.hpp"
#include "server/http_status.hpp"
#include "server/http_wire.hpp"

namespace keel::server {

void respond_json(HttpResponder& responder, int status, std::string body, HttpHeaders headers) {
  headers.emplace_back("Content-Type", "application/json");
  responder.respond(status, std::move(headers), std::move(body));
}

void respond_error(HttpResponder& responder, int status, std::string_view message, HttpHeaders headers) {
  respond_json(responder, status, json_error_body(error_code_for_status(status), message), std::move(headers));
}

namespace detail {
namespace {

enum Stage : int { kNone, kStreaming, kDone };

class ConnectionResponder final : public HttpResponder {
 public:
  ConnectionResponder(std::shared_ptr<HttpConnection> connection, uint64_t exchange,
                      std::shared_ptr<ExchangeState> state, bool keep_alive, bool http10, size_t max_queue_bytes)
      : connection_(std::move(connection)),
        exchange_(exchange),
        state_(std::move(state)),
        keep_alive_(keep_alive),
        http10_(http10),
        max_queue_bytes_(max_queue_bytes) {}

  ~ConnectionResponder() override {
    const int stage = stage_.load();
    if (stage == kNone) {
      respond_error(*this, 500, "the request handler finished without sending a response");
    } else if (stage == kStreaming) {
      end();
    }
  }

  void respond(int status, HttpHeaders headers, std::string body) override {
    int expected = kNone;
    if (!stage_.compare_exchange_strong(expected, kDone)) return;
    const bool close = !keep_alive_ || detail::asks_to_close(headers);
    if (status_has_no_body(status)) body.clear();
    std::string bytes =
        response_head(status, headers, BodyFraming::kContentLength, body.size(), connection_value(close));
    bytes.append(body);
    post(std::move(bytes), true, close);
  }

  void start_stream(int status, HttpHeaders headers) override {
    int expected = kNone;
    if (!stage_.compare_exchange_strong(expected, kStreaming)) return;
    // HTTP/1.0 has no chunked encoding: the body then ends with the connection.
    const bool close = !keep_alive_ || http10_ || detail::asks_to_close(headers);
    const BodyFraming framing = http10_ ? BodyFraming::kUntilClose : BodyFraming::kChunked;
    post(response_head(status, headers, framing, 0, close ? "close" : ""), false, close);
  }

  bool write(std::string chunk) override {
    if (stage_.load() != kStreaming || state_->closed()) return false;
    if (chunk.empty()) return true;
    std::string framed = http10_ ? std::move(chunk) : chunk_frame(chunk);
    if (connection_->queued_bytes.load() + framed.size() > max_queue_bytes_) {
      // The client reads slower than the stream is produced: cut it off rather than buffer without bound.
      stage_.store(kDone);
      connection_->post([connection = connection_] { connection->close_now(); });
      return false;
    }
    return post(std::move(framed), false, false);
  }

  void end() override {
    int expected = kStreaming;
    if (!stage_.compare_exchange_strong(expected, kDone)) return;
    post(http10_ ? std::string() : std::string(kLastChunk), true, false);
  }

  void on_close(std::function<void()> callback) override { state_->set_on_close(std::move(callback)); }

  bool closed() const override { return state_->closed(); }

 private:
  std::string_view connection_value(bool close) const {
    if (close) return "close";
    return http10_ ? "keep-alive" : "";
  }

  bool post(std::string bytes, bool completes, bool close_after) {
    const size_t n = bytes.size();
    connection_->queued_bytes.fetch_add(n);
    const bool posted = connection_->post(
        [connection = connection_, exchange = exchange_, out = OutgoingBytes{std::move(bytes), completes},
         close_after]() mutable { connection->send(exchange, std::move(out), close_after); });
    if (!posted) connection_->queued_bytes.fetch_sub(n);
    return posted;
  }

  const std::shared_ptr<HttpConnection> connection_;
  const uint64_t exchange_;
  const std::shared_ptr<ExchangeState> state_;
  const bool keep_alive_;
  const bool http10_;
  const size_t max_queue_bytes_;
  std::atomic<int> stage_{kNone};
};

}  // namespace

std::shared_ptr<HttpResponder> make_connection_responder(std::shared_ptr<HttpConnection> connection, uint64_t exchange,
                                                         std::shared_ptr<ExchangeState> state, bool keep_alive,
                                                         bool http10, size_t max_queue_bytes) {
  return std::make_shared<ConnectionResponder>(std::move(connection), exchange, std::move(state), keep_alive, http10,
                                               max_queue_bytes);
}

}  // namespace detail
}  // namespace keel::server
