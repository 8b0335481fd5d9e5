// Sockets, threads and request framing of the test servers; see test_http_socket.hpp.
#include "support/test_http_socket.hpp"

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

namespace keel::testing {
namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return std::string(s);
}

// "METHOD TARGET HTTP/1.1\r\nName: value\r\n..." (without the blank line).
TestHttpRequest parse_head(std::string_view head) {
  TestHttpRequest request;
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
    request.headers[http_lowercase(std::string(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return request;
}

}  // namespace

const char* http_reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 301:
      return "Moved Permanently";
    case 302:
      return "Found";
    case 303:
      return "See Other";
    case 307:
      return "Temporary Redirect";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 418:
      return "I'm a teapot";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

std::string http_lowercase(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

bool TestHttpConnection::read_more() {
  char chunk[65536];
  while (true) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (fds[1].revents != 0) return false;
    const ssize_t n = ::recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }
}

bool TestHttpConnection::read_request(TestHttpRequest& request) {
  size_t head_end;
  while ((head_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (!read_more()) return false;
  }
  request = parse_head(std::string_view(buffer_).substr(0, head_end));
  size_t length = 0;
  if (auto it = request.headers.find("content-length"); it != request.headers.end()) {
    length = std::strtoull(it->second.c_str(), nullptr, 10);
  }
  const size_t body_start = head_end + 4;
  if (buffer_.size() < body_start + length && http_lowercase(request.headers["expect"]) == "100-continue") {
    if (!send("HTTP/1.1 100 Continue\r\n\r\n")) return false;
  }
  while (buffer_.size() < body_start + length) {
    if (!read_more()) return false;
  }
  request.body = buffer_.substr(body_start, length);
  buffer_.erase(0, body_start + length);
  return true;
}

bool TestHttpConnection::send(std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

bool TestHttpConnection::wait_ms(int64_t ms, bool watch_peer) {
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {fd_, POLLRDHUP, 0}};
  const int count = ::poll(fds, watch_peer ? 2 : 1, static_cast<int>(std::max<int64_t>(0, ms)));
  return count == 0;
}

void TestHttpConnection::drop() {
  ::shutdown(fd_, SHUT_RDWR);
}

bool TestHttpListener::start(Handler handler) {
  handler_ = std::move(handler);
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (wake_fd_ < 0 || listen_fd_ < 0) {
    std::perror("test server: socket");
    return false;
  }
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("test server: bind/listen");
    return false;
  }
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { accept_loop(); });
  return true;
}

void TestHttpListener::stop() {
  if (stopped_.exchange(true)) return;
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);  // wakes every poll()
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  std::vector<Connection> connections;
  {
    std::lock_guard lock(mutex_);
    connections.swap(connections_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (Connection& c : connections) c.thread.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  listen_fd_ = wake_fd_ = -1;
}

void TestHttpListener::reap_finished() {
  std::lock_guard lock(mutex_);
  auto finished =
      std::partition(connections_.begin(), connections_.end(), [](const Connection& c) { return !c.done->load(); });
  for (auto it = finished; it != connections_.end(); ++it) it->thread.join();
  connections_.erase(finished, connections_.end());
}

void TestHttpListener::accept_loop() {
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
    accepted_.fetch_add(1);
    reap_finished();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::lock_guard lock(mutex_);
    open_fds_.insert(fd);
    connections_.push_back({std::thread([this, fd, done] {
                              TestHttpConnection connection(fd, wake_fd_);
                              handler_(connection);
                              {
                                std::lock_guard fd_lock(mutex_);
                                open_fds_.erase(fd);
                                ::close(fd);
                              }
                              done->store(true);
                            }),
                            done});
  }
}

}  // namespace keel::testing
