// The static test server's sockets and HTTP/1.1 framing; see static_http_server.hpp.
#include "support/static_http_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace keel::testing {
namespace {

std::string reason_for(int status) {
  switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 301: return "Moved Permanently";
    case 302: return "Found";
    case 303: return "See Other";
    case 307: return "Temporary Redirect";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 418: return "I'm a teapot";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

std::string lowercase(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

bool send_all(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// "METHOD TARGET HTTP/1.1\r\nName: value\r\n..." (without the blank line).
RecordedHttpRequest parse_head(std::string_view head) {
  RecordedHttpRequest request;
  size_t line_end = head.find("\r\n");
  const std::string_view first = head.substr(0, line_end);
  const size_t sp1 = first.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : first.find(' ', sp1 + 1);
  if (sp1 != std::string_view::npos) {
    request.method = std::string(first.substr(0, sp1));
    request.target = std::string(first.substr(sp1 + 1, sp2 == std::string_view::npos ? sp2 : sp2 - sp1 - 1));
  }
  while (line_end != std::string_view::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string_view line = head.substr(start, line_end == std::string_view::npos ? line_end : line_end - start);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    request.headers[lowercase(std::string(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return request;
}

}  // namespace

StaticRoute html_page(std::string body, std::string content_type) {
  StaticRoute r;
  r.headers = {{"Content-Type", std::move(content_type)}};
  r.body = std::move(body);
  return r;
}

StaticRoute text_page(std::string content_type, std::string body) {
  StaticRoute r;
  if (!content_type.empty()) r.headers = {{"Content-Type", std::move(content_type)}};
  r.body = std::move(body);
  return r;
}

StaticRoute redirect_to(std::string location, int status) {
  StaticRoute r;
  r.status = status;
  r.headers = {{"Location", std::move(location)}, {"Content-Type", "text/plain"}};
  r.body = "redirecting";
  return r;
}

StaticRoute with_delay(StaticRoute route, int64_t delay_ms) {
  route.delay_ms = delay_ms;
  return route;
}

StaticHttpServer::StaticHttpServer() {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (wake_fd_ < 0 || listen_fd_ < 0) {
    std::perror("static server: socket");
    return;
  }
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 64) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("static server: bind/listen");
    return;
  }
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { accept_loop(); });
}

StaticHttpServer::~StaticHttpServer() {
  stop();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

void StaticHttpServer::stop() {
  if (stopped_.exchange(true)) return;
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);  // wakes every poll() below
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  std::vector<Connection> connections;
  {
    std::lock_guard lock(connections_mutex_);
    connections.swap(connections_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (Connection& c : connections) c.thread.join();
}

std::string StaticHttpServer::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

void StaticHttpServer::route(std::string target, StaticRoute response) {
  std::lock_guard lock(mutex_);
  routes_[std::move(target)] = std::move(response);
}

std::vector<RecordedHttpRequest> StaticHttpServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

StaticRoute StaticHttpServer::find_route(const std::string& target) const {
  std::lock_guard lock(mutex_);
  if (auto it = routes_.find(target); it != routes_.end()) return it->second;
  StaticRoute missing = text_page("text/plain", "no route for " + target);
  missing.status = 404;
  return missing;
}

bool StaticHttpServer::wait_ms(int64_t ms) const {
  pollfd p{wake_fd_, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, ms))) == 0;
}

void StaticHttpServer::reap_finished() {
  std::lock_guard lock(connections_mutex_);
  auto finished = std::partition(connections_.begin(), connections_.end(),
                                 [](const Connection& c) { return !c.done->load(); });
  for (auto it = finished; it != connections_.end(); ++it) it->thread.join();
  connections_.erase(finished, connections_.end());
}

void StaticHttpServer::accept_loop() {
  while (true) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    reap_finished();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::lock_guard lock(connections_mutex_);
    open_fds_.insert(fd);
    connections_.push_back({std::thread([this, fd, done] {
                              serve(fd);
                              {
                                std::lock_guard fd_lock(connections_mutex_);
                                open_fds_.erase(fd);
                                ::close(fd);
                              }
                              done->store(true);
                            }),
                            done});
  }
}

void StaticHttpServer::serve(int fd) {
  std::string buffer;
  char chunk[16384];
  // Reads more bytes into `buffer`; false on close, error or server stop.
  auto read_more = [&]() {
    while (true) {
      pollfd fds[2] = {{fd, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
      if (::poll(fds, 2, -1) < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      if (fds[1].revents != 0) return false;
      const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer.append(chunk, static_cast<size_t>(n));
      return true;
    }
  };
  while (true) {
    size_t head_end;
    while ((head_end = buffer.find("\r\n\r\n")) == std::string::npos) {
      if (!read_more()) return;
    }
    RecordedHttpRequest request = parse_head(std::string_view(buffer).substr(0, head_end));
    size_t length = 0;
    if (auto it = request.headers.find("content-length"); it != request.headers.end()) {
      length = std::strtoull(it->second.c_str(), nullptr, 10);
    }
    const size_t body_start = head_end + 4;
    if (buffer.size() < body_start + length && lowercase(request.headers["expect"]) == "100-continue") {
      if (!send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n")) return;
    }
    while (buffer.size() < body_start + length) {
      if (!read_more()) return;
    }
    request.body = buffer.substr(body_start, length);
    buffer.erase(0, body_start + length);
    const bool client_closes = lowercase(request.headers["connection"]) == "close";
    const bool head_only = request.method == "HEAD";
    const StaticRoute r = find_route(request.target);
    request_count_.fetch_add(1);
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(std::move(request));
    }

    if (r.delay_ms > 0 && !wait_ms(r.delay_ms)) return;
    std::string head = "HTTP/1.1 " + std::to_string(r.status) + " " + (r.reason.empty() ? reason_for(r.status) : r.reason) +
                       "\r\n";
    for (const auto& [name, value] : r.headers) head += name + ": " + value + "\r\n";
    if (client_closes) head += "Connection: close\r\n";
    head += "Content-Length: " + std::to_string(r.body.size()) + "\r\n\r\n";
    if (head_only) {
      if (!send_all(fd, head) || client_closes) return;
      continue;
    }
    if (r.body_delay_ms > 0) {
      if (!send_all(fd, head) || !wait_ms(r.body_delay_ms)) return;
      head.clear();
    }
    if (!send_all(fd, head + r.body) || client_closes) return;
  }
}

}  // namespace keel::testing
