// server/http_connection.hpp — one accepted client connection of HttpServer: reads requests,
// dispatches them to the router, writes what the request's responder sends, keeps the connection
// alive or closes it. Internal to src/server (includes Asio).
//
// Everything a connection does runs on its own strand, so io_threads > 1 needs no locks inside
// it. Responders (any thread) talk to it only by posting to that strand through post(); once the
// server stops, posting is refused and the connection's Asio objects are released, so a responder
// that outlives the server does nothing harmful.
//
// Lifetime: owned by shared_ptr, held by its pending async operations and by responders. Every
// live connection is listed in ServerShared::connections (raw pointers, under registry_mu) so that
// stop() can release its Asio objects after the io threads ended.
//
// Thread-safety: post(), queued_bytes and strand() from any thread; everything else on the strand
// (or, for release_io_locked(), after the io threads were joined).
#pragma once

#include <asio.hpp>
#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "server/http_request_parser.hpp"
#include "server/http_router.hpp"
#include "server/http_server.hpp"

namespace keel::server::detail {

class HttpConnection;
using Strand = asio::strand<asio::io_context::executor_type>;

// What the server and its connections share. Outlives both (shared_ptr).
struct ServerShared {
  HttpServerOptions options;
  HttpRouter router;   // read-only once the server started
  RequestGuard guard;  // set before start; runs before the router

  std::mutex registry_mu;
  std::unordered_set<HttpConnection*> connections;  // every live connection object
  bool stopping = false;                            // no connection is registered any more

  std::atomic<size_t> open_count{0};  // connections whose socket is open

  std::shared_mutex io_mu;  // shared: a post to a strand; exclusive: stop() ending posts
  bool io_alive = true;     // false once stop() began
};

// The per-request state a responder and its connection share (no reference back to either).
class ExchangeState {
 public:
  // The connection closed before the response was complete: runs the callback once.
  void fire_close();
  // The response was fully sent: the callback is released without running.
  void complete();
  // See HttpResponder::on_close.
  void set_on_close(std::function<void()> callback);
  bool closed() const { return closed_.load(); }

 private:
  std::mutex mu_;
  std::function<void()> on_close_;  // guarded by mu_
  bool finished_ = false;           // guarded by mu_: complete() or fire_close() ran
  std::atomic<bool> closed_{false};
};

// One item of the write queue.
struct OutgoingBytes {
  std::string bytes;
  bool completes_exchange = false;  // the last bytes of the current response
};

class HttpConnection : public std::enable_shared_from_this<HttpConnection> {
 public:
  // `socket` must use a strand of its own as executor (the acceptor makes it so).
  HttpConnection(std::shared_ptr<ServerShared> shared, asio::ip::tcp::socket socket, Strand strand);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Starts reading the first request. On the strand.
  void start();
  // Closes the socket at once; the current exchange's on_close runs. On the strand.
  void close_now();

  // Queues `fn` on the strand; false (and `fn` dropped) once the server is stopping.
  template <class Fn>
  bool post(Fn&& fn) {
    std::shared_lock lock(shared_->io_mu);
    if (!shared_->io_alive) return false;
    asio::post(io_->strand, std::forward<Fn>(fn));
    return true;
  }

  // Responder side, on the strand. `exchange` names the request the bytes belong to; bytes of an
  // earlier exchange or for a closed connection are dropped.
  void send(uint64_t exchange, OutgoingBytes out, bool close_after);

  // Drops the Asio objects (they must not outlive the io_context); registry_mu held, io threads
  // joined.
  void release_io_locked();

  // The connection's strand; only while the server runs.
  const Strand& strand() const { return io_->strand; }

  // Response bytes handed to the connection and not yet written (the slow-client limit).
  std::atomic<size_t> queued_bytes{0};

 private:
  enum class Phase { kHead, kBody, kHandling, kLingering, kClosed };

  void read();
  void on_read(const asio::error_code& ec, size_t n);
  void process_input();
  void dispatch(ParsedHead head);
  void reject(int status, std::string message);
  void do_write();
  void on_written(const asio::error_code& ec);
  void finish_exchange();
  void begin_linger();
  void arm_deadline(int64_t ms);
  void cancel_deadline();

  struct Io {
    Strand strand;
    asio::ip::tcp::socket socket;
    asio::steady_timer deadline;        // head, keep-alive idle and lingering-close deadlines
    asio::steady_timer write_deadline;  // the write in progress
  };

  std::shared_ptr<ServerShared> shared_;
  std::optional<Io> io_;
  std::string remote_;

  Phase phase_ = Phase::kHead;
  std::string in_;  // received, not yet consumed
  std::vector<char> read_buffer_;
  bool reading_ = false;
  bool request_started_ = false;      // a byte of the current request arrived (head timeout armed)
  ParsedHead head_;                   // the request being read
  uint64_t deadline_generation_ = 0;  // a deadline handler of an older generation does nothing
  uint64_t write_generation_ = 0;

  uint64_t exchange_ = 0;                          // the current request's number
  std::shared_ptr<ExchangeState> exchange_state_;  // its responder's shared state
  bool close_after_ = false;                       // close once the current response is sent

  std::deque<OutgoingBytes> queue_;
  std::vector<OutgoingBytes> writing_;  // the batch in flight
  bool write_in_flight_ = false;
};

// The responder of exchange `exchange` on `connection` (defined in connection_responder.cpp).
// `keep_alive`: the request allows another one after it; `http10`: the client speaks HTTP/1.0.
std::shared_ptr<HttpResponder> make_connection_responder(std::shared_ptr<HttpConnection> connection, uint64_t exchange,
                                                         std::shared_ptr<ExchangeState> state, bool keep_alive,
                                                         bool http10, size_t max_queue_bytes);

}  // namespace keel::server::detail
