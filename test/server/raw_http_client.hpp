// Test helper: a blocking HTTP/1.1 client on a raw socket to 127.0.0.1, for tests that need
// control over the bytes (malformed requests, keep-alive, reading a stream chunk by chunk).
// Header-only so both test/server and test/mcp can use it.
//
//   keel::testing::RawHttpClient c(server.port());
//   c.send("GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n");
//   auto r = c.read_response();            // nullopt on timeout or a broken response
//   EXPECT_EQ(r->status, 200);
//
// Every read has a timeout (milliseconds), so a test fails instead of hanging.
// Thread-safety: one client per thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "server/http_request.hpp"

namespace keel::testing {

struct RawHttpResponse {
  int status = 0;
  server::HttpHeaderMap headers;  // case-insensitive names
  std::string body;               // chunked bodies decoded
  std::string header(std::string_view name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class RawHttpClient {
 public:
  explicit RawHttpClient(uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_ < 0) return;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) close();
  }
  ~RawHttpClient() { close(); }
  RawHttpClient(const RawHttpClient&) = delete;
  RawHttpClient& operator=(const RawHttpClient&) = delete;

  bool ok() const { return fd_ >= 0; }

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  bool send(std::string_view data) {
    while (!data.empty() && fd_ >= 0) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      data.remove_prefix(static_cast<size_t>(n));
    }
    return fd_ >= 0;
  }

  // Reads one whole response (Content-Length, chunked, or until the server closes).
  std::optional<RawHttpResponse> read_response(int timeout_ms = 5000) {
    auto head = read_head(timeout_ms);
    if (!head) return std::nullopt;
    const std::string te = head->header("transfer-encoding");
    if (te == "chunked") {
      for (;;) {
        auto chunk = read_chunk(timeout_ms);
        if (!chunk) return std::nullopt;
        if (chunk->empty()) break;
        head->body.append(*chunk);
      }
    } else if (head->headers.count("content-length") != 0) {
      const size_t length = std::strtoul(head->header("content-length").c_str(), nullptr, 10);
      if (!fill(length, timeout_ms)) return std::nullopt;
      head->body = buffer_.substr(0, length);
      buffer_.erase(0, length);
    } else if (head->status != 204 && head->status != 304 && head->status >= 200) {
      while (receive(timeout_ms) > 0) {
      }
      head->body = std::move(buffer_);
      buffer_.clear();
    }
    return head;
  }

  // Reads a status line and headers only (a stream's body follows through read_chunk()).
  std::optional<RawHttpResponse> read_head(int timeout_ms = 5000) {
    size_t end = 0;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (receive(timeout_ms) <= 0) return std::nullopt;
    }
    std::string head = buffer_.substr(0, end + 2);
    buffer_.erase(0, end + 4);
    RawHttpResponse r;
    if (head.compare(0, 9, "HTTP/1.1 ") != 0 || head.size() < 12) return std::nullopt;
    r.status = std::atoi(head.c_str() + 9);
    size_t pos = head.find("\r\n") + 2;
    while (pos < head.size()) {
      const size_t eol = head.find("\r\n", pos);
      const std::string line = head.substr(pos, eol - pos);
      pos = eol + 2;
      const size_t colon = line.find(':');
      if (colon == std::string::npos) return std::nullopt;
      std::string value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.erase(0, 1);
      r.headers[line.substr(0, colon)] = value;
    }
    return r;
  }

  // The next chunk of a chunked body; "" for the last (zero-size) chunk; nullopt on timeout/EOF.
  std::optional<std::string> read_chunk(int timeout_ms = 5000) {
    size_t eol = 0;
    while ((eol = buffer_.find("\r\n")) == std::string::npos) {
      if (receive(timeout_ms) <= 0) return std::nullopt;
    }
    const size_t size = std::strtoul(buffer_.substr(0, eol).c_str(), nullptr, 16);
    if (!fill(eol + 2 + size + 2, timeout_ms)) return std::nullopt;
    std::string data = buffer_.substr(eol + 2, size);
    buffer_.erase(0, eol + 2 + size + 2);
    return data;
  }

  // True when the server closes the connection (EOF or reset) within the timeout; data that
  // arrives meanwhile is kept.
  bool wait_closed(int timeout_ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return false;
      const int n = receive(static_cast<int>(left.count()));
      if (n == 0 || n == -2) return true;
      if (n == -1) return false;
    }
  }

  const std::string& buffered() const { return buffer_; }

 private:
  bool fill(size_t bytes, int timeout_ms) {
    while (buffer_.size() < bytes) {
      if (receive(timeout_ms) <= 0) return false;
    }
    return true;
  }

  // > 0: bytes appended; 0: EOF; -1: timeout; -2: error (reset).
  int receive(int timeout_ms) {
    if (fd_ < 0) return -2;
    pollfd p{fd_, POLLIN, 0};
    int ready = 0;
    do {
      ready = ::poll(&p, 1, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) return -1;
    char chunk[16384];
    const ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (n < 0) return -2;
    buffer_.append(chunk, static_cast<size_t>(n));
    return static_cast<int>(n);
  }

  int fd_ = -1;
  std::string buffer_;
};

// Sends `request` exactly as given on a new connection and reads the response.
inline std::optional<RawHttpResponse> raw_http_exact(uint16_t port, std::string_view request, int timeout_ms = 5000) {
  RawHttpClient client(port);
  if (!client.ok() || !client.send(request)) return std::nullopt;
  return client.read_response(timeout_ms);
}

// Sends one request on a new connection and reads the response. `extra` holds more header lines
// ("Name: value\r\n" each); Host and (with a body) Content-Length are added.
inline std::optional<RawHttpResponse> raw_http(uint16_t port, std::string_view method, std::string_view target,
                                               std::string_view extra = "", std::string_view body = "",
                                               int timeout_ms = 5000) {
  std::string request;
  request.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n");
  request.append(extra);
  if (!body.empty() || method == "POST")
    request.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  request.append("Connection: close\r\n\r\n").append(body);
  return raw_http_exact(port, request, timeout_ms);
}

}  // namespace keel::testing
