// The mock server's sockets and HTTP/1.1 framing; see mock_llm_server.hpp.
#include "support/mock_llm_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace keel::testing {
namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 429: return "Too Many Requests";
    case 500: return "Internal Server Error";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    default: return "Status";
  }
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
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

std::string hex(size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%zx", n);
  return buf;
}

// Parses "METHOD PATH HTTP/1.1\r\nName: value\r\n..." (without the blank line).
MockRequest parse_head(std::string_view head) {
  MockRequest request;
  size_t line_end = head.find("\r\n");
  const std::string_view request_line = head.substr(0, line_end);
  const size_t sp1 = request_line.find(' ');
  const size_t sp2 = request_line.find(' ', sp1 == std::string_view::npos ? 0 : sp1 + 1);
  if (sp1 != std::string_view::npos) {
    request.method = std::string(request_line.substr(0, sp1));
    request.path = std::string(request_line.substr(sp1 + 1, sp2 == std::string_view::npos ? sp2 : sp2 - sp1 - 1));
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

MockLlmServer::MockLlmServer() {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (wake_fd_ < 0 || listen_fd_ < 0) {
    std::perror("mock server: socket");
    return;
  }
  const int one = 1;
  ::setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(listen_fd_, 128) != 0 ||
      ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::perror("mock server: bind/listen");
    return;
  }
  port_ = ntohs(addr.sin_port);
  accept_thread_ = std::thread([this] { accept_loop(); });
}

MockLlmServer::~MockLlmServer() {
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_fd_, &one, sizeof one);  // wakes every poll() below
  }
  if (accept_thread_.joinable()) accept_thread_.join();
  std::vector<Connection> connections;
  {
    std::lock_guard lock(connections_mutex_);
    connections.swap(connection_threads_);
    for (int fd : open_fds_) ::shutdown(fd, SHUT_RDWR);
  }
  for (Connection& c : connections) c.thread.join();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
}

std::string MockLlmServer::base_url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

void MockLlmServer::push(MockResponse response) {
  std::lock_guard lock(mutex_);
  script_.push_back(std::move(response));
}

void MockLlmServer::set_responder(Responder responder) {
  std::lock_guard lock(mutex_);
  responder_ = std::move(responder);
}

void MockLlmServer::set_record_requests(bool record) {
  std::lock_guard lock(mutex_);
  record_ = record;
}

std::vector<MockRequest> MockLlmServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::vector<std::string> MockLlmServer::request_bodies() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const MockRequest& r : requests_) out.push_back(r.body);
  return out;
}

size_t MockLlmServer::pending() const {
  std::lock_guard lock(mutex_);
  return script_.size();
}

bool MockLlmServer::wait_ms(int64_t ms) const {
  pollfd p{wake_fd_, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(std::max<int64_t>(0, ms))) == 0;
}

void MockLlmServer::reap_finished_connections() {
  std::lock_guard lock(connections_mutex_);
  auto finished = std::partition(connection_threads_.begin(), connection_threads_.end(),
                                 [](const Connection& c) { return !c.done->load(); });
  for (auto it = finished; it != connection_threads_.end(); ++it) it->thread.join();
  connection_threads_.erase(finished, connection_threads_.end());
}

void MockLlmServer::accept_loop() {
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
    connections_.fetch_add(1);
    reap_finished_connections();
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::lock_guard lock(connections_mutex_);
    open_fds_.insert(fd);
    connection_threads_.push_back({std::thread([this, fd, done] {
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

MockResponse MockLlmServer::next_response(const std::string& body) {
  Responder responder;
  {
    std::lock_guard lock(mutex_);
    if (!responder_) {
      if (script_.empty()) return mock_error(500, "mock script exhausted");
      MockResponse r = std::move(script_.front());
      script_.pop_front();
      return r;
    }
    responder = responder_;
  }
  return responder(body);
}

void MockLlmServer::record(MockRequest request) {
  request_count_.fetch_add(1);
  std::lock_guard lock(mutex_);
  if (record_) requests_.push_back(std::move(request));
}

void MockLlmServer::serve(int fd) {
  std::string buffer;
  char chunk[65536];
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
    MockRequest request = parse_head(std::string_view(buffer).substr(0, head_end));
    size_t length = 0;
    if (auto it = request.headers.find("content-length"); it != request.headers.end()) {
      length = std::strtoull(it->second.c_str(), nullptr, 10);
    }
    const size_t body_start = head_end + 4;
    while (buffer.size() < body_start + length) {
      if (!read_more()) return;
    }
    request.body = buffer.substr(body_start, length);
    buffer.erase(0, body_start + length);
    const bool client_closes = lowercase(request.headers["connection"]) == "close";
    const std::string body = request.body;
    record(std::move(request));

    MockResponse r = next_response(body);
    if (r.delay_ms > 0 && !wait_ms(r.delay_ms)) return;
    if (r.drop) return;
    std::string head = "HTTP/1.1 " + std::to_string(r.status) + " " + reason_phrase(r.status) + "\r\n";
    if (!r.content_type.empty()) head += "Content-Type: " + r.content_type + "\r\n";
    for (const auto& [name, value] : r.headers) head += name + ": " + value + "\r\n";
    if (client_closes) head += "Connection: close\r\n";
    if (!r.stream) {
      head += "Content-Length: " + std::to_string(r.body.size()) + "\r\n\r\n";
      head += r.body;
      if (!send_all(fd, head) || client_closes) return;
      continue;
    }
    head += "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n\r\n";
    // Without scripted pauses everything goes out in one write (fast for benchmarks); with them,
    // the head and each chunk are written separately.
    std::string pending = std::move(head);
    for (size_t i = 0; i < r.chunks.size(); ++i) {
      if (i > 0 && r.chunk_delay_ms > 0) {
        if (!send_all(fd, pending) || !wait_ms(r.chunk_delay_ms)) return;
        pending.clear();
      }
      if (r.chunks[i].empty()) continue;  // an empty chunk would end the body
      pending += hex(r.chunks[i].size()) + "\r\n" + r.chunks[i] + "\r\n";
    }
    if (!r.truncate) pending += "0\r\n\r\n";
    if (!send_all(fd, pending) || r.truncate || client_closes) return;
  }
}

}  // namespace keel::testing
