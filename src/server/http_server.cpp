// HttpServer: binding, the accept loop, the io threads and an orderly stop; see http_server.hpp.
// The per-connection protocol lives in http_connection.cpp.
#include "server/http_server.hpp"

#include <asio.hpp>
#include <chrono>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "server/http_connection.hpp"

namespace keel::server {

using detail::HttpConnection;
using detail::ServerShared;
using detail::Strand;

struct HttpServer::Impl {
  std::shared_ptr<ServerShared> shared = std::make_shared<ServerShared>();

  // Declared so that the acceptor and the timer die before the context they were made from.
  std::optional<asio::io_context> io;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::optional<Strand> accept_strand;
  std::optional<asio::ip::tcp::acceptor> acceptor;
  std::optional<asio::steady_timer> accept_retry;  // pause after a failed accept (out of descriptors)
  std::vector<std::thread> threads;
  uint16_t port = 0;

  std::mutex lifecycle_mu;
  bool started = false;
  bool stopped = false;

  Status bind_and_listen();
  void accept_next();
  void on_accept(asio::ip::tcp::socket socket, Strand strand);
  void stop();
};

namespace {

std::string host_port(const std::string& host, uint16_t port) {
  std::string out;
  if (host.find(':') != std::string::npos) {
    out.append("[").append(host).append("]");
  } else {
    out.append(host);
  }
  out.append(":").append(std::to_string(port));
  return out;
}

}  // namespace

Status HttpServer::Impl::bind_and_listen() {
  const HttpServerOptions& o = shared->options;
  asio::error_code ec;
  // Names other than localhost are refused rather than looked up: a DNS query could stall start().
  const std::string literal = o.host == "localhost" ? "127.0.0.1" : o.host;
  const asio::ip::address address = asio::ip::make_address(literal, ec);
  if (ec) {
    std::string msg = "the listen host '";
    msg.append(o.host).append("' is not an IP address; use one such as 127.0.0.1, ::1 or 0.0.0.0, or localhost");
    return Status::InvalidArgument(std::move(msg));
  }
  const asio::ip::tcp::endpoint endpoint(address, o.port);
  acceptor.emplace(*accept_strand);
  const auto fail = [&](std::string_view what, const asio::error_code& error) {
    std::string msg = "cannot ";
    msg.append(what).append(" on ").append(host_port(o.host, o.port)).append(": ").append(error.message());
    if (error == asio::error::address_in_use) msg.append(" (another program uses this port; pick another one)");
    if (error == asio::error::access_denied) msg.append(" (ports below 1024 need privileges; pick another one)");
    acceptor.reset();
    return Status::Unavailable(std::move(msg));
  };
  acceptor->open(endpoint.protocol(), ec);
  if (ec) return fail("open a socket", ec);
  acceptor->set_option(asio::ip::tcp::acceptor::reuse_address(true), ec);  // restart despite TIME_WAIT
  acceptor->bind(endpoint, ec);
  if (ec) return fail("listen", ec);
  acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return fail("listen", ec);
  port = acceptor->local_endpoint(ec).port();
  return Status::Ok();
}

void HttpServer::Impl::accept_next() {
  Strand strand = asio::make_strand(*io);
  // The accepted socket runs its operations on `strand`, so one connection's handlers never overlap.
  acceptor->async_accept(strand, [this, strand](const asio::error_code& ec, auto socket) {
    if (ec == asio::error::operation_aborted || !acceptor->is_open()) return;
    if (!ec) {
      on_accept(asio::ip::tcp::socket(std::move(socket)), strand);
      accept_next();
      return;
    }
    // Out of descriptors or memory: try again shortly instead of spinning.
    accept_retry->expires_after(std::chrono::milliseconds(50));
    accept_retry->async_wait([this](const asio::error_code& wait_ec) {
      if (!wait_ec && acceptor->is_open()) accept_next();
    });
  });
}

void HttpServer::Impl::on_accept(asio::ip::tcp::socket socket, Strand strand) {
  std::shared_ptr<HttpConnection> connection;
  {
    std::lock_guard lock(shared->registry_mu);
    if (shared->stopping || shared->open_count.load() >= shared->options.max_connections) {
      asio::error_code ec;
      socket.close(ec);
      return;
    }
    shared->open_count.fetch_add(1);
    connection = std::make_shared<HttpConnection>(shared, std::move(socket), strand);
    shared->connections.insert(connection.get());
  }
  asio::post(strand, [connection] { connection->start(); });
}

void HttpServer::Impl::stop() {
  std::lock_guard lifecycle(lifecycle_mu);
  if (!started || stopped) return;
  stopped = true;
  {
    std::unique_lock lock(shared->io_mu);  // responders' posts are refused from here on
    shared->io_alive = false;
  }
  std::vector<std::shared_ptr<HttpConnection>> open;
  {
    std::lock_guard lock(shared->registry_mu);
    shared->stopping = true;
    for (HttpConnection* c : shared->connections) {
      if (auto alive = c->weak_from_this().lock()) open.push_back(std::move(alive));
    }
  }
  asio::post(*accept_strand, [this] {
    asio::error_code ec;
    acceptor->close(ec);
    accept_retry->cancel();
  });
  for (auto& c : open) asio::post(c->strand(), [c] { c->close_now(); });
  open.clear();
  work.reset();  // run() returns once the closes above have run and every operation has ended
  for (std::thread& t : threads) t.join();
  threads.clear();
  std::lock_guard lock(shared->registry_mu);
  for (HttpConnection* c : shared->connections) c->release_io_locked();  // kept alive by responders
}

HttpServer::HttpServer(HttpServerOptions options) : impl_(std::make_unique<Impl>()) {
  if (options.io_threads == 0) options.io_threads = 1;
  impl_->shared->options = std::move(options);
}

HttpServer::~HttpServer() {
  stop();
}

void HttpServer::route(std::string method, std::string pattern, HttpHandler handler) {
  std::lock_guard lock(impl_->lifecycle_mu);
  if (impl_->started) return;  // documented precondition; the router is read without locks once started
  impl_->shared->router.add(std::move(method), std::move(pattern), std::move(handler));
}

void HttpServer::guard(RequestGuard guard) {
  std::lock_guard lock(impl_->lifecycle_mu);
  if (impl_->started) return;
  impl_->shared->guard = std::move(guard);
}

Status HttpServer::start() {
  Impl& d = *impl_;
  std::lock_guard lock(d.lifecycle_mu);
  if (d.started) return Status::FailedPrecondition("the HTTP server was started already; create a new one");
  d.io.emplace(static_cast<int>(d.shared->options.io_threads));
  d.accept_strand.emplace(asio::make_strand(*d.io));
  d.accept_retry.emplace(*d.accept_strand);
  Status bound = d.bind_and_listen();
  if (!bound.ok()) {
    d.accept_retry.reset();
    d.accept_strand.reset();
    d.io.reset();
    return bound;
  }
  d.started = true;
  d.work.emplace(d.io->get_executor());
  d.accept_next();
  try {
    for (size_t i = 0; i < d.shared->options.io_threads; ++i) {
      d.threads.emplace_back([&d] {
        if (d.shared->options.on_io_thread_start) d.shared->options.on_io_thread_start();
        for (;;) {
          try {
            d.io->run();
            return;
          } catch (...) {
            // An on_close callback threw: that callback is lost, the loop goes on.
          }
        }
      });
    }
  } catch (const std::system_error& e) {
    if (d.threads.empty()) {
      d.started = false;
      d.work.reset();
      d.acceptor.reset();
      d.accept_retry.reset();
      d.accept_strand.reset();
      d.io.reset();
      std::string msg = "cannot start the HTTP server's io thread: ";
      msg.append(e.what());
      return Status::ResourceExhausted(std::move(msg));
    }
  }
  return Status::Ok();
}

uint16_t HttpServer::port() const {
  return impl_->port;
}

const HttpServerOptions& HttpServer::options() const {
  return impl_->shared->options;
}

size_t HttpServer::connection_count() const {
  return impl_->shared->open_count.load();
}

void HttpServer::stop() {
  impl_->stop();
}

}  // namespace keel::server
